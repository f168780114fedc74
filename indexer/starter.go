package indexer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/session"
)

// Starter starts the sessions of trigger logs once their blocks are
// confirmed, exactly once each: the start key is the session's idempotency
// key, so a crash between starting and marking only repeats the (no-op)
// start. Each start is the start use case (session.Starter); only a
// definite refusal (triggerOutcome "failed") marks a trigger failed, with
// the refusal's kind and path; an orchestration not indexed yet leaves it
// pending, and so does any error that decided nothing (a connection
// refused, a cluster failover, a Redis out of memory), with its attempts
// and last error: the next pass retries it with the same key.
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
	// Authority checks the session's runner (its owner) on the registry
	// and the orchestration's rule contracts before the session is created
	// (XRC-729 §3.1/§4.2), each rule reference resolved by its resolver
	// (WithRules: the runtime's): a runner that is neither owner nor
	// executor is a definite refusal; a node that cannot say is retried.
	// Without it a trigger of an on-chain registry is refused
	// (session.KindAuthorityRequired).
	Authority *authority.Checker

	told    bool      // the finality rule was logged
	view    FinalView // the last pass's view of the chain
	noticed time.Time // the last wait notice
}

// triggerOutcome is what a trigger start refused with a kind becomes (the
// start use case's kinds, docs/operating.md "Starting a session"):
// "failed" for good (a definite refusal: the trigger's recorded fields can
// never start a session), "waiting" for its orchestration to be indexed, or
// "retry" (the store, the node or the source failed; nothing was decided).
var triggerOutcome = map[session.Kind]string{
	session.KindInvalidRequest:       "failed",
	session.KindPayloadTooLarge:      "failed",
	session.KindPayloadInvalid:       "failed",
	session.KindAuthorityRequired:    "failed",
	session.KindNotAuthorized:        "failed",
	session.KindUnknownOrchestration: "waiting",
	session.KindHashMismatch:         "failed",
	session.KindUnknownStep:          "failed",
	session.KindRuleUnresolved:       "failed",
	session.KindStaleRoot:            "failed",
	session.KindQuota:                "retry",
	session.KindUnavailable:          "retry",
}

// refusal is a refused start's kind and path (of a *session.Error) and
// the line a trigger records: "kind at path: message".
func refusal(err error) (kind session.Kind, path, line string) {
	kind = session.KindOf(err)
	if se := (*session.Error)(nil); errors.As(err, &se) && se.Path != "" {
		return kind, se.Path, fmt.Sprintf("%s at %s: %v", kind, se.Path, err)
	}
	return kind, "", fmt.Sprintf("%s: %v", kind, err)
}

func (s *Starter) count(outcome string) {
	if s.Count != nil {
		s.Count(outcome)
	}
}

// starter is the start use case of the trigger starter's store, source
// and authority.
func (s *Starter) starter() session.Starter {
	return session.Starter{Store: s.Store, Source: s.Source, Authority: s.Authority, Now: s.Now}
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
		res, err := s.starter().Start(ctx, session.Request{Owner: rec["owner"], Registry: rec["registry"], OstcID: rec["ostcId"], OstcHash: rec["pin"],
			Step: rec["start"], Payload: json.RawMessage(rec["payload"]), Key: key})
		outcome := triggerOutcome[session.KindOf(err)]
		switch {
		case err != nil && ctx.Err() != nil:
			return started, ctx.Err()
		case err != nil && outcome == "waiting":
			s.Log.Warn("trigger waits for its orchestration", "trigger", rec["trigger"], "ostc", rec["ostcId"], "kind", session.KindOf(err), "err", err)
			s.count("waiting")
			continue
		case err != nil && outcome == "failed":
			// A pinned hash that does not match, a missing start step: this
			// log will never start a session.
			kind, path, line := refusal(err)
			s.Log.Error("trigger cannot start a session", "trigger", rec["trigger"], "key", key, "kind", kind, "path", path, "err", err)
			if err := s.Index.MarkStarted(ctx, key, map[string]string{"status": "failed", "error": line}); err != nil {
				return started, err
			}
			s.count("failed")
			continue
		case err != nil:
			// Redis unreachable, a failover, out of memory: the start may
			// have gone through in part; a retry with the same key finishes
			// it or starts it.
			attempts, _ := strconv.Atoi(rec["attempts"])
			s.Log.Warn("trigger start failed; retrying", "trigger", rec["trigger"], "key", key, "attempts", attempts+1, "kind", session.KindOf(err), "err", err)
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
