package txmanager

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// This file holds what the tick does when finality does not hold: a
// transaction recorded final that a reorg deeper than the configured
// finality took from the chain (vanished, reopen.lua), and the other side
// of that promise, a key whose nonce a final foreign transaction used
// (resign.lua).

// vanishedNonces lists the nonces in [mined, finalNext) that no live key
// holds: each was used in a final block (finalNext is one above the
// highest such nonce) and the chain's mined nonce is below it now, so a
// reorg past finality took its transaction. At most limit are listed (a
// tick re-sends at most MaxInFlight of them); later lists the rest, which
// wait for the next tick and must not be filled meanwhile.
func vanishedNonces(mined, finalNext uint64, held map[uint64]bool, limit int) (now, later []uint64) {
	for n := mined; n < finalNext; n++ {
		switch {
		case held[n]:
		case len(now) < limit:
			now = append(now, n)
		default:
			later = append(later, n)
		}
	}
	return now, later
}

// reorgDepth is how many blocks a reorg that took a transaction final in
// block from the chain replaced at least: that block and every block up to
// the highest head seen.
func reorgDepth(block, seenHead uint64) uint64 {
	if seenHead < block {
		return 1
	}
	return seenHead - block + 1
}

// vanished looks after the nonces in [mined, finalNext) that no live key
// holds (vanishedNonces). A nonce whose key is a final record with its
// mined bytes is reopened (final → signed) and the same bytes are sent
// again under the same nonce; one that a foreign transaction had used is
// left to the gap fill (when the node holds nothing for it), never given a
// key's old bytes. Each is logged as an ERROR ("finality violated") and
// counted. The reopened nonces, and those left for the next tick, are
// added to held (so the gap fill leaves them alone). seenHead is the
// highest head this replica had seen.
func (m *Manager) vanished(ctx context.Context, token string, mined, finalNext, head, seenHead, pending uint64, held map[uint64]bool, rep *TickReport) error {
	nonces, later := vanishedNonces(mined, finalNext, held, m.cfg.MaxInFlight)
	for _, n := range later {
		held[n] = true
	}
	if len(nonces) == 0 {
		return nil
	}
	pipe := m.cfg.Redis.Pipeline()
	ptrs := make([]*redis.StringCmd, len(nonces))
	for i, n := range nonces {
		ptrs[i] = pipe.Get(ctx, m.k.finalNonce(n))
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("txmanager: read the keys of final nonces: %w", err)
	}
	var keys []string
	var at []uint64
	for i, n := range nonces {
		v := ptrs[i].Val()
		switch {
		case v == "":
			// No key named (its record expired after RecordTTL, or it was
			// made final before xgr kept the name): a gap the fill closes.
		case strings.HasPrefix(v, "foreign:"):
			if n < pending {
				continue // the node holds a transaction for it again
			}
			rep.Violated++
			m.cfg.Metrics.finalityViolation(m.labels)
			m.cfg.Log.Error("txmanager: finality violated: a reorg deeper than the configured finality took a foreign transaction from the chain; its nonce is filled with a zero-value self-transfer",
				"sender", m.from.Hex(), "nonce", n, "tx", "foreign", "key", strings.TrimPrefix(v, "foreign:"),
				"depth", "unknown", "finality", m.cfg.Finality.String())
		default:
			keys, at = append(keys, v), append(at, n)
		}
	}
	return m.reopenAll(ctx, token, keys, at, head, seenHead, held, rep)
}

// reopenAll reopens the final records of keys (each expected at the
// nonce at[i]) and sends their mined bytes again, in one pipeline and one
// broadcast batch.
func (m *Manager) reopenAll(ctx context.Context, token string, keys []string, at []uint64, head, seenHead uint64, held map[uint64]bool, rep *TickReport) error {
	if len(keys) == 0 {
		return nil
	}
	pipe := m.cfg.Redis.Pipeline()
	hs := make([]*redisMap, len(keys))
	for i, k := range keys {
		hs[i] = pipe.HGetAll(ctx, m.k.record(k))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("txmanager: read the records of vanished transactions: %w", err)
	}
	var ts []transition
	var send []Record
	for i, h := range hs {
		if len(h.Val()) == 0 {
			continue // expired meanwhile: a gap the fill closes
		}
		rec, err := parseRecord(h.Val())
		if err != nil {
			// Not one to send again; the nonce stays a gap and is filled,
			// so the sender does not stall on a record it cannot read.
			m.cfg.Log.Error("txmanager: finality violated and the final record of the nonce does not parse; the nonce is filled",
				"sender", m.from.Hex(), "nonce", at[i], "key", keys[i], "err", err)
			continue
		}
		if rec.State != Final || rec.Nonce != at[i] || len(rec.Raw) == 0 || (rec.Outcome != Success && rec.Outcome != Reverted) {
			continue
		}
		ts = append(ts, transition{script: scriptReopen,
			keys: []string{m.k.sender(), m.k.record(rec.Key), m.k.attempts(rec.Key), m.k.pending()},
			args: []any{token, rec.Key, strconv.FormatUint(rec.Nonce, 10), rec.TxHash.Hex(), strconv.FormatUint(head, 10), ""},
			then: func(res string) {
				if res != "reopened" {
					return
				}
				held[rec.Nonce] = true
				rep.Violated++
				rep.Reopened++
				m.cfg.Metrics.finalityViolation(m.labels)
				m.cfg.Log.Error("txmanager: finality violated: a reorg deeper than the configured finality took a final transaction from the chain; sending the same bytes again under its nonce",
					"sender", m.from.Hex(), "key", rec.Key, "nonce", rec.Nonce, "tx", rec.TxHash.Hex(), "block", rec.Block,
					"blockHash", rec.BlockHash.Hex(), "depth", reorgDepth(rec.Block, seenHead), "finality", m.cfg.Finality.String(),
					"outcomeWas", string(rec.Outcome))
				rec.State = Signed
				send = append(send, rec)
			}})
	}
	if err := m.commit(ctx, ts); err != nil {
		return err
	}
	m.broadcastAll(ctx, send, indexes(len(send)))
	return nil
}

