package txmanager

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/redis/go-redis/v9"
)

// TickReport says what one tick did.
type TickReport struct {
	// Holder is true when this replica held the sender's lease (a replica
	// without it does nothing).
	Holder bool
	// Head is the chain head the tick read.
	Head uint64
	// Counts of what the tick did: reserved keys signed after a stopped
	// replica, queued keys given a nonce, bumped attempts, bumps the fee
	// cap refused, attempts sent again, receipts seen, keys made final,
	// receipts a reorg dropped, keys whose nonce another transaction used,
	// gaps filled with a self-transfer, keys the node refused for good
	// (failed; their nonces are filled).
	Recovered, Promoted, Bumped, BumpCapped, Rebroadcast, Included, Final, Reorged, Lost, Filled, Failed int
	// Finality violations (finality.go): nonces used in a final block that
	// the chain lost (Violated), of them final keys sent again (Reopened);
	// executions given a new nonce because a final foreign transaction
	// used theirs (Resigned).
	Violated, Reopened, Resigned int
	// InFlight and Queued are the sender's unmined and waiting keys after
	// the tick.
	InFlight, Queued int
}

// unminedSince is the head at which this replica's tick first saw a key's
// current attempt unmined.
type unminedSince struct {
	attempts int
	head     uint64
}

// suspicion is when a key first looked lost, and on how many ticks.
type suspicion struct {
	head  uint64
	ticks int
}

// forget drops what this replica remembers about a key that is final.
func (m *Manager) forget(key string) {
	m.mu.Lock()
	delete(m.sent, key)
	delete(m.suspect, key)
	delete(m.unmined, key)
	delete(m.refused, key)
	delete(m.drops, key)
	m.mu.Unlock()
}

// live is a record the tick looks after, with its attempts.
type live struct {
	rec      Record
	attempts []attempt
}

// Run ticks every Poll until ctx ends, then releases the sender's lease so
// that another replica takes over at once. Tick errors are logged; the
// next tick tries again.
func (m *Manager) Run(ctx context.Context) error {
	var balanceAt time.Time // the last balance read
	for {
		if now := time.Now(); m.cfg.Metrics != nil && m.cfg.BalanceEvery > 0 && now.Sub(balanceAt) >= m.cfg.BalanceEvery {
			balanceAt = now
			m.readBalance(ctx)
		}
		if _, err := m.Tick(ctx); err != nil && ctx.Err() == nil {
			m.cfg.Log.Warn("txmanager: tick failed", "sender", m.from.Hex(), "err", err)
		}
		select {
		case <-ctx.Done():
			m.release()
			return nil
		case <-time.After(m.cfg.Poll):
		}
	}
}

// BalanceReader is the node's eth_getBalance; an *ethclient.Client has
// it. The balance gauge needs a Chain that has it.
type BalanceReader interface {
	BalanceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (*big.Int, error)
}

// readBalance sets the sender's balance gauge from the node (at the
// latest block). A failed read leaves the gauge as it was: its value goes
// stale rather than wrong, and the tick's own errors say why.
func (m *Manager) readBalance(ctx context.Context) {
	b, ok := m.cfg.Chain.(BalanceReader)
	if !ok {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, min(m.cfg.BalanceEvery, 5*time.Second))
	defer cancel()
	wei, err := b.BalanceAt(rctx, m.from, nil)
	if err != nil {
		if ctx.Err() == nil {
			m.cfg.Log.Warn("txmanager: read the sender's balance", "sender", m.from.Hex(), "err", err)
		}
		return
	}
	m.cfg.Metrics.balanceWei(m.labels, wei)
}

// release gives the lease up if this replica holds it.
func (m *Manager) release() {
	m.mu.Lock()
	token := m.token
	m.token = ""
	m.mu.Unlock()
	if token == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = scriptRelease.Run(ctx, m.cfg.Redis, []string{m.k.sender()}, token).Err()
}

