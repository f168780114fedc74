package authority_test

import (
	"context"
	"errors"
	"math/big"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// world is a chain with the contracts of the authority tests: key 0 owns
// a registry (key 1 its executor), an XRC-137 rule (key 1 its executor)
// and a legacy rule without executor list; a token has no owner().
type world struct {
	a      *testenv.Anvil
	reg    *chain.Registry
	rule   *chain.Rule
	legacy common.Address
	token  common.Address
}

func newWorld(t *testing.T) *world {
	t.Helper()
	a := testenv.StartAnvil(t)
	w := &world{a: a}
	w.reg, _ = testenv.DeployXRC729(t, a, chain.RegistryInit{Executors: []common.Address{a.Address(1)}})
	w.rule, _ = testenv.DeployXRC137(t, a, `{"payload": {}}`)
	w.addExecutor(t, w.rule, 1)
	w.legacy = testenv.DeployLegacyRule(t, a, 0, `{"payload": {}}`)
	w.token = testenv.DeployTestToken(t, a, "T", big.NewInt(1)).Address
	return w
}

func (w *world) addExecutor(t *testing.T, r *chain.Rule, key int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := r.AddExecutor(ctx, testenv.Sender(t, w.a, 0), w.a.Address(key)); err != nil {
		t.Fatal(err)
	}
}

func (w *world) removeExecutor(t *testing.T, r *chain.Rule, key int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := r.RemoveExecutor(ctx, testenv.Sender(t, w.a, 0), w.a.Address(key)); err != nil {
		t.Fatal(err)
	}
}

// flow is an orchestration whose steps use the given rule contracts.
func flow(t *testing.T, id string, rules ...common.Address) *registry.Orchestration {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"id": "` + id + `", "structure": {`)
	for i, r := range rules {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"S` + string(rune('1'+i)) + `": {"rule": "` + r.Hex() + `"`)
		if i+1 < len(rules) {
			b.WriteString(`, "onValid": {"spawns": ["S` + string(rune('2'+i)) + `"]}`)
		}
		b.WriteString("}")
	}
	b.WriteString("}}")
	o, err := registry.Parse([]byte(b.String()))
	if err != nil {
		t.Fatalf("%s: %v", b.String(), err)
	}
	return o
}

// counting counts a backend's header reads and eth_calls.
type counting struct {
	authority.Backend
	headers, calls atomic.Int32
}

func (c *counting) HeaderByNumber(ctx context.Context, n *big.Int) (*types.Header, error) {
	c.headers.Add(1)
	return c.Backend.HeaderByNumber(ctx, n)
}

func (c *counting) CallContract(ctx context.Context, m ethereum.CallMsg, n *big.Int) ([]byte, error) {
	c.calls.Add(1)
	return c.Backend.CallContract(ctx, m, n)
}

// ChainReader reads owner() and getExecutorList() of each kind of contract
// on anvil: a registry and a rule with lists, a legacy rule without one
// (owner-only), a token and an account without code (no owner).
func TestChainReaderFacts(t *testing.T) {
	w := newWorld(t)
	a := w.a
	r := authority.NewChainReader(a.Backend())
	eoa := a.Address(5)
	fs, err := r.Facts(context.Background(), []common.Address{w.reg.Address, w.rule.Address, w.legacy, w.token, eoa})
	if err != nil {
		t.Fatal(err)
	}
	head, _ := a.Client.BlockNumber(context.Background())
	want := []authority.Facts{
		{Contract: w.reg.Address, Owner: a.Address(0), ExecutorList: true, Executors: []common.Address{a.Address(1)}, Block: head},
		{Contract: w.rule.Address, Owner: a.Address(0), ExecutorList: true, Executors: []common.Address{a.Address(1)}, Block: head},
		{Contract: w.legacy, Owner: a.Address(0), Block: head},
		{Contract: w.token, Block: head},
		{Contract: eoa, Block: head},
	}
	if !reflect.DeepEqual(fs, want) {
		t.Fatalf("facts\n%+v\nwant\n%+v", fs, want)
	}
}

// Facts are read once per block: checks within a block cost one header
// read each, and a changed executor list is seen from the block that
// changed it, without any wait.
func TestExecutorListChangeObserved(t *testing.T) {
	w := newWorld(t)
	a := w.a
	b := &counting{Backend: a.Backend()}
	c := authority.NewChecker(authority.NewChainReader(b))
	ctx := context.Background()
	o := flow(t, "f", w.rule.Address)
	runner := a.Address(2)

	var ae *authority.Error
	if err := c.Authorize(ctx, runner, &w.reg.Address, o); !errors.As(err, &ae) || ae.Refused.Contract != w.reg.Address {
		t.Fatalf("key 2 before any change: %v", err)
	}
	calls := b.calls.Load()
	if calls != 4 {
		t.Fatalf("first check: %d eth_calls, want 4 (owner and list of two contracts)", calls)
	}
	for range 3 {
		_ = c.Authorize(ctx, runner, &w.reg.Address, o)
	}
	if b.calls.Load() != calls || b.headers.Load() != 4 {
		t.Fatalf("checks in one block: %d eth_calls (want %d), %d header reads (want 4)", b.calls.Load(), calls, b.headers.Load())
	}

	ctx30, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := w.reg.AddExecutor(ctx30, testenv.Sender(t, a, 0), runner); err != nil {
		t.Fatal(err)
	}
	if err := c.Authorize(ctx, runner, &w.reg.Address, o); !errors.As(err, &ae) || ae.Refused.Contract != w.rule.Address {
		t.Fatalf("key 2 on the registry's list, not on the rule's: %v", err)
	}
	w.addExecutor(t, w.rule, 2)
	if err := c.Authorize(ctx, runner, &w.reg.Address, o); err != nil {
		t.Fatalf("key 2 on both lists: %v", err)
	}
	w.removeExecutor(t, w.rule, 2)
	if err := c.Authorize(ctx, runner, &w.reg.Address, o); !errors.As(err, &ae) || ae.Refused.Contract != w.rule.Address {
		t.Fatalf("key 2 removed from the rule's list: %v", err)
	}
}

// A node that does not answer is an error, not a refusal: nothing is
// decided.
func TestChainReaderNodeDown(t *testing.T) {
	w := newWorld(t)
	c := authority.NewChecker(authority.NewChainReader(down{w.a.Backend()}))
	err := c.Authorize(context.Background(), w.a.Address(0), &w.reg.Address, nil)
	var ae *authority.Error
	if err == nil || errors.As(err, &ae) || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("node down: %v", err)
	}
}

type down struct{ authority.Backend }

func (down) CallContract(context.Context, ethereum.CallMsg, *big.Int) ([]byte, error) {
	return nil, errors.New("dial tcp 127.0.0.1:1: connection refused")
}
