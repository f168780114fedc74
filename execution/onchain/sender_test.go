package onchain_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/execution/onchain"
	"github.com/xgr-sidecar/xgr/testenv"
	"github.com/xgr-sidecar/xgr/txmanager"
)

// target is a deployed contracts/testdata/ExecTarget.sol.
type target struct {
	addr common.Address
	abi  abi.ABI
}

func deployTarget(t testing.TB, a *testenv.Anvil) target {
	t.Helper()
	x := testenv.DeployExecTarget(t, a)
	return target{addr: x.Address, abi: x.ABI}
}

// settle is the call settle(amount, ref) of the target.
func (tg target) settle(t testing.TB, amount int64, ref string) execution.Call {
	t.Helper()
	data, err := tg.abi.Pack("settle", big.NewInt(amount), ref)
	if err != nil {
		t.Fatal(err)
	}
	return execution.Call{To: tg.addr, Function: "settle(uint256,string)", Data: data}
}

// calls reads callsOf(ref) on chain.
func (tg target) calls(t *testing.T, a *testenv.Anvil, ref string) uint64 {
	t.Helper()
	data, _ := tg.abi.Pack("callsOf", ref)
	out, err := a.Client.CallContract(context.Background(), ethereum.CallMsg{To: &tg.addr, Data: data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return new(big.Int).SetBytes(out).Uint64()
}

type fixture struct {
	anvil    *testenv.Anvil
	rdb      redis.UniversalClient
	target   target
	registry common.Address
	rule     common.Address
	r137     *chain.Rule
	sender   *onchain.Sender
}

// newFixture: anvil with the target, a registry and a rule contract owned
// by key 0 that list key 2 as executor; the sender signs with key 1.
func newFixture(t testing.TB, mutate func(*execution.Config)) *fixture {
	t.Helper()
	a := testenv.StartAnvil(t)
	f := &fixture{anvil: a, rdb: testenv.StartRedis(t).Client(), target: deployTarget(t, a)}
	reg, _ := testenv.DeployXRC729(t, a, chain.RegistryInit{Executors: []common.Address{a.Address(2)}})
	r137, _ := testenv.DeployXRC137(t, a, `{"payload": {}, "rules": []}`)
	if _, err := r137.AddExecutor(context.Background(), testenv.Sender(t, a, 0), a.Address(2)); err != nil {
		t.Fatal(err)
	}
	f.registry, f.rule, f.r137 = reg.Address, r137.Address, r137
	cfg := execution.DefaultConfig()
	cfg.Enabled = true
	cfg.Policy.Targets = execution.Targets(f.target.addr)
	cfg.Policy.MaxGasLimit = 200_000
	if mutate != nil {
		mutate(&cfg)
	}
	s, err := onchain.New(context.Background(), onchain.Config{Executions: cfg, Redis: f.rdb, Chain: a.Client, Key: a.Key(1),
		Manager: txmanager.Config{Finality: txmanager.Finality{Mode: "confirmations", Confirmations: 1}, Poll: 20 * time.Millisecond,
			LeaseTTL: 300 * time.Millisecond, ReserveTimeout: -1}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	f.sender = s
	return f
}

func (f *fixture) scope(runner int, session uint64) execution.Scope {
	return execution.Scope{Owner: f.anvil.Address(runner), Session: session, Pid: "1:1", Registry: f.registry, RuleContract: f.rule}
}

// outcome polls Outcome until it is final.
func (f *fixture) outcome(t *testing.T, key string) execution.Outcome {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		o, ok, err := f.sender.Outcome(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			return o
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s: not final after 30s", key)
	return execution.Outcome{}
}

func refusal(t *testing.T, err error, limit, contains string) {
	t.Helper()
	var r *execution.Refusal
	if !errors.As(err, &r) || r.Limit != limit || !strings.Contains(r.Reason, contains) {
		t.Errorf("want a refusal %s containing %q, got %#v", limit, contains, err)
	}
}

// A call sent by an authorized runner lands once and ends final with
// status 1; a second Send of its key signs nothing; a reverting call ends
// with status 0 and the contract's reason.
func TestSenderOnAnvil(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	sc := f.scope(2, 7)
	ok := f.target.settle(t, 5, "k1")
	if err := f.sender.Send(ctx, sc, "0xowner/7/7:1", ok); err != nil {
		t.Fatal(err)
	}
	o := f.outcome(t, "0xowner/7/7:1")
	if o.Status != 1 || o.Block == 0 || o.GasUsed == 0 || o.TxHash == (common.Hash{}) || o.Lost || o.RevertReason != "" {
		t.Fatalf("success: %+v", o)
	}
	rc, err := f.anvil.Client.TransactionReceipt(ctx, o.TxHash)
	if err != nil || rc.Status != 1 || rc.BlockNumber.Uint64() != o.Block || rc.GasUsed != o.GasUsed {
		t.Fatalf("receipt %+v %v", rc, err)
	}
	if err := f.sender.Send(ctx, sc, "0xowner/7/7:1", ok); err != nil {
		t.Fatal(err)
	}
	f.anvil.Mine(t, 2)
	if n := f.target.calls(t, f.anvil, "k1"); n != 1 {
		t.Errorf("k1 landed %d times", n)
	}
	// The call's gas limit (the cap: the call sets none) is reserved in the session's budget.
	if n, err := execution.NewBudget(f.rdb, 0).Reserved(ctx, sc); err != nil || n != 200_000 {
		t.Errorf("reserved %d %v", n, err)
	}

	// A Send interrupted after its reservation: the retry sends the
	// reserved gas limit and reserves nothing more.
	if _, err := execution.NewBudget(f.rdb, 0).Reserve(ctx, sc, "0xowner/7/7:3", 150_000, 10_000_000); err != nil {
		t.Fatal(err)
	}
	if err := f.sender.Send(ctx, sc, "0xowner/7/7:3", f.target.settle(t, 1, "k3")); err != nil {
		t.Fatal(err)
	}
	if rec, err := f.sender.Manager().Status(ctx, "0xowner/7/7:3"); err != nil || rec.GasLimit != 150_000 {
		t.Errorf("retry after the reservation: %+v %v", rec, err)
	}
	if n, _ := execution.NewBudget(f.rdb, 0).Reserved(ctx, sc); n != 350_000 {
		t.Errorf("reserved after the retry: %d", n)
	}

	bad := f.target.settle(t, 0, "k2")
	bad.GasLimit = 100_000
	if err := f.sender.Send(ctx, sc, "0xowner/7/7:2", bad); err != nil {
		t.Fatal(err)
	}
	o = f.outcome(t, "0xowner/7/7:2")
	if o.Status != 0 || o.RevertReason != "amount is zero" || o.Block == 0 {
		t.Fatalf("revert: %+v", o)
	}

	// Preview from the would-be sender: the reason without signing.
	sim, err := onchain.Preview(ctx, f.anvil.Client, f.sender.Address(), f.target.settle(t, 0, "p"))
	if err != nil || !sim.Reverted || sim.Reason != "amount is zero" {
		t.Errorf("preview revert: %+v %v", sim, err)
	}
	sim, err = onchain.Preview(ctx, f.anvil.Client, f.sender.Address(), f.target.settle(t, 3, "p"))
	if err != nil || sim.Reverted {
		t.Errorf("preview success: %+v %v", sim, err)
	}
	if n := f.target.calls(t, f.anvil, "p"); n != 0 {
		t.Errorf("preview landed %d times", n)
	}

	// An unknown key is an error, not "pending".
	if _, _, err := f.sender.Outcome(ctx, "0xowner/7/7:99"); !errors.Is(err, txmanager.ErrNotFound) {
		t.Errorf("unknown key: %v", err)
	}
}

// Refusals: nothing is recorded, reserved or sent.
func TestSenderRefusals(t *testing.T) {
	f := newFixture(t, func(c *execution.Config) { c.Policy.MaxSessionGas = 300_000 })
	ctx := context.Background()
	call := f.target.settle(t, 1, "r")
	none := func(key string, sc execution.Scope) {
		t.Helper()
		if _, err := f.sender.Manager().Status(ctx, key); !errors.Is(err, txmanager.ErrNotFound) {
			t.Errorf("%s: recorded: %v", key, err)
		}
		if n, _ := execution.NewBudget(f.rdb, 0).Reserved(ctx, sc); n != 0 && sc.Session != 3 {
			t.Errorf("%s: %d gas reserved", key, n)
		}
	}
	// The runner (key 3) is on neither executor list.
	sc := f.scope(3, 1)
	err := f.sender.Send(ctx, sc, "0xowner/1/1:1", call)
	refusal(t, err, execution.LimitAuthority, "is not authorized on XRC-729 registry")
	none("0xowner/1/1:1", sc)
	// The registry's owner (key 0) is authorized without being listed; a
	// rule contract that does not list the runner refuses it.
	sc = f.scope(0, 2)
	sc.RuleContract = f.target.addr // answers neither owner() nor getExecutorList()
	err = f.sender.Send(ctx, sc, "0xowner/2/2:1", call)
	refusal(t, err, execution.LimitAuthority, "XRC-137 rule contract "+f.target.addr.Hex())
	none("0xowner/2/2:1", sc)

	// Policy: a target not listed, a gas limit over the cap, the budget.
	sc = f.scope(2, 3)
	other := call
	other.To = f.registry
	refusal(t, f.sender.Send(ctx, sc, "0xowner/3/3:1", other), execution.LimitTargets, "not among")
	over := call
	over.GasLimit = 200_001
	refusal(t, f.sender.Send(ctx, sc, "0xowner/3/3:2", over), execution.LimitMaxGas, "above the operator's cap 200000")
	if err := f.sender.Send(ctx, sc, "0xowner/3/3:3", call); err != nil { // 200000 of 300000
		t.Fatal(err)
	}
	refusal(t, f.sender.Send(ctx, sc, "0xowner/3/3:4", call), execution.LimitSessionGas, "exceeds the session's gas budget 300000")
	small := call
	small.GasLimit = 100_000
	if err := f.sender.Send(ctx, sc, "0xowner/3/3:5", small); err != nil { // exactly the budget
		t.Fatal(err)
	}
	sc.MaxTotalGas = 250_000 // a permit's budget below the ceiling wins
	refusal(t, f.sender.Send(ctx, sc, "0xowner/3/3:6", small), execution.LimitPermitGas, "SessionPermit's maxTotalGas")
	for _, k := range []string{"0xowner/3/3:1", "0xowner/3/3:2", "0xowner/3/3:4", "0xowner/3/3:6"} {
		none(k, sc)
	}
	refusal(t, f.sender.Send(ctx, sc, "fill:3", call), "key", "the transaction manager's own")
	f.outcome(t, "0xowner/3/3:5")

	// Executions off: no sender.
	if _, err := onchain.New(ctx, onchain.Config{Executions: execution.DefaultConfig(), Redis: f.rdb, Chain: f.anvil.Client, Key: f.anvil.Key(1)}); err == nil || !strings.Contains(err.Error(), "executions are off") {
		t.Errorf("off: %v", err)
	}
}

// Authority is read again before each Send: a runner removed from the rule
// contract's executor list is refused from the next block on, and a rule
// contract without getExecutorList() is owner-only.
func TestSenderAuthorityChanges(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	sc := f.scope(2, 4)
	if err := f.sender.Send(ctx, sc, "0xowner/4/4:1", f.target.settle(t, 1, "a1")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.r137.RemoveExecutor(ctx, testenv.Sender(t, f.anvil, 0), f.anvil.Address(2)); err != nil {
		t.Fatal(err)
	}
	err := f.sender.Send(ctx, sc, "0xowner/4/4:2", f.target.settle(t, 1, "a2"))
	refusal(t, err, execution.LimitAuthority, "not on its executor list")
	// The key sent before stays answered from its record, not refused.
	if err := f.sender.Send(ctx, sc, "0xowner/4/4:1", f.target.settle(t, 1, "a1")); err != nil {
		t.Errorf("a recorded key after the removal: %v", err)
	}
	f.outcome(t, "0xowner/4/4:1")
	if n := f.target.calls(t, f.anvil, "a2"); n != 0 {
		t.Errorf("refused call landed %d times", n)
	}

	legacy := testenv.DeployLegacyRule(t, f.anvil, 0, `{"payload": {}, "rules": []}`)
	sc = f.scope(2, 5)
	sc.Registry, sc.RuleContract = common.Address{}, legacy
	refusal(t, f.sender.Send(ctx, sc, "0xowner/5/5:1", f.target.settle(t, 1, "l1")), execution.LimitAuthority, "owner-only")
	sc.Owner = f.anvil.Address(0)
	if err := f.sender.Send(ctx, sc, "0xowner/5/5:2", f.target.settle(t, 1, "l2")); err != nil {
		t.Errorf("the legacy contract's owner: %v", err)
	}
	if o := f.outcome(t, "0xowner/5/5:2"); o.Status != 1 {
		t.Errorf("owner's call: %+v", o)
	}
}

// A key whose nonce the executor key used elsewhere is signed again under
// a new nonce once that block is final (issue 41): Outcome is the new
// transaction's, successful, and the call lands exactly once.
func TestSenderOutcomeNonceUsedElsewhere(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	if err := f.anvil.Client.Client().CallContext(ctx, nil, "evm_setAutomine", false); err != nil {
		t.Fatal(err)
	}
	call := f.target.settle(t, 1, "taken")
	call.GasLimit = 100_000
	if err := f.sender.Send(ctx, f.scope(2, 6), "0xowner/6/6:1", call); err != nil {
		t.Fatal(err)
	}
	rec, err := f.sender.Manager().Status(ctx, "0xowner/6/6:1")
	if err != nil || !rec.HasNonce {
		t.Fatalf("record %+v %v", rec, err)
	}
	// The executor key replaces it with a transfer of a much higher fee.
	gwei := func(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e9)) }
	self := f.sender.Address()
	tx, err := types.SignNewTx(f.anvil.Key(1), types.LatestSignerForChainID(f.anvil.ChainID()), &types.DynamicFeeTx{
		ChainID: f.anvil.ChainID(), Nonce: rec.Nonce, GasTipCap: gwei(50), GasFeeCap: gwei(500), Gas: 21000, To: &self})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.anvil.Client.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		f.anvil.Mine(t, 1)
		o, ok, err := f.sender.Outcome(ctx, "0xowner/6/6:1")
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			if o.Lost || o.Status != 1 || o.TxHash == rec.TxHash || o.TxHash == tx.Hash() {
				t.Fatalf("want the call signed again and successful: %+v (first attempt %s, foreign %s)", o, rec.TxHash.Hex(), tx.Hash().Hex())
			}
			if n := f.target.calls(t, f.anvil, "taken"); n != 1 {
				t.Errorf("the call landed %d times; want once", n)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("not final after 30s")
}
