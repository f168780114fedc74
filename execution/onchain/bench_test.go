package onchain_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/txmanager"
)

// BenchmarkSend measures what the checks before sending cost: Sender.Send
// (key lookup, policy, authority read on chain, gas reservation, Submit)
// against txmanager.Submit alone with the same call, on anvil with
// automine (every send mines a block, so every authority read misses the
// per-block cache: the worst case). Reports ns per send for both and
// their ratio. InFlight is 4096, so that neither loop waits in the queue.
//
//	go test -run '^$' -bench BenchmarkSend -benchtime 200x ./execution/onchain/
func BenchmarkSend(b *testing.B) {
	f := newFixture(b, func(c *execution.Config) {
		c.Policy.MaxSessionGas, c.Policy.MaxGasPerOwnerPerDay, c.InFlight = execution.MaxGas, execution.MaxGas, 4096
	})
	ctx := context.Background()
	sc := f.scope(2, 1)
	call := f.target.settle(b, 1, "bench")
	call.GasLimit = 100_000

	start := time.Now()
	for i := range b.N {
		if err := f.sender.Send(ctx, sc, fmt.Sprintf("0xowner/1/s:%d", i), call); err != nil {
			b.Fatal(err)
		}
	}
	sender := time.Since(start)

	m := f.sender.Manager()
	start = time.Now()
	for i := range b.N {
		if _, err := m.Submit(ctx, txmanager.Request{Key: fmt.Sprintf("bare:%d", i), To: call.To, Data: call.Data, GasLimit: call.GasLimit}); err != nil {
			b.Fatal(err)
		}
	}
	bare := time.Since(start)
	b.ReportMetric(float64(sender.Nanoseconds())/float64(b.N), "ns/send")
	b.ReportMetric(float64(bare.Nanoseconds())/float64(b.N), "ns/submit")
	b.ReportMetric(float64(bare)/float64(sender), "submit/send")
	if n, _ := execution.NewBudget(f.rdb, 0).Reserved(ctx, sc); n != uint64(b.N)*100_000 {
		b.Errorf("reserved %d", n)
	}
}