// Tick does one round of the sender's upkeep, when this replica holds (or
// takes) the sender's lease: sign reserved keys a stopped replica left,
// read receipts (final per Finality; a reorg that drops one sends the same
// bytes again), bump attempts unmined for BumpAfterBlocks, send unmined
// attempts again every Rebroadcast, mark keys whose nonce another
// transaction used as lost, fill nonce gaps no record can close, and give
// queued keys their nonces. Each change is one fenced transition: a replica
// that lost the lease meanwhile changes nothing.
func (m *Manager) Tick(ctx context.Context) (TickReport, error) {
	m.tickMu.Lock()
	defer m.tickMu.Unlock()
	var rep TickReport
	token, err := m.lease(ctx)
	if err == nil && token == "" {
		// Another replica holds the lease and reports the sender's
		// gauges; this one shows 0 (not what it saw while it held it), so
		// that max() over replicas is the holder's.
		m.cfg.Metrics.gauges(m.labels, 0, 0)
		m.cfg.Metrics.unmined(m.labels, 0)
	}
	if err != nil || token == "" {
		return rep, err
	}
	rep.Holder = true
	h, err := m.cfg.Chain.HeaderByNumber(ctx, nil)
	if err != nil {
		return rep, fmt.Errorf("read head: %w", err)
	}
	rep.Head = h.Number.Uint64()
	m.mu.Lock()
	seenHead := max(m.head, rep.Head) // the head of the last market read: before a reorg, if one came
	m.mu.Unlock()
	mk, _, err := m.readMarket(ctx, h)
	if err != nil {
		return rep, err
	}
	mined, err := m.cfg.Chain.NonceAt(ctx, m.from, nil)
	if err != nil {
		return rep, fmt.Errorf("read nonce of %s: %w", m.from.Hex(), err)
	}
	pending, err := m.cfg.Chain.PendingNonceAt(ctx, m.from)
	if err != nil {
		return rep, fmt.Errorf("read pending nonce of %s: %w", m.from.Hex(), err)
	}
	recs, next, counts, err := m.loadLive(ctx)
	if err != nil {
		return rep, err
	}
	if pending > next {
		// The chain is ahead (a restore of Redis, or the key used outside
		// xgr): sync_nonce keeps it as "ahead"; reconcile reads the blocks.
		if next, err = m.raiseNonce(ctx, token, pending); err != nil {
			return rep, err
		}
	}
	if next, err = m.reconcile(ctx, token, rep.Head, mined, pending, next, recs); err != nil {
		return rep, err
	}
	finalHead, finalOK, err := m.finalHead(ctx, rep.Head, len(recs) > 0)
	if err != nil {
		return rep, err
	}
	rcpts, err := m.receipts(ctx, receiptHashes(recs, mined))
	if err != nil {
		return rep, err
	}
	held := map[uint64]bool{}
	for _, l := range recs {
		held[l.rec.Nonce] = true
	}
	if err := m.vanished(ctx, token, mined, counts.finalNext, rep.Head, seenHead, pending, held, &rep); err != nil {
		return rep, err
	}
	freed := func(n uint64) { delete(held, n) } // a failed key's nonce is a gap to fill now
	var ts []transition
	var stale []Record // reservations a stopped replica left unsigned
	for _, l := range recs {
		var err error
		switch l.rec.State {
		case Reserved:
			if time.Since(l.rec.ReservedAt) >= m.cfg.ReserveTimeout {
				stale = append(stale, l.rec)
			}
		case Signed:
			err = m.tickSigned(ctx, token, l, rcpts, mk, rep.Head, mined, finalHead, finalOK, &rep, &ts, freed)
		case Included:
			ts = append(ts, m.tickIncluded(ctx, token, l, rcpts, rep.Head, finalHead, finalOK, &rep)...)
		}
		if err != nil {
			return rep, err
		}
	}
	if err := m.commit(ctx, ts); err != nil {
		return rep, err
	}
	if len(stale) > 0 {
		rep.Recovered = len(stale)
		if err := m.signRecordSendAll(ctx, stale, indexes(len(stale))); err != nil {
			return rep, err
		}
	}
	// Below the node's pending nonce every nonce has a transaction in the
	// node (ours or not), so only nonces from there up can be gaps.
	gapped := gaps(max(mined, pending), next, held)
	m.cfg.Metrics.unmined(m.labels, next-min(mined, next))
	for _, n := range gapped {
		if err := m.fill(ctx, token, n, rep.Head, seenHead, held, &rep); err != nil {
			return rep, err
		}
	}
	if counts.queued > 0 && counts.pending-rep.Included-rep.Lost-rep.Failed+rep.Reorged+rep.Filled+rep.Reopened < m.cfg.MaxInFlight {
		if err := m.promote(ctx, token, counts.head, &rep); err != nil {
			return rep, err
		}
	}
	rep.InFlight = counts.pending - rep.Included - rep.Lost - rep.Failed + rep.Reorged + rep.Filled + rep.Reopened + rep.Promoted
	rep.Queued = counts.queued - rep.Promoted
	m.cfg.Metrics.gauges(m.labels, rep.InFlight, rep.Queued)
	return rep, nil
}

