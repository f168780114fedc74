package onchain_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/execution/onchain"
	"github.com/xgr-sidecar/xgr/testenv"
	"github.com/xgr-sidecar/xgr/txmanager"
)

// senderWith is a second sender of the fixture's executor key (key 1) on
// the same chain and Redis, with the executions: section yaml.
func (f *fixture) senderWith(t *testing.T, yaml string) *onchain.Sender {
	t.Helper()
	cfg, _, err := execution.ParseConfig("xgr.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Enabled = true
	s, err := onchain.New(context.Background(), onchain.Config{Executions: cfg, Redis: f.rdb, Chain: f.anvil.Client, Key: f.anvil.Key(1),
		Manager: txmanager.Config{Finality: txmanager.Finality{Mode: "confirmations", Confirmations: 1}, Poll: 20 * time.Millisecond,
			LeaseTTL: 300 * time.Millisecond, ReserveTimeout: -1}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// tokenBalance reads balanceOf(who) of a TestToken.
func tokenBalance(t *testing.T, f *fixture, tk *testenv.TestToken, who common.Address) *big.Int {
	t.Helper()
	data, _ := tk.ABI.Pack("balanceOf", who)
	out, err := f.anvil.Client.CallContract(context.Background(), ethereum.CallMsg{To: &tk.Address, Data: data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return new(big.Int).SetBytes(out)
}

// The three reproductions of issue 37 item 1, each with the config the
// operator had: a refusal naming the limit, before any nonce is reserved
// (the transaction manager holds no record of the key, the executor's
// nonce and balances do not move); an allowed call still lands.
func TestPolicyRefusesOnAnvil(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	a := f.anvil
	executor, attacker := f.sender.Address(), a.Address(4)
	supply := big.NewInt(10_000_000)
	token := testenv.DeployTestToken(t, a, "Executor's", supply)
	token.Transfer(t, 0, executor, big.NewInt(1_000_000))

	balance := func(who common.Address) *big.Int {
		t.Helper()
		b, err := a.Client.BalanceAt(ctx, who, nil)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	nonce := func() uint64 {
		t.Helper()
		n, err := a.Client.PendingNonceAt(ctx, executor)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	ether := func(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }
	execBefore, attackerBefore, nonceBefore := balance(executor), balance(attacker), nonce()

	// The operator's list of the target and the token, as before: bare addresses.
	bare := f.senderWith(t, fmt.Sprintf("executions:\n  targets: [%s, %s]\n", f.target.addr.Hex(), token.Address.Hex()))
	// The same token with the one function the operator meant.
	listed := f.senderWith(t, fmt.Sprintf("executions:\n  targets:\n    - address: %s\n      functions: [\"balanceOf(address)\"]\n", token.Address.Hex()))
	// targets: any, accepted with the setting.
	anyTarget := f.senderWith(t, "executions:\n  targets: any\n  allowAnyTarget: i-understand-the-risk\n  value: {maxPerSession: 1000 ether, maxPerOwnerPerDay: 1000 ether}\n")

	transfer, err := token.ABI.Pack("transfer", attacker, big.NewInt(1_000_000))
	if err != nil {
		t.Fatal(err)
	}
	payable := f.target.settle(t, 1, "five-eth")
	payable.Value = ether(5)
	sc := f.scope(2, 37)
	for _, c := range []struct {
		name   string
		s      *onchain.Sender
		key    string
		call   execution.Call
		limit  string
		reason string
	}{
		{"5 ETH to an allowed payable target", bare, "0xowner/37/1", payable, "executions.targets[0].value", "value 5000000000000000000 wei: the target does not allow value"},
		{"a plain transfer of 100 ETH with targets: any", anyTarget, "0xowner/37/2", execution.Call{To: attacker, Value: ether(100)}, execution.LimitTargets,
			"(a plain transfer): targets: any never allows a plain transfer"},
		{"ERC-20 transfer on a bare token address", bare, "0xowner/37/3", execution.Call{To: token.Address, Function: "transfer(address,uint256)", Data: transfer},
			"executions.targets[1].functions", "moves or approves the caller's tokens"},
		{"ERC-20 transfer on a token allowing balanceOf", listed, "0xowner/37/4", execution.Call{To: token.Address, Function: "transfer(address,uint256)", Data: transfer},
			"executions.targets[0].functions", "is not among the functions the target allows (executions.targets[0].functions: balanceOf(address))"},
		{"ERC-20 transfer with targets: any", anyTarget, "0xowner/37/5", execution.Call{To: token.Address, Data: transfer}, execution.LimitTargets, "targets: any never allows"},
	} {
		refusal(t, c.s.Send(ctx, sc, c.key, c.call), c.limit, c.reason)
		if _, err := f.sender.Manager().Status(ctx, c.key); !errors.Is(err, txmanager.ErrNotFound) {
			t.Errorf("%s: the transaction manager holds the key: %v", c.name, err)
		}
	}
	a.Mine(t, 1)
	if n := nonce(); n != nonceBefore {
		t.Errorf("the executor's nonce moved from %d to %d: something was signed", nonceBefore, n)
	}
	if b := balance(executor); b.Cmp(execBefore) != 0 {
		t.Errorf("executor balance %s, was %s", b, execBefore)
	}
	if b := balance(attacker); b.Cmp(attackerBefore) != 0 {
		t.Errorf("attacker balance %s, was %s", b, attackerBefore)
	}
	if b := tokenBalance(t, f, token, executor); b.Int64() != 1_000_000 {
		t.Errorf("executor's tokens %s, want 1000000", b)
	}
	if n, _ := execution.NewBudget(f.rdb, 0).Reserved(ctx, sc); n != 0 {
		t.Errorf("the refusals reserved %d gas", n)
	}
	if n := f.target.calls(t, a, "five-eth"); n != 0 {
		t.Errorf("the 5 ETH settle landed %d times", n)
	}

	// targets: any without the setting does not start.
	if _, _, err := execution.ParseConfig("xgr.yaml", []byte("executions:\n  targets: any\n")); err == nil {
		t.Error("targets: any accepted without allowAnyTarget")
	}

	// An allowed call still lands.
	if err := bare.Send(ctx, sc, "0xowner/37/6", f.target.settle(t, 3, "allowed")); err != nil {
		t.Fatal(err)
	}
	if o := f.outcome(t, "0xowner/37/6"); o.Status != 1 {
		t.Fatalf("allowed call: %+v", o)
	}
	if n := f.target.calls(t, a, "allowed"); n != 1 {
		t.Errorf("allowed call landed %d times", n)
	}
}

// Item 3: a permit's maxTotalGas above the operator's ceiling is clamped
// to it; the owner's day caps the spend across sessions.
func TestPolicyCeilingsOnAnvil(t *testing.T) {
	f := newFixture(t, func(c *execution.Config) {
		c.Policy.MaxSessionGas = 400_000
		// 500 gwei × 200000 gas = 0.1 ether per execution, worst case.
		c.Policy.MaxSpendPerOwnerPerDay = new(big.Int).Mul(big.NewInt(25), big.NewInt(1e16))
	})
	ctx := context.Background()
	sc := f.scope(2, 1)
	sc.MaxTotalGas = 18_000_000 // the runner's own permit
	for i := 1; i <= 2; i++ {
		if err := f.sender.Send(ctx, sc, fmt.Sprintf("0xowner/1/%d", i), f.target.settle(t, 1, fmt.Sprintf("c%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	refusal(t, f.sender.Send(ctx, sc, "0xowner/1/3", f.target.settle(t, 1, "c3")), execution.LimitSessionGas, "exceeds the session's gas budget 400000")
	if n, _ := execution.NewBudget(f.rdb, 0).Reserved(ctx, sc); n != 400_000 {
		t.Errorf("session reserved %d, want the ceiling 400000", n)
	}
	// A second session of the same owner: its own budget, but the owner's
	// day has 0.2 of 0.25 ether spent.
	sc2 := f.scope(2, 2)
	refusal(t, f.sender.Send(ctx, sc2, "0xowner/2/1", f.target.settle(t, 1, "d1")), execution.LimitOwnerSpend, "exceeds the owner's spend per day 250000000000000000 wei")
	if _, err := f.sender.Manager().Status(ctx, "0xowner/2/1"); !errors.Is(err, txmanager.ErrNotFound) {
		t.Errorf("the refused key is recorded: %v", err)
	}
	if n, _ := execution.NewBudget(f.rdb, 0).Reserved(ctx, sc2); n != 0 {
		t.Errorf("the refused session keeps %d gas", n)
	}
	// A smaller call fits the rest exactly: 100000 gas × 500 gwei = 0.05 ether.
	small := f.target.settle(t, 1, "d2")
	small.GasLimit = 100_000
	if err := f.sender.Send(ctx, sc2, "0xowner/2/2", small); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"0xowner/1/1", "0xowner/1/2", "0xowner/2/2"} {
		if o := f.outcome(t, k); o.Status != 1 {
			t.Errorf("%s: %+v", k, o)
		}
	}
}
