package execution

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzParseConfig feeds arbitrary files to ParseConfig. Nothing may panic;
// an accepted section keeps every value in its range and the rest of the
// file keeps its line count; a refusal names the section's YAML path.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		"executions:\n  enabled: true\n  targets: any\n",
		"executions:\n  targets: [0x00000000000000000000000000000000000000a1]\n  maxFeePerGas: 1.5 gwei\n  inflight: 2\nfinality: safe\n",
		"executions: {enabled: true}\n", "executions:\n  maxGasLimit: 1e9\n", "registries: []\n", "executions:\n  - 1\n", "executions:\n  bumpPercent: 010\n",
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
			c.MaxFeePerGas == nil || c.MaxFeePerGas.Sign() <= 0 || (c.Enabled && !p.AnyTarget && len(p.Targets) == 0) {
			t.Fatalf("accepted out of range: %+v", c)
		}
	})
}