// lease takes or renews the sender's lease; "" when another replica holds it.
func (m *Manager) lease(ctx context.Context) (string, error) {
	res, err := scriptLease.Run(ctx, m.cfg.Redis, []string{m.k.sender()}, m.cfg.ID, m.cfg.LeaseTTL.Milliseconds(), "").StringSlice()
	if err != nil {
		return "", fmt.Errorf("txmanager: lease: %w", err)
	}
	m.mu.Lock()
	m.token = res[0]
	m.mu.Unlock()
	if len(res) > 2 && res[1] == "acquired" && res[2] != "" && res[2] != m.cfg.ID {
		m.cfg.Log.Warn("txmanager: took over the sender's lease", "sender", m.from.Hex(), "holder", m.cfg.ID, "previous", res[2])
	}
	return res[0], nil
}

// liveCounts are the sizes of the sender's pending set and queue when the
// tick read them, and the keys at the queue's head (at most MaxInFlight:
// the most a promotion can give nonces; promote.lua reaches their records,
// declared).
type liveCounts struct {
	pending, queued int
	head            []string
	// finalNext is one above the highest nonce used in a final block (the
	// sender's finalNext; 0 when none).
	finalNext uint64
}

// loadLive reads the records of every key with a nonce that is not final,
// their attempts, the sender's next nonce, how many keys wait in the queue
// and which at its head (1 round trip, 2 when there are live keys).
func (m *Manager) loadLive(ctx context.Context) ([]live, uint64, liveCounts, error) {
	var counts liveCounts
	pipe := m.cfg.Redis.Pipeline()
	pend, incl := pipe.ZRange(ctx, m.k.pending(), 0, -1), pipe.ZRange(ctx, m.k.included(), 0, -1)
	nextCmd, queued := pipe.HGet(ctx, m.k.sender(), "next"), pipe.ZCard(ctx, m.k.queue())
	head := pipe.ZRange(ctx, m.k.queue(), 0, int64(m.cfg.MaxInFlight)-1)
	finalNext := pipe.HGet(ctx, m.k.sender(), "finalNext")
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, 0, counts, fmt.Errorf("txmanager: read live keys: %w", err)
	}
	counts = liveCounts{pending: len(pend.Val()), queued: int(queued.Val()), head: head.Val()}
	if nextCmd.Err() == redis.Nil {
		// No key was ever submitted for the sender: start at the chain's nonce.
		if err := m.syncNonce(ctx, ""); err != nil {
			return nil, 0, counts, err
		}
		return m.loadLive(ctx)
	}
	next, err := strconv.ParseUint(nextCmd.Val(), 10, 64)
	if err != nil {
		return nil, 0, counts, fmt.Errorf("txmanager: %s next %q: want a decimal nonce", m.k.sender(), nextCmd.Val())
	}
	if v := finalNext.Val(); v != "" {
		if counts.finalNext, err = strconv.ParseUint(v, 10, 64); err != nil {
			return nil, 0, counts, fmt.Errorf("txmanager: %s finalNext %q: want a decimal nonce", m.k.sender(), v)
		}
	}
	names := append(pend.Val(), incl.Val()...)
	if len(names) == 0 {
		return nil, next, counts, nil
	}
	pipe = m.cfg.Redis.Pipeline()
	hs, as := make([]*redisMap, len(names)), make([]*redisList, len(names))
	for i, k := range names {
		hs[i], as[i] = pipe.HGetAll(ctx, m.k.record(k)), pipe.LRange(ctx, m.k.attempts(k), 0, -1)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, 0, counts, fmt.Errorf("txmanager: read live records: %w", err)
	}
	out := make([]live, 0, len(names))
	for i := range names {
		rec, err := parseRecord(hs[i].Val())
		if err != nil {
			return nil, 0, counts, fmt.Errorf("txmanager: %w", err)
		}
		l := live{rec: rec}
		for _, s := range as[i].Val() {
			var a attempt
			if err := json.Unmarshal([]byte(s), &a); err != nil {
				return nil, 0, counts, fmt.Errorf("txmanager: attempts of %q: %w", rec.Key, err)
			}
			l.attempts = append(l.attempts, a)
		}
		out = append(out, l)
	}
	return out, next, counts, nil
}

