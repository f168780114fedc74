package txmanager

import (
	"context"
	"math/big"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/ethclient"
)

// balanceCounter is the node, counting eth_getBalance reads.
type balanceCounter struct {
	*ethclient.Client
	reads atomic.Int64
}

func (c *balanceCounter) BalanceAt(ctx context.Context, a common.Address, n *big.Int) (*big.Int, error) {
	c.reads.Add(1)
	return c.Client.BalanceAt(ctx, a, n)
}

// series reads metric name's sample for m's sender (and outcome, when
// given), and whether it is exposed at all.
func (f *fixture) series(name string, m *Manager, outcome ...string) (float64, bool) {
	f.t.Helper()
	fams, err := f.reg.Gather()
	if err != nil {
		f.t.Fatal(err)
	}
	for _, fam := range fams {
		if fam.GetName() != name {
			continue
		}
		for _, mt := range fam.GetMetric() {
			got := map[string]string{}
			for _, l := range mt.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			if got["chain_id"] != m.labels[0] || got["sender"] != m.labels[1] || (len(outcome) > 0 && got["outcome"] != outcome[0]) {
				continue
			}
			switch {
			case mt.GetCounter() != nil:
				return mt.GetCounter().GetValue(), true
			case mt.GetGauge() != nil:
				return mt.GetGauge().GetValue(), true
			case mt.GetHistogram() != nil:
				return float64(mt.GetHistogram().GetSampleCount()), true
			}
		}
	}
	return 0, false
}

// Every metric of a sender shows from the manager's start (counters and
// gauges at 0, every outcome of xgr_txm_final_total), so that alert rules
// on them see 0 rather than no data; the balance shows once it is read.
func TestMetricsExposedFromTheStart(t *testing.T) {
	f := newFixture(t)
	m := f.manager(nil)
	for _, name := range []string{"xgr_txm_time_until_broadcast_seconds", "xgr_txm_time_until_included_seconds", "xgr_txm_time_until_final_seconds",
		"xgr_txm_attempts_total", "xgr_txm_gas_bumps_total", "xgr_txm_gas_bump_exceeds_limit_total", "xgr_txm_rebroadcasts_total",
		"xgr_txm_broadcast_errors_total", "xgr_txm_reorgs_total", "xgr_txm_nonce_gaps_filled_total", "xgr_txm_in_flight", "xgr_txm_queued",
		"xgr_txm_unmined_nonces"} {
		if v, ok := f.series(name, m); !ok || v != 0 {
			t.Errorf("%s = %v (exposed %v); want 0 from the start", name, v, ok)
		}
	}
	for _, o := range Outcomes {
		if v, ok := f.series("xgr_txm_final_total", m, string(o)); !ok || v != 0 {
			t.Errorf("xgr_txm_final_total{outcome=%q} = %v (exposed %v); want 0 from the start", o, v, ok)
		}
	}
	if _, ok := f.series("xgr_txm_executor_balance_ether", m); ok {
		t.Errorf("the balance is exposed before it was read")
	}
}

// Run keeps xgr_txm_executor_balance_ether at the sender's balance in
// ether, read every BalanceEvery (not on every tick): a balance changed on
// chain shows within one period, and a second of 20 ms ticks reads it a
// handful of times, not fifty.
func TestBalanceGauge(t *testing.T) {
	f := newFixture(t)
	node := &balanceCounter{Client: f.anvil.Client}
	m := f.manager(func(c *Config) { c.Chain, c.BalanceEvery = node, 200*time.Millisecond })
	set := func(wei *big.Int) {
		f.rpc("anvil_setBalance", m.Sender(), hexutil.EncodeBig(wei))
	}
	set(new(big.Int).Mul(big.NewInt(12345), big.NewInt(1e16))) // 123.45 ether
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); m.Run(ctx) }()
	defer func() { cancel(); <-done }()

	wait := func(want float64) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			v, ok := f.series("xgr_txm_executor_balance_ether", m)
			if ok && v == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("xgr_txm_executor_balance_ether = %v (exposed %v); want %v", v, ok, want)
			}
		}
	}
	wait(123.45)
	set(big.NewInt(5e17)) // 0.5 ether
	wait(0.5)

	before := node.reads.Load()
	time.Sleep(time.Second)
	// 1 s / 200 ms = 5 reads (6 with the edges); the ticks (every 20 ms)
	// would be ~50.
	if n := node.reads.Load() - before; n < 3 || n > 7 {
		t.Errorf("%d balance reads in one second at BalanceEvery 200ms; want ~5", n)
	}

	// Without metrics nothing is read.
	quiet := &balanceCounter{Client: f.anvil.Client}
	m2 := f.manager(func(c *Config) { c.Chain, c.Metrics, c.BalanceEvery, c.ID = quiet, nil, 20*time.Millisecond, "quiet" })
	ctx2, cancel2 := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel2()
	m2.Run(ctx2)
	if n := quiet.reads.Load(); n != 0 {
		t.Errorf("%d balance reads without Metrics; want none", n)
	}
}

// The gauge's unit: wei to ether, exact for whole and decimal amounts.
func TestBalanceWeiToEther(t *testing.T) {
	f := newFixture(t)
	m := f.manager(nil)
	for _, c := range []struct {
		wei  string
		want float64
	}{{"0", 0}, {"1000000000000000000", 1}, {"1500000000000000", 0.0015}, {"10000000000000000000000", 10000}} {
		w, _ := new(big.Int).SetString(c.wei, 10)
		f.metrics.balanceWei(m.labels, w)
		if v, _ := f.series("xgr_txm_executor_balance_ether", m); v != c.want {
			t.Errorf("%s wei: gauge %v; want %v", c.wei, v, c.want)
		}
	}
}