// reopenFill reopens fill:<n>, a gap filler recorded final whose nonce is
// a gap again (fill.lua answered "final"), and sends its bytes again.
func (m *Manager) reopenFill(ctx context.Context, token string, n, head, seenHead uint64, held map[uint64]bool, rep *TickReport) error {
	return m.reopenAll(ctx, token, []string{"fill:" + strconv.FormatUint(n, 10)}, []uint64{n}, head, seenHead, held, rep)
}

// resign gives an execution whose nonce a final foreign transaction used
// the sender's next nonce, and signs, records and sends it under that
// nonce. A gap filler in that place ends lost instead: the foreign
// transaction closed the gap (see lose).
//
// Why this cannot execute the key twice: every attempt of the key carries
// the old nonce n. The caller saw the sender's nonce above n at the final
// block finalHead and no receipt for any of the attempts (three ticks over
// two blocks, then a direct read of each), so nonce n was used in a block
// at or below finalHead by a transaction that is none of them. An account
// uses each nonce once on a chain, so on every chain that keeps that block
// none of the old attempts can be included; only the new signature, under
// the new nonce, can execute the call. The old attempts move to the void
// list (o:<key>) and are never sent again.
func (m *Manager) resign(ctx context.Context, token string, l live, finalHead uint64, rep *TickReport) error {
	rec := l.rec
	res, err := scriptResign.Run(ctx, m.cfg.Redis,
		[]string{m.k.sender(), m.k.record(rec.Key), m.k.attempts(rec.Key), m.k.void(rec.Key), m.k.pending(), m.k.finalNonce(rec.Nonce)},
		token, rec.Key, strconv.FormatUint(rec.Nonce, 10), strconv.Itoa(rec.Attempts), strconv.FormatUint(finalHead, 10),
		m.ttlSeconds(), "").StringSlice()
	if err != nil {
		return fmt.Errorf("txmanager: give %q a new nonce: %w", rec.Key, err)
	}
	if len(res) < 2 || res[0] != "resigned" {
		return nil
	}
	nonce, err := strconv.ParseUint(res[1], 10, 64)
	if err != nil {
		return fmt.Errorf("txmanager: resign %q: new nonce %q: want a decimal", rec.Key, res[1])
	}
	m.forget(rec.Key)
	rep.Resigned++
	m.cfg.Metrics.resigned(m.labels)
	m.cfg.Log.Error("txmanager: a foreign transaction used an execution's nonce in a final block (the executor key signed elsewhere); signing the execution again under a new nonce",
		"key", rec.Key, "nonce", rec.Nonce, "newNonce", nonce, "finalBlock", finalHead, "voidAttempts", len(l.attempts), "sender", m.from.Hex())
	fresh := Record{Key: rec.Key, Kind: rec.Kind, State: Reserved, Nonce: nonce, HasNonce: true, To: rec.To, Data: rec.Data,
		Value: rec.Value, GasLimit: rec.GasLimit, CreatedAt: rec.CreatedAt, ReservedAt: time.Now()}
	_, err = m.signRecordSend(ctx, fresh)
	return err
}

// lose is the transition that ends a gap filler whose nonce a final
// foreign transaction used: there is nothing to execute, the gap is
// closed.
func (m *Manager) lose(token string, rec Record, finalHead uint64, attempts int, rep *TickReport) transition {
	reason := fmt.Sprintf("nonce %d was used in final block ≤ %d by a transaction that is none of this filler's %d attempts (the sender's key signed elsewhere); the gap is closed, nothing is signed again", rec.Nonce, finalHead, attempts)
	return transition{script: scriptLose,
		keys: []string{m.k.sender(), m.k.record(rec.Key), m.k.attempts(rec.Key), m.k.pending(), m.k.finalNonce(rec.Nonce)},
		args: []any{token, rec.Key, strconv.FormatUint(rec.Nonce, 10), reason, m.ttlSeconds(), ""},
		then: func(res string) {
			if res == "lost" {
				m.forget(rec.Key)
				rep.Lost++
				m.cfg.Metrics.final(m.labels, Lost, time.Since(rec.CreatedAt))
				m.cfg.Log.Warn("txmanager: a gap filler's nonce was used by a foreign transaction; the gap is closed", "key", rec.Key, "nonce", rec.Nonce, "sender", m.from.Hex())
			}
		}}
}