// finalHead is the newest final block (see Finality); a tag mode asks the
// node only when some key may need it.
func (m *Manager) finalHead(ctx context.Context, head uint64, need bool) (uint64, bool, error) {
	if m.cfg.Finality.Mode == "confirmations" || !need {
		n, ok := m.cfg.Finality.finalHead(head, 0)
		return n, ok && m.cfg.Finality.Mode == "confirmations", nil
	}
	tag := rpc.FinalizedBlockNumber
	if m.cfg.Finality.Mode == "safe" {
		tag = rpc.SafeBlockNumber
	}
	h, err := m.cfg.Chain.HeaderByNumber(ctx, big.NewInt(int64(tag)))
	if err != nil || h == nil {
		return 0, false, fmt.Errorf("read the node's %s block (finality %s): %v", m.cfg.Finality.Mode, m.cfg.Finality.Mode, err)
	}
	return h.Number.Uint64(), true, nil
}

// receiptHashes lists the transactions whose receipts the tick needs:
// every attempt of a signed key whose nonce the chain has mined, and the
// mined attempt of every included key.
func receiptHashes(recs []live, mined uint64) []common.Hash {
	var out []common.Hash
	for _, l := range recs {
		switch {
		case l.rec.State == Signed && l.rec.Nonce < mined:
			for _, a := range l.attempts {
				out = append(out, common.HexToHash(a.Hash))
			}
		case l.rec.State == Included:
			out = append(out, l.rec.TxHash)
		}
	}
	return out
}

