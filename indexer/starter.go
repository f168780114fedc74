package indexer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
)

// Starter starts the sessions of trigger logs once their blocks are
// confirmed, exactly once each: the start key is the session's idempotency
// key, so a crash between starting and marking only repeats the (no-op)
// start. Only a definite refusal (Refused) marks a trigger failed; any
// other error (a connection refused, a cluster failover, a Redis out of
// memory) leaves it pending, with its attempts and last error, and the
// next pass retries it with the same key.
type Starter struct {
	Chain  chain.Backend
	Index  *indexstore.Index
	Store  *joinstore.Store
	Source reactor.Source
	// Finality is auto, finalized, safe or confirmations (see Config).
	Finality      string
	Confirmations uint64
	Log           *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Count, when set, counts start outcomes: "started", "failed" (a
	// definite refusal), "retry" (an error; the trigger stays pending) and
	// "waiting" (its orchestration is not indexed yet).
	Count func(outcome string)
	// Waited, when set, receives for each session started how long after
	// the indexer saw its trigger log it started (the finality wait
	// included); triggers recorded before the indexer noted the time are
	// not reported.
	Waited func(time.Duration)
	// Authority, when set, checks the session's runner (its owner) on the
	// registry and the orchestration's rule contracts before the session
	// is created (XRC-729 §3.1/§4.2): a runner that is neither owner nor
	// executor is a definite refusal; a node that cannot say is retried.
	Authority *authority.Checker

	told    bool      // the finality rule was logged
	view    FinalView // the last pass's view of the chain
	noticed time.Time // the last wait notice
}

// ErrRefused marks a trigger start that can never succeed: its recorded
// fields (owner, pin, payload) are not a start xgr accepts.
var ErrRefused = errors.New("trigger start refused")

// Refused says whether a start error is a definite refusal, final for its
// trigger: a pinned hash that does not match the orchestration, a start
// step it does not have, a payload over the cap or of a refused shape, or
// a request refused before it was sent (ErrRefused), a runner without
// authority (*authority.Error), a rule reference the runtime does not
// resolve (*authority.UnresolvedError). Everything else —
// transport, cluster and server errors — may pass on a retry.
func Refused(err error) bool {
	if errors.As(err, new(*authority.Error)) || errors.As(err, new(*authority.UnresolvedError)) {
		return true
	}
	for _, final := range []error{ErrRefused, reactor.ErrHashMismatch, reactor.ErrUnknownStep, joinstore.ErrPayloadTooLarge, joinstore.ErrPayloadShape} {
		if errors.Is(err, final) {
			return true
		}
	}
	return false
}

// checkStart refuses a trigger start whose own fields can never start a
// session (ErrRefused), before anything is sent.
func checkStart(req reactor.StartRequest) error {
	if err := joinstore.CheckOwner(joinstore.NormalizeOwner(req.Owner)); err != nil {
		return fmt.Errorf("%w: %v", ErrRefused, err)
	}
	if req.OstcHash != "" {
		if b, err := hexutil.Decode(req.OstcHash); err != nil || len(b) != 32 {
			return fmt.Errorf("%w: pin %q: want 32 bytes of hex (0x + 64 digits)", ErrRefused, req.OstcHash)
		}
	}
	if err := reactor.CheckStartPayload(req.Payload); err != nil {
		return fmt.Errorf("%w: %v", ErrRefused, err)
	}
	return nil
}

func (s *Starter) count(outcome string) {
	if s.Count != nil {
		s.Count(outcome)
	}
}

// Confirmed is the newest block with at least n confirmations (the block
// itself counts as one), and false while the chain is shorter.
func Confirmed(tip, n uint64) (uint64, bool) {
	if n == 0 {
		n = 1
	}
	if tip+1 < n {
		return 0, false
	}
	return tip + 1 - n, true
}

// Step starts the sessions of every confirmed pending trigger; it returns
// how many it started.
func (s *Starter) Step(ctx context.Context) (int, error) {
	if s.Log == nil {
		s.Log = slog.Default()
	}
	if s.Now == nil {
		s.Now = time.Now
	}
	upTo, ok, err := s.final(ctx)
	if err != nil || !ok {
		return 0, err
	}
	keys, err := s.Index.PendingStarts(ctx, upTo, 256)
	if err != nil {
		return 0, err
	}
	if len(keys) == 0 {
		s.waitNotice(ctx)
	}
	started := 0
	for _, key := range keys {
		rec, err := s.Index.Entry(ctx, key)
		if err != nil {
			return started, err
		}
		if rec == nil || rec["status"] != "pending" {
			continue
		}
		req := reactor.StartRequest{Owner: rec["owner"], XRC729: rec["registry"], OstcID: rec["ostcId"], OstcHash: rec["pin"],
			Step: rec["start"], Payload: json.RawMessage(rec["payload"]), IdempotencyKey: key}
		err = checkStart(req)
		var res joinstore.StartResult
		if err == nil {
			if s.Authority != nil {
				res, err = reactor.StartGated(ctx, s.Store, s.Source, req, s.Now(), s.Authority)
			} else {
				res, err = reactor.Start(ctx, s.Store, s.Source, req, s.Now())
			}
		}
		switch {
		case err != nil && ctx.Err() != nil:
			return started, ctx.Err()
		case errors.Is(err, reactor.ErrUnknownOrchestration):
			s.Log.Warn("trigger waits for its orchestration", "trigger", rec["trigger"], "ostc", rec["ostcId"], "err", err)
			s.count("waiting")
			continue
		case err != nil && Refused(err):
			// A pinned hash that does not match, a missing start step: this
			// log will never start a session.
			s.Log.Error("trigger cannot start a session", "trigger", rec["trigger"], "key", key, "err", err)
			if err := s.Index.MarkStarted(ctx, key, map[string]string{"status": "failed", "error": err.Error()}); err != nil {
				return started, err
			}
			s.count("failed")
			continue
		case err != nil:
			// Redis unreachable, a failover, out of memory: the start may
			// have gone through in part; a retry with the same key finishes
			// it or starts it.
			attempts, _ := strconv.Atoi(rec["attempts"])
			s.Log.Warn("trigger start failed; retrying", "trigger", rec["trigger"], "key", key, "attempts", attempts+1, "err", err)
			if err := s.Index.RecordAttempt(ctx, key, err.Error(), s.Now()); err != nil {
				return started, err
			}
			s.count("retry")
			continue
		}
		if err := s.Index.MarkStarted(ctx, key, map[string]string{"rootPid": strconv.FormatInt(res.Root.RootPid, 10), "ack": res.Ack}); err != nil {
			return started, fmt.Errorf("trigger %s started session %s but could not record it: %w", key, res.Root, err)
		}
		s.Log.Info("trigger started a session", "trigger", rec["trigger"], "session", res.Root.String(), "ack", res.Ack)
		s.count("started")
		if seen, err := strconv.ParseInt(rec[SeenAtField], 10, 64); err == nil && seen > 0 && s.Waited != nil {
			s.Waited(s.Now().Sub(time.UnixMilli(seen)))
		}
		started++
	}
	return started, nil
}

// final is the newest block whose trigger logs may start sessions: the
// node's finalized or safe block, or the tip less the confirmations. The
// first pass logs the rule and how far the final block is behind the head.
func (s *Starter) final(ctx context.Context) (uint64, bool, error) {
	f := Finality{Mode: s.Finality, Confirmations: s.Confirmations}
	v, err := f.View(ctx, s.Chain)
	if err != nil {
		return 0, false, err
	}
	if v.Fallback {
		s.Finality = "confirmations" // the node has no finalized tag
		s.Log.Info("the node has no finalized block tag; counting confirmations", "confirmations", s.Confirmations)
	}
	if !s.told {
		s.told = true
		s.Log.Info("trigger finality", "finality", f.Mode, "rule", v.Rule, "head", v.Head, "final", v.Final, "finalLag", v.Lag())
	}
	s.view = v
	return v.Final, v.OK, nil
}

// waitNotice logs, at most once a minute, that pending trigger starts wait
// for their blocks to become final: on a chain whose final block does not
// move (an automine chain without traffic, a tag far behind the head) a
// start may wait long, and the log says for what.
func (s *Starter) waitNotice(ctx context.Context) {
	if now := s.Now(); now.Sub(s.noticed) < time.Minute {
		return
	} else {
		s.noticed = now
	}
	list, err := s.Index.PendingList(ctx, 1)
	if err != nil || len(list) == 0 {
		return
	}
	n, _ := s.Index.PendingCount(ctx)
	v, f := s.view, Finality{Mode: s.Finality, Confirmations: s.Confirmations}
	args := []any{"pending", n, "oldestBlock", list[0].Block, "final", v.Final, "head", v.Head, "rule", v.Rule}
	if at := f.FinalAt(v, list[0].Block); at > 0 {
		args = append(args, "finalAtHead", at)
	}
	s.Log.Info("trigger starts wait for their blocks to be final", args...)
}
