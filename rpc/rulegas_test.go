package rpc_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/xgr-sidecar/xgr/rpc"
)

// TestEstimateRuleGas quotes the validation gas guide's three worked
// examples over the wire, in the request and answer of the endpoint
// reference §8, and refuses bad requests with coded errors.
func TestEstimateRuleGas(t *testing.T) {
	g := newGateway(t, rpc.ServerConfig{})
	ctx := context.Background()
	for _, tc := range []struct {
		file         string
		gas, invalid uint64 // onInvalid is empty: the common part, clamped
		exec         uint64
	}{{"minimal.json", 15_000, 15_000, 0}, {"mid.json", 26_950, 24_850, 0}, {"advanced.json", 47_000, 38_350, 150_000}} {
		raw, err := os.ReadFile(filepath.Join("..", "rule", "testdata", "gas", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		var res json.RawMessage
		if err := g.client.Raw(ctx, &res, "xgr_estimateRuleGas", map[string]any{"json": string(raw), "validSpawns": 1, "invalidSpawns": 2}); err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		var est rpc.RuleGasEstimate
		if err := json.Unmarshal(res, &est); err != nil {
			t.Fatal(err)
		}
		v := est.OnValid
		if est.ValidationGas != tc.gas || v.ValidationGas != tc.gas || est.OnInvalid.ValidationGas != tc.invalid ||
			v.InnerCalls["execution"] != tc.exec || v.Total != tc.gas+tc.exec || est.TotalValid != v.Total ||
			est.TotalInvalid != tc.invalid || est.TotalWorstCase != max(v.Total, est.OnInvalid.Total) || v.GrantValueWei != "0" {
			t.Fatalf("%s: %s", tc.file, res)
		}
		// The answer's members are the reference's, no more, no fewer.
		var shape map[string]map[string]any
		_ = json.Unmarshal(res, &shape)
		want := []string{"encryptLogs", "expireDays", "expireAt", "grantValueWei", "grantSeconds", "validationGas", "evmTxCalldata", "logGas", "innerCalls", "total"}
		if len(shape["onValid"]) != len(want) {
			t.Fatalf("%s: onValid has %d members, want %v: %s", tc.file, len(shape["onValid"]), want, res)
		}
		for _, k := range want {
			if _, ok := shape["onValid"][k]; !ok {
				t.Fatalf("%s: onValid lacks %q: %s", tc.file, k, res)
			}
		}
	}
	// "encrypted" is the default of a branch that does not say.
	var est rpc.RuleGasEstimate
	if err := g.client.Raw(ctx, &est, "xgr_estimateRuleGas", map[string]any{"json": `{"payload": {}, "rules": [], "onInvalid": {"encryptLogs": false}}`, "encrypted": true}); err != nil {
		t.Fatal(err)
	}
	if !est.OnValid.EncryptLogs || est.OnInvalid.EncryptLogs || est.OnValid.ValidationGas != 15_000 {
		t.Fatalf("encrypted default: %+v", est)
	}
	for name, tc := range map[string]struct {
		params map[string]any
		reason string
	}{
		"no json":           {map[string]any{}, "invalid-params"},
		"broken json":       {map[string]any{"json": `{"payload": `}, "invalid-rule"},
		"invalid rule":      {map[string]any{"json": `{"payload": {}, "rules": ["[A] >"]}`}, "invalid-rule"},
		"negative spawns":   {map[string]any{"json": `{"payload": {}}`, "validSpawns": -1}, "invalid-params"},
		"too many spawns":   {map[string]any{"json": `{"payload": {}}`, "invalidSpawns": 33}, "invalid-params"},
		"json not a string": {map[string]any{"json": map[string]any{"payload": map[string]any{}}}, ""},
	} {
		err := g.client.Raw(ctx, &est, "xgr_estimateRuleGas", tc.params)
		if tc.reason == "" {
			if err == nil {
				t.Errorf("%s: accepted", name)
			}
			continue
		}
		t.Run(name, func(t *testing.T) { refused(t, err, rpc.CodeInvalidParams, tc.reason) })
	}
}