// tickSigned looks after a signed, unmined key: its nonce mined (by one of
// its attempts: a settle is queued on ts; or lost), a permanent refusal by
// the node (the key fails: queued on ts, and freed is told its nonce), a
// bump, or a re-broadcast.
func (m *Manager) tickSigned(ctx context.Context, token string, l live, rcpts map[common.Hash]*types.Receipt, mk Market, head, mined, finalHead uint64, finalOK bool, rep *TickReport, ts *[]transition, freed func(uint64)) error {
	rec := l.rec
	if rec.Nonce < mined {
		for i := len(l.attempts) - 1; i >= 0; i-- {
			a := l.attempts[i]
			if r := rcpts[common.HexToHash(a.Hash)]; r != nil {
				*ts = append(*ts, m.settle(token, rec, a, r, finalOK && r.BlockNumber.Uint64() <= finalHead, rep))
				return nil
			}
		}
		if !finalOK {
			return nil
		}
		used, err := m.cfg.Chain.NonceAt(ctx, m.from, new(big.Int).SetUint64(finalHead))
		if err != nil {
			return fmt.Errorf("read nonce of %s at block %d: %w", m.from.Hex(), finalHead, err)
		}
		if used <= rec.Nonce {
			return nil
		}
		// A node may answer a receipt late (anvil under load did, for
		// seconds): the key is lost only when the condition held on three
		// ticks over at least two blocks and a direct read of every
		// attempt's receipt finds none.
		m.mu.Lock()
		sus, seen := m.suspect[rec.Key]
		if !seen {
			sus = suspicion{head: head}
		}
		sus.ticks++
		m.suspect[rec.Key] = sus
		m.mu.Unlock()
		if sus.ticks < 3 || head < sus.head+2 {
			m.cfg.Log.Warn("txmanager: a key's nonce is used but no receipt of its attempts is found; looking again next block",
				"key", rec.Key, "nonce", rec.Nonce, "attempts", len(l.attempts), "head", head)
			return nil
		}
		for _, a := range l.attempts {
			r, err := m.cfg.Chain.TransactionReceipt(ctx, common.HexToHash(a.Hash))
			if err == nil && r != nil {
				*ts = append(*ts, m.settle(token, rec, a, r, finalOK && r.BlockNumber.Uint64() <= finalHead, rep))
				return nil
			}
			if err != nil && !errors.Is(err, ethereum.NotFound) {
				return fmt.Errorf("read receipt of %s (%q): %w", a.Hash, rec.Key, err)
			}
		}
		if rec.Kind == "exec" {
			return m.resign(ctx, token, l, finalHead, rep)
		}
		*ts = append(*ts, m.lose(token, rec, finalHead, len(l.attempts), rep))
		return nil
	}
	if rf, ok := m.refusedNow(rec); ok {
		if failed, err := m.failRefused(ctx, token, l, rf, mk, rep, ts, freed); failed || err != nil {
			return err
		}
	}
	// Blocks are counted from the head this replica's tick first saw the
	// attempt unmined at (or its signing head, if later): the head recorded
	// at signing comes from a fee market read that may be older.
	m.mu.Lock()
	since, ok := m.unmined[rec.Key]
	if !ok || since.attempts != rec.Attempts {
		since = unminedSince{attempts: rec.Attempts, head: head}
		m.unmined[rec.Key] = since
	}
	m.mu.Unlock()
	if dueForBump(max(since.head, rec.AttemptBlock), head, m.cfg.BumpAfterBlocks) {
		prev := Fees{TipCap: rec.TipCap, FeeCap: rec.FeeCap, GasPrice: rec.GasPrice}
		if next, ok := BumpFees(m.policy, prev, mk); ok {
			return m.bump(ctx, token, rec, next, head, rep)
		}
		rep.BumpCapped++
		m.cfg.Metrics.bumpCapped(m.labels)
		m.cfg.Log.Warn("txmanager: attempt not mined and the fee cap leaves no room for a bump", "key", rec.Key,
			"nonce", rec.Nonce, "fees", prev.String(), "maxFeePerGas", m.policy.MaxFeePerGas)
	}
	m.mu.Lock()
	last, ok := m.sent[rec.Key]
	m.mu.Unlock()
	if !ok || time.Since(last) >= m.cfg.Rebroadcast {
		rep.Rebroadcast++
		m.cfg.Metrics.rebroadcast(m.labels)
		accepted, _ := m.broadcast(ctx, rec.Key, rec.Raw)
		if rf, ok := m.refusedNow(rec); ok {
			_, err := m.failRefused(ctx, token, l, rf, mk, rep, ts, freed)
			return err
		}
		if accepted {
			return m.checkDropped(ctx, token, l, rep, ts, freed)
		}
	}
	return nil
}

// failRefused queues the failure of a key whose current attempt the node
// refused for good (rf), when the node holds none of its attempts; a fee
// cap below the base fee is final only when MaxFeePerGas leaves no room
// for a bump. It reports whether the failure was queued. A gap filler is
// never failed: its nonce would be a gap again.
func (m *Manager) failRefused(ctx context.Context, token string, l live, rf refusal, mk Market, rep *TickReport, ts *[]transition, freed func(uint64)) (bool, error) {
	rec := l.rec
	if rec.Kind != "exec" {
		return false, nil
	}
	if rf.reason == ReasonFeeCap {
		if _, ok := BumpFees(m.policy, Fees{TipCap: rec.TipCap, FeeCap: rec.FeeCap, GasPrice: rec.GasPrice}, mk); ok {
			return false, nil
		}
	}
	none, err := m.nodeHoldsNone(ctx, l, rf.hash)
	if err != nil || !none {
		return false, err
	}
	*ts = append(*ts, m.failTransition(token, rec, rf.reason, rf.err, rep, freed))
	return true, nil
}

