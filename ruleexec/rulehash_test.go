package ruleexec_test

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/ruleexec"
	"github.com/xgr-sidecar/xgr/rulesource"
)

// Issue 38, Medium 6: every bundle names the rule text that decided its
// step, keccak256 of it as the indexer and the contract's ruleHash have
// it, whatever the rule's source, for steps that complete and for steps
// that abort after their rule was loaded.

// ruleCache is the indexer's rule cache (rulesource.RuleCache).
type ruleCache map[common.Address]string

func (c ruleCache) Rule(_ context.Context, a common.Address) (string, common.Hash, bool, error) {
	text, ok := c[a]
	return text, crypto.Keccak256Hash([]byte(text)), ok, nil
}

func TestEvidenceNamesTheRuleText(t *testing.T) {
	// The trailing newline is part of the text that ran, and of its hash.
	const text = `{"payload": {"A": {"type": "int64"}}, "rules": ["[A] > 0"], "onValid": {"payload": {"B": "[A]"}}}` + "\n"
	const aborts = `{"payload": {"A": {"type": "int64"}}, "rules": [{"type": "abortStep", "expression": "[A] > 5"}], "onValid": {"payload": {}}}`
	addr, abortAddr := common.HexToAddress("0x00000000000000000000000000000000000000c7"), common.HexToAddress("0x00000000000000000000000000000000000000c8")
	cached := rulesource.NewChain(nil) // no backend: any chain read would panic
	cached.Cache = ruleCache{addr: text, abortAddr: aborts}
	for name, tc := range map[string]struct {
		src        rulesource.Source
		ref, abort string
	}{
		"--rules file":     {files(t, map[string]string{"R.json": text, "Abort.json": aborts}), "<R>", "<Abort>"},
		"index rule cache": {cached, addr.Hex(), abortAddr.Hex()},
	} {
		t.Run(name, func(t *testing.T) {
			x := &ruleexec.Executor{Rules: tc.src, Evidence: true}
			run := func(ref, text string, wantErr bool) {
				t.Helper()
				res, err := x.Execute(context.Background(), reactor.Execution{Owner: "0x01", Pid: "1:1", Step: &registry.Step{ID: "S1", Rule: ref}, Payload: map[string]any{"A": 7}})
				if (err != nil) != wantErr {
					t.Fatalf("%s: %v", ref, err)
				}
				want := crypto.Keccak256Hash([]byte(text)).Hex()
				if res.Evidence == nil || res.Evidence.RuleHash != want {
					t.Fatalf("%s: evidence %+v, want ruleHash %s", ref, res.Evidence, want)
				}
			}
			run(tc.ref, text, false)
			run(tc.ref, text, false) // served from the source's cache
			run(tc.abort, aborts, true)
		})
	}
}
