package indexer

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/contracts/xrc137"
	"github.com/xgr-sidecar/xgr/indexstore"
)

var ruleABI = xrc137.NewXRC137().GetABI()

// TopicXRC137Updated is topic0 of XRC137Updated, emitted on every rule write.
var TopicXRC137Updated = ruleABI.Events["XRC137Updated"].ID

// RuleKey is the cache entry of an XRC-137 rule, relative to the index.
func RuleKey(addr common.Address) string { return "rule:" + strings.ToLower(addr.Hex()) }

// loadRules reads back which rules are followed: those the cached
// orchestrations reference.
func (f *Follower) loadRules(ctx context.Context) {
	f.rules = map[common.Address]bool{}
	if !f.FollowRules {
		return
	}
	keys, err := f.Index.Keys(ctx, "ostc:")
	if err != nil {
		f.Log.Warn("reading cached orchestrations", "err", err)
		return
	}
	for _, k := range keys {
		e, err := f.Index.Entry(ctx, k)
		if err != nil || e["json"] == "" {
			continue
		}
		for _, a := range f.docs.rules(common.HexToHash(e["hash"]), e["json"]) {
			f.rules[a] = true
		}
	}
}

// ruleChange caches the rule of addr as it stands in the block with the
// given hash, after checking keccak256(ruleJson) against ruleHash (and
// against the event's hash, when there is an event).
func (f *Follower) ruleChange(ctx context.Context, addr common.Address, number uint64, block common.Hash, event *common.Hash) (indexstore.Change, error) {
	c := indexstore.Change{Block: number, Key: RuleKey(addr)}
	st, err := chain.NewRule(addr, f.Chain).StoredAt(ctx, block)
	if err != nil {
		return c, fmt.Errorf("read XRC-137 %s at block %d: %w", addr.Hex(), number, err)
	}
	got := crypto.Keccak256Hash([]byte(st.Text))
	c.Fields = map[string]string{"address": addr.Hex(), "block": strconv.FormatUint(number, 10), "hash": st.Hash.Hex(),
		"encrypted": strconv.FormatBool(st.Encrypted)}
	if got != st.Hash || (event != nil && *event != st.Hash) {
		ev := ""
		if event != nil {
			ev = event.Hex()
		}
		c.Fields["mismatch"] = fmt.Sprintf("event %s, ruleHash %s, keccak256(ruleJson) %s", ev, st.Hash.Hex(), got.Hex())
		rec, _ := json.Marshal(map[string]any{"rule": addr.Hex(), "block": number, "event": ev, "ruleHash": st.Hash.Hex(), "text": got.Hex()})
		f.Index.RecordMismatch(ctx, string(rec))
		f.Log.Error("rule hash mismatch: not cached", "rule", addr.Hex(), "block", number)
		return c, nil
	}
	c.Fields["text"] = st.Text
	return c, nil
}

// ruleLog turns an XRC137Updated log into a cache change.
func (f *Follower) ruleLog(ctx context.Context, sc scope, l types.Log) (indexstore.Change, bool, error) {
	if len(l.Topics) < 4 || l.Topics[0] != TopicXRC137Updated || !sc.rules[l.Address] {
		return indexstore.Change{}, false, nil
	}
	hash := l.Topics[3]
	c, err := f.ruleChange(ctx, l.Address, l.BlockNumber, l.BlockHash, &hash)
	return c, err == nil, err
}

// newRules caches the rules that orchestrations changed in this range start
// to reference, as they stand at the range's last block; sc follows them
// from then on.
func (f *Follower) newRules(ctx context.Context, sc scope, changes []indexstore.Change, last indexstore.Block) ([]indexstore.Change, error) {
	if !f.FollowRules {
		return nil, nil
	}
	var out []indexstore.Change
	for _, c := range changes {
		if !strings.HasPrefix(c.Key, "ostc:") || c.Fields["json"] == "" {
			continue
		}
		for _, a := range f.docs.rules(common.HexToHash(c.Fields["hash"]), c.Fields["json"]) {
			if sc.rules[a] {
				continue
			}
			sc.rules[a] = true // committed with the range
			rc, err := f.ruleChange(ctx, a, last.Number, last.Hash, nil)
			if err != nil {
				return nil, err
			}
			out = append(out, rc)
		}
	}
	return out, nil
}

// Rule returns the cached text and hash of a followed rule (ok false when
// the rule is not cached, is encrypted, or its text did not match its hash:
// the caller then reads the contract and reports what is wrong).
func (s *CacheSource) Rule(ctx context.Context, addr common.Address) (string, common.Hash, bool, error) {
	e, err := s.Index.Entry(ctx, RuleKey(addr))
	if err != nil || e == nil || e["mismatch"] != "" || e["text"] == "" || e["encrypted"] == "true" {
		return "", common.Hash{}, false, err
	}
	return e["text"], common.HexToHash(e["hash"]), true, nil
}