// checkDropped looks up a key's current attempt after the node accepted
// its broadcast: a node that accepted it DropLimit times in a row without
// keeping it (no pool entry, no block) drops it for good, and the key
// fails as dropped. A chain client that cannot look transactions up is
// not checked.
func (m *Manager) checkDropped(ctx context.Context, token string, l live, rep *TickReport, ts *[]transition, freed func(uint64)) error {
	rec := l.rec
	look, ok := m.cfg.Chain.(txLookup)
	if !ok || rec.Kind != "exec" {
		return nil
	}
	_, _, err := look.TransactionByHash(ctx, rec.TxHash)
	if err != nil && !errors.Is(err, ethereum.NotFound) {
		return fmt.Errorf("look up %s (%q): %w", rec.TxHash.Hex(), rec.Key, err)
	}
	n := m.noteDropped(rec, err == nil)
	if n == 0 {
		return nil
	}
	m.cfg.Log.Warn("txmanager: the node accepted a transaction and does not hold it", "key", rec.Key, "nonce", rec.Nonce,
		"tx", rec.TxHash.Hex(), "times", n, "limit", DropLimit)
	if n < DropLimit {
		return nil
	}
	none, err := m.nodeHoldsNone(ctx, l, rec.TxHash)
	if err != nil || !none {
		return err
	}
	why := fmt.Sprintf("the node accepted the transaction %d times in a row and kept it neither in its pool nor in a block", n)
	*ts = append(*ts, m.failTransition(token, rec, ReasonDropped, why, rep, freed))
	return nil
}

// bump signs, records and broadcasts a replacement attempt with the key's
// nonce.
func (m *Manager) bump(ctx context.Context, token string, rec Record, fees Fees, head uint64, rep *TickReport) error {
	tx, raw, err := m.sign(rec, fees)
	if err != nil {
		return fmt.Errorf("txmanager: sign a bump of %q: %w", rec.Key, err)
	}
	if m.crashed("bump-signed", rec.Key) {
		return errCrashed
	}
	res, err := scriptAttempt.Run(ctx, m.cfg.Redis, []string{m.k.sender(), m.k.record(rec.Key), m.k.attempts(rec.Key)},
		token, strconv.Itoa(rec.Attempts), strconv.FormatUint(rec.Nonce, 10), tx.Hash().Hex(), hexutil.Encode(raw),
		bigStr(fees.TipCap), bigStr(fees.FeeCap), bigStr(fees.GasPrice), strconv.FormatUint(head, 10), "").Text()
	if err != nil {
		return fmt.Errorf("txmanager: record a bump of %q: %w", rec.Key, err)
	}
	if res == "stale" {
		return nil
	}
	rep.Bumped++
	m.cfg.Metrics.bumped(m.labels)
	m.cfg.Metrics.attempt(m.labels)
	if m.crashed("bump-recorded", rec.Key) {
		return errCrashed
	}
	m.broadcast(ctx, rec.Key, raw)
	return nil
}

// tickIncluded looks at a mined key's receipt again: gone (a reorg: the
// same bytes are sent again), moved to another block, or final. It returns
// the transition to commit, if any.
func (m *Manager) tickIncluded(ctx context.Context, token string, l live, rcpts map[common.Hash]*types.Receipt, head, finalHead uint64, finalOK bool, rep *TickReport) []transition {
	rec := l.rec
	r := rcpts[rec.TxHash]
	if r == nil {
		return []transition{{script: scriptUnmine,
			keys: []string{m.k.sender(), m.k.record(rec.Key), m.k.pending(), m.k.included()},
			args: []any{token, rec.Key, rec.BlockHash.Hex(), strconv.FormatUint(head, 10), ""},
			then: func(res string) {
				if res != "unmined" {
					return
				}
				rep.Reorged++
				m.cfg.Metrics.reorg(m.labels)
				m.cfg.Log.Warn("txmanager: a reorg dropped a receipt; sending the same transaction again", "key", rec.Key,
					"tx", rec.TxHash.Hex(), "block", rec.Block, "blockHash", rec.BlockHash.Hex())
				m.broadcast(ctx, rec.Key, rec.Raw)
			}}}
	}
	final := finalOK && r.BlockNumber.Uint64() <= finalHead
	if r.BlockHash == rec.BlockHash && !final {
		return nil
	}
	return []transition{m.settle(token, rec, attempt{Hash: rec.TxHash.Hex(), Raw: hexutil.Encode(rec.Raw)}, r, final, rep)}
}

