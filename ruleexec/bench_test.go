package ruleexec_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/ruleexec"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/testenv"
)

const fixtures = "../testdata/xgr-public"

func fixture(b testing.TB, rel string) string {
	b.Helper()
	raw, err := os.ReadFile(filepath.Join(fixtures, rel))
	if err != nil {
		b.Fatalf("fixture %s: %v", rel, err)
	}
	return string(raw)
}

// repairedPi is the published IterationOfPi rule with its missing brace.
func repairedPi(b testing.TB) string {
	return fixture(b, "IterationOfPi/XRC137Json/Iterationstep.json") + "}"
}

// run executes the step b.N times, feeding each output back as the next
// input (as the reactor's payload flow does), and reports evaluations per
// second.
func run(b *testing.B, x *ruleexec.Executor, ref string, payload map[string]any) {
	b.Helper()
	ctx := context.Background()
	if _, err := x.Execute(ctx, step(ref, payload)); err != nil { // load and cache the rule
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := x.Execute(ctx, step(ref, payload))
		if err != nil || !r.Valid {
			b.Fatalf("%v %+v", err, r)
		}
		payload = reactor.NextPayload(payload, r.Output)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "evals/s")
}

// BenchmarkExecutorIterationOfPi: one IterationOfPi step through the
// executor, the rule resolved through the file map and taken from its cache.
func BenchmarkExecutorIterationOfPi(b *testing.B) {
	x := &ruleexec.Executor{Rules: files(b, map[string]string{"Iterationstep-Addr.json": repairedPi(b)})}
	run(b, x, "<Iterationstep-Addr>", map[string]any{"Iter": int64(0), "S": 0.0, "Pi": 0.0})
}

// BenchmarkExecutorQuorum: one step of the three-source quorum rule with
// the API answers stubbed.
func BenchmarkExecutorQuorum(b *testing.B) {
	stub := rule.StaticAPI{
		"coinbase_spot":          {Status: 200, Body: []byte(`{"data":{"amount":"100000","base":"BTC","currency":"USD"}}`)},
		"bitstamp_ticker":        {Status: 200, Body: []byte(`{"last":"100500"}`)},
		"coingecko_simple_price": {Status: 200, Body: []byte(`{"bitcoin":{"usd":120000}}`)},
	}
	quorum := fixture(b, "ApiPriceFeedQuorum/XRC137Json/ApiPriceFeedQuorumStep_3Sources.json")
	x := &ruleexec.Executor{Rules: files(b, map[string]string{"ApiPriceFeedStep-Addr.json": quorum}), API: stub}
	run(b, x, "<ApiPriceFeedStep-Addr>", map[string]any{})
}

// BenchmarkExecutorChainRuleIterationOfPi: the IterationOfPi rule stored in
// an XRC-137 contract on the in-process simulated chain; each step costs one
// ruleHash eth_call, the document comes from the (address, ruleHash) cache.
func BenchmarkExecutorChainRuleIterationOfPi(b *testing.B) {
	sim := testenv.StartSim(b)
	r, _ := testenv.DeployXRC137(b, sim, repairedPi(b))
	x := &ruleexec.Executor{Rules: rulesource.NewChain(sim.Backend())}
	run(b, x, r.Address.Hex(), map[string]any{"Iter": int64(0), "S": 0.0, "Pi": 0.0})
}
