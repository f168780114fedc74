package execution

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// FuzzParseConfig feeds arbitrary files to ParseConfig. Nothing may panic;
// an accepted section keeps every value in its range and the rest of the
// file keeps its line count; a refusal names the section's YAML path.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		"executions:\n  enabled: true\n  targets: any\n",
		"executions:\n  targets: [0x00000000000000000000000000000000000000a1]\n  maxFeePerGas: 1.5 gwei\n  inflight: 2\nfinality: safe\n",
		"executions: {enabled: true}\n", "executions:\n  maxGasLimit: 1e9\n", "registries: []\n", "executions:\n  - 1\n", "executions:\n  bumpPercent: 010\n",
		"executions:\n  targets: any\n  allowAnyTarget: i-understand-the-risk\n",
		"executions:\n  targets:\n    - address: 0x00000000000000000000000000000000000000a1\n      functions: [\"settle(uint256,address)\", \"0xa9059cbb\"]\n      plainTransfer: true\n      value: {allowed: true, maxPerExecution: 0.1 ether}\n  value: {maxPerSession: 1 ether, maxPerOwnerPerDay: 2 ether}\n",
		"executions:\n  maxSpendPerOwnerPerDay: 1.5 ether\n  maxGasPerOwnerPerDay: 0\n  maxSessionGas: 7\n",
		"executions:\n  targets: [{address: 0x00000000000000000000000000000000000000a1, functions: [\"f(uint[2][],bytes32)(bool)\"]}]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, rest, err := ParseConfig("f.yaml", raw)
		if err != nil {
			if rest != nil || !strings.Contains(err.Error(), "executions") {
				t.Fatalf("refusal without the section's path, or with a rest: %v", err)
			}
			return
		}
		if bytes.Count(rest, []byte("\n")) != bytes.Count(raw, []byte("\n")) {
			t.Fatalf("line count changed:\n%q\n%q", raw, rest)
		}
		p := c.Policy
		if p.MaxGasLimit > MaxGas || p.MaxSessionGas > MaxGas || c.InFlight < 1 || c.BumpPercent < 10 || c.BumpAfterBlocks < 1 ||
			c.MaxFeePerGas == nil || c.MaxFeePerGas.Sign() <= 0 || (c.Enabled && !p.AnyTarget && len(p.Targets) == 0) || p.MaxGasPerOwnerPerDay > MaxGas {
			t.Fatalf("accepted out of range: %+v", c)
		}
		if p.AnyTarget && !bytes.Contains(raw, []byte(AllowAnyTargetAck)) {
			t.Fatalf("targets: any accepted without allowAnyTarget: %q", raw)
		}
		seen := map[common.Address]bool{}
		for _, tg := range p.Targets {
			// Every target allows something, value only with its own cap and
			// the section's session and owner-day caps; no address twice.
			if seen[tg.Address] || tg.Address == (common.Address{}) || (!tg.AnyFunction && len(tg.Functions) == 0 && !tg.PlainTransfer) ||
				(tg.Value && (tg.MaxValue == nil || tg.MaxValue.Sign() <= 0 || p.Value.MaxPerSession == nil || p.Value.MaxPerSession.Sign() <= 0 ||
					p.Value.MaxPerOwnerPerDay == nil || p.Value.MaxPerOwnerPerDay.Sign() <= 0)) || (!tg.Value && tg.MaxValue != nil) {
				t.Fatalf("accepted target %+v of %q", tg, raw)
			}
			seen[tg.Address] = true
		}
	})
}