// settle is the transition that records a receipt of attempt a (included,
// or final).
func (m *Manager) settle(token string, rec Record, a attempt, r *types.Receipt, final bool, rep *TickReport) transition {
	flag := ""
	if final {
		flag = "1"
	}
	return transition{script: scriptSettle,
		keys: []string{m.k.sender(), m.k.record(rec.Key), m.k.attempts(rec.Key), m.k.pending(), m.k.included(), m.k.finalNonce(rec.Nonce)},
		args: []any{token, rec.Key, strconv.FormatUint(rec.Nonce, 10), a.Hash, a.Raw, r.BlockNumber.String(), r.BlockHash.Hex(),
			strconv.FormatUint(r.GasUsed, 10), strconv.FormatUint(r.Status, 10), bigStr(r.EffectiveGasPrice), flag,
			m.ttlSeconds(), ""},
		then: func(res string) {
			if rec.State == Signed && res != "stale" {
				rep.Included++
				if rec.Reorgs == 0 {
					m.cfg.Metrics.includedAfter(m.labels, time.Since(rec.CreatedAt))
				}
			}
			if res != "final" {
				return
			}
			rep.Final++
			outcome := Success
			if r.Status != types.ReceiptStatusSuccessful {
				outcome = Reverted
			}
			m.cfg.Metrics.final(m.labels, outcome, time.Since(rec.CreatedAt))
			m.forget(rec.Key)
		}}
}

// fill reserves gap nonce n for a zero-value self-transfer and sends it;
// a filler recorded final at n vanished in a reorg and is sent again.
func (m *Manager) fill(ctx context.Context, token string, n, head, seenHead uint64, held map[uint64]bool, rep *TickReport) error {
	key := "fill:" + strconv.FormatUint(n, 10)
	const gas = 21000
	res, err := scriptFill.Run(ctx, m.cfg.Redis, []string{m.k.sender(), m.k.record(key), m.k.pending(), m.k.included()},
		token, strconv.FormatUint(n, 10), strings.ToLower(m.from.Hex()), gas, "").Text()
	if err != nil {
		return fmt.Errorf("txmanager: fill nonce %d: %w", n, err)
	}
	if res == "final" {
		return m.reopenFill(ctx, token, n, head, seenHead, held, rep)
	}
	if res != "reserved" {
		return nil
	}
	rep.Filled++
	m.cfg.Metrics.gapFilled(m.labels)
	m.cfg.Log.Warn("txmanager: nonce gap filled with a zero-value self-transfer", "sender", m.from.Hex(), "nonce", n)
	rec := Record{Key: key, Kind: "fill", State: Reserved, Nonce: n, HasNonce: true, To: m.from, Value: new(big.Int), GasLimit: gas, CreatedAt: time.Now()}
	_, err = m.signRecordSend(ctx, rec)
	return err
}

// promote gives queued keys their nonces and sends them. head are the keys
// at the queue's head when the tick read it: their records are the keys
// promote.lua may reach (a key queued meanwhile past them waits for the
// next tick).
func (m *Manager) promote(ctx context.Context, token string, head []string, rep *TickReport) error {
	keys := make([]string, 0, 3+len(head))
	keys = append(keys, m.k.sender(), m.k.queue(), m.k.pending())
	args := make([]any, 0, 3+len(head))
	args = append(args, token, m.cfg.MaxInFlight, "")
	for _, key := range head {
		keys = append(keys, m.k.record(key))
		args = append(args, key)
	}
	res, err := scriptPromote.Run(ctx, m.cfg.Redis, keys, args...).StringSlice()
	if err != nil {
		return fmt.Errorf("txmanager: promote: %w", err)
	}
	var recs []Record
	for i := 0; i+6 < len(res); i += 7 {
		rec, err := parseRecord(map[string]string{"key": res[i], "kind": "exec", "state": string(Reserved), "nonce": res[i+1],
			"to": res[i+2], "data": res[i+3], "value": res[i+4], "gas": res[i+5], "createdAt": res[i+6]})
		if err != nil {
			return fmt.Errorf("txmanager: promote: %w", err)
		}
		recs = append(recs, rec)
	}
	rep.Promoted = len(recs)
	if len(recs) == 0 {
		return nil
	}
	return m.signRecordSendAll(ctx, recs, indexes(len(recs)))
}

// indexes is 0, 1, …, n-1.
func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func (m *Manager) ttlSeconds() string {
	if m.cfg.RecordTTL < 0 {
		return "0"
	}
	return strconv.FormatInt(int64(m.cfg.RecordTTL/time.Second), 10)
}
