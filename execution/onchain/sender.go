// Package onchain holds the Actuator that performs executions on chain:
// Sender checks the operator's policy, the session's gas budget and the
// runner's authority, then hands the call to the transaction manager
// (package txmanager), which sends it at most once per idempotency key.
// Preview runs a call with eth_call instead, for `xgr simulate` without an
// executor key. (It is a package of its own because it reads the chain
// through chain, which imports rule, which imports execution.)
package onchain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"
	"unicode"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/txmanager"
)

// Chain is what Sender needs from a node: the transaction manager's reads
// and sends, and eth_call (authority reads, revert reasons). An
// *ethclient.Client has it.
type Chain interface {
	txmanager.Chain
	ethereum.ContractCaller
}

// Config sets up a Sender.
type Config struct {
	// Executions is the operator's executions: section (policy, fee cap,
	// in-flight and bump settings). It must be enabled.
	Executions execution.Config
	// Redis holds the transaction manager's state and the session gas
	// budgets.
	Redis redis.UniversalClient
	// Chain is the node.
	Chain Chain
	// Key is the executor key: it signs and pays, msg.sender of every
	// execution.
	Key *ecdsa.PrivateKey
	// Authority reads owner() and getExecutorList() of the registry and
	// rule contracts; nil reads them from Chain at its head.
	Authority authority.Reader
	// Manager holds the transaction manager's other settings (Finality,
	// Poll, LeaseTTL, Rebroadcast, RecordTTL, Metrics, Log, ...). New sets
	// its Redis, Chain and Key, and MaxInFlight, MaxFeePerGas,
	// BumpPercent, BumpAfterBlocks and MaxGasLimit from Executions.
	Manager txmanager.Config
	// BudgetTTL is how long a session's gas budget is kept after its last
	// reservation; 0 means 30 days (the manager's default record TTL).
	BudgetTTL time.Duration
	// Now is the clock that picks the UTC day an execution counts in
	// against its owner's daily limits; nil is time.Now.
	Now func() time.Time
}

// Sender is the Actuator over the transaction manager. Safe for
// concurrent use; every replica runs one per executor key, with Run.
type Sender struct {
	policy    execution.Policy
	chain     Chain
	manager   *txmanager.Manager
	budget    *execution.Budget
	authority *authority.Checker
	from      common.Address
	pre       *preflight
	maxFee    *big.Int
	now       func() time.Time
}

var _ execution.Actuator = (*Sender)(nil)

// New checks cfg and builds the transaction manager (it reads the chain
// id when cfg.Manager.ChainID is nil).
func New(ctx context.Context, cfg Config) (*Sender, error) {
	x := cfg.Executions
	switch {
	case !x.Enabled:
		return nil, errors.New("executions are off: enable them (--executions, XGR_EXECUTIONS or executions: {enabled: true} in the config) before building a sender")
	case cfg.Redis == nil || cfg.Chain == nil || cfg.Key == nil:
		return nil, errors.New("onchain: Config needs Redis, Chain and Key")
	}
	if err := x.Check(); err != nil {
		return nil, err
	}
	if x.Policy.MaxGasLimit == 0 || x.Policy.MaxGasLimit > execution.MaxGas {
		return nil, fmt.Errorf("executions.maxGasLimit %d: want 21000 .. %d", x.Policy.MaxGasLimit, uint64(execution.MaxGas))
	}
	mc := cfg.Manager
	mc.Redis, mc.Chain, mc.Key = cfg.Redis, cfg.Chain, cfg.Key
	mc.MaxInFlight, mc.MaxFeePerGas, mc.BumpPercent, mc.BumpAfterBlocks = x.InFlight, x.MaxFeePerGas, x.BumpPercent, x.BumpAfterBlocks
	mc.MaxGasLimit = x.Policy.MaxGasLimit
	m, err := txmanager.New(ctx, mc)
	if err != nil {
		return nil, err
	}
	pre, err := newPreflight(cfg.Chain, m, x)
	if err != nil {
		return nil, err
	}
	reader := cfg.Authority
	if reader == nil {
		reader = authority.NewChainReader(cfg.Chain)
	}
	ttl := cfg.BudgetTTL
	if ttl <= 0 {
		ttl = 30 * 24 * time.Hour
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &Sender{policy: x.Policy, chain: cfg.Chain, manager: m, budget: execution.NewBudget(cfg.Redis, ttl),
		authority: authority.NewChecker(reader), from: m.Sender(), pre: pre, maxFee: x.MaxFeePerGas, now: now}, nil
}

// Run is the transaction manager's upkeep (see txmanager.Manager.Run):
// every replica runs it until ctx ends.
func (s *Sender) Run(ctx context.Context) error { return s.manager.Run(ctx) }

// Address is the executor key's address: msg.sender of every execution.
func (s *Sender) Address() common.Address { return s.from }

// Policy is the operator's policy the sender enforces.
func (s *Sender) Policy() execution.Policy { return s.policy }

// Manager is the transaction manager (inspection: Status, Wait).
func (s *Sender) Manager() *txmanager.Manager { return s.manager }

// Send implements execution.Actuator. A key the manager holds already
// returns nil at once (nothing checked or signed again). Otherwise, in
// order: the key's form, the policy (target, function, plain transfer,
// value, gas cap: Policy.Check), the runner's authority on the session's
// registry and the step's rule contract (read on chain now: a runner
// removed from an executor list mid-session is refused), the preflight
// (preflight.go: intrinsic gas, transaction size, the executor's balance,
// optionally eth_estimateGas), then the reservations in Redis, once per
// key: the call's gas limit and value against the session's budget and
// value cap, then its gas, value and worst-case cost (gas limit ×
// maxFeePerGas + value) against the owner's limits of the UTC day
// (execution.Budget.ReserveExecution). Only then txmanager.Submit, which
// reserves a nonce and stores the call before
// anything is broadcast. Refusals are *execution.Refusal and leave no
// record and no nonce (a reservation made before an interrupted Submit
// stays, and the retry uses it).
//
// A Scope with neither Registry nor RuleContract (a session of a local
// file whose rules are not read from chain) has no contract to check
// authority on; its executions pass on the operator's policy alone.
func (s *Sender) Send(ctx context.Context, sc execution.Scope, key string, c execution.Call) error {
	if _, err := s.manager.Status(ctx, key); err == nil {
		return nil
	} else if !errors.Is(err, txmanager.ErrNotFound) {
		return err
	}
	if err := checkKey(key); err != nil {
		return err
	}
	if err := s.policy.Check(sc, c, 0); err != nil {
		return err
	}
	if err := s.authorize(ctx, sc); err != nil {
		return err
	}
	gas := s.policy.GasLimit(c)
	if err := s.pre.check(ctx, key, c, gas); err != nil {
		return err // preflight.go: what the node would refuse for good, refused before a nonce is reserved
	}
	res, err := s.budget.ReserveExecution(ctx, sc, key, s.now(), execution.Charge{Gas: gas, Value: c.Value, MaxFeePerGas: s.maxFee},
		s.policy.CeilingsOf(sc))
	if err != nil {
		return err
	}
	if res.Refusal != nil {
		return res.Refusal
	}
	if res.Existed && res.Value.Cmp(valueOf(c)) != 0 {
		return &execution.Refusal{Limit: "key", Reason: fmt.Sprintf("execution %q: reserved before with value %s wei, asked now with %s wei; a key is one call", key, res.Value, valueOf(c))}
	}
	// A retry sends the gas limit reserved first.
	_, err = s.manager.Submit(ctx, txmanager.Request{Key: key, To: c.To, Data: c.Data, Value: c.Value, GasLimit: res.Gas})
	return err
}

func valueOf(c execution.Call) *big.Int {
	if c.Value == nil {
		return new(big.Int)
	}
	return c.Value
}

// authorize re-reads the runner's standing on the scope's contracts.
func (s *Sender) authorize(ctx context.Context, sc execution.Scope) error {
	var p authority.Plan
	if sc.Registry != (common.Address{}) {
		reg := sc.Registry
		p.Registry = &reg
	}
	if sc.RuleContract != (common.Address{}) {
		p.Rules = []authority.Ref{{Contract: sc.RuleContract}}
	}
	if p.Registry == nil && len(p.Rules) == 0 {
		return nil
	}
	cov, err := s.authority.Check(ctx, sc.Owner, p)
	if err != nil {
		return err
	}
	if err := cov.Err(); err != nil {
		return &execution.Refusal{Limit: execution.LimitAuthority, Reason: "execution refused: " + err.Error()}
	}
	return nil
}

// checkKey refuses keys the manager would refuse, before anything is
// reserved.
func checkKey(key string) error {
	bad := func(why string) error {
		return &execution.Refusal{Limit: "key", Reason: fmt.Sprintf("execution key %.40q: %s", key, why)}
	}
	switch {
	case key == "":
		return bad("empty; want the process's idempotency key <owner>/<session>/<pid>")
	case len(key) > txmanager.MaxKeyLen:
		return bad(fmt.Sprintf("%d bytes; at most %d are allowed", len(key), txmanager.MaxKeyLen))
	case strings.HasPrefix(key, "fill:"):
		return bad("keys starting with fill: are the transaction manager's own")
	case strings.IndexFunc(key, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0:
		return bad("a space or control character; use printable characters only")
	}
	return nil
}

// Outcome implements execution.Actuator: ok once the key's transaction is
// final. A reverted receipt's reason is read by replaying the call with
// eth_call from the executor on the state before its block (one call; the
// reason is left empty when the replay does not revert or the node gives
// none; a call that used its whole gas limit says "out of gas"). A key
// the node refused for good (txmanager.Failed; txmanager.Lost, which the
// manager now gives gap fillers only, is read the same way) is final with
// Lost set and the reason in Error: the step fails with it. A key whose
// nonce another transaction used is signed again under a new nonce by the
// manager and is not final meanwhile. A key the manager does not hold is an
// error wrapping txmanager.ErrNotFound. While the sender's lease holder is
// silent (a replica died holding it), the key's receipt is read from the
// chain (txmanager.Manager.Observe), so this replica's executions do not
// wait for the dead one's lease to end.
func (s *Sender) Outcome(ctx context.Context, key string) (execution.Outcome, bool, error) {
	rec, err := s.manager.Observe(ctx, key)
	if err != nil || !rec.Done() {
		return execution.Outcome{}, false, err
	}
	o := execution.Outcome{TxHash: rec.TxHash, Block: rec.Block, GasUsed: rec.GasUsed, Status: rec.ReceiptStatus, FinalAt: rec.FinalAt}
	if rec.Value != nil {
		o.ValueWei = rec.Value.String()
	}
	if rec.EffectiveGasPrice != nil {
		o.FeeWei = new(big.Int).Mul(rec.EffectiveGasPrice, new(big.Int).SetUint64(rec.GasUsed)).String()
	}
	switch rec.Outcome {
	case txmanager.Lost, txmanager.Failed:
		return execution.Outcome{TxHash: rec.TxHash, Lost: true, Error: rec.Error}, true, nil
	case txmanager.Reverted:
		o.Status = 0
		o.RevertReason = s.revertReason(ctx, rec)
	}
	return o, true, nil
}

func (s *Sender) revertReason(ctx context.Context, rec txmanager.Record) string {
	if rec.GasLimit > 0 && rec.GasUsed >= rec.GasLimit {
		return fmt.Sprintf("out of gas (used the whole gas limit %d)", rec.GasLimit)
	}
	var at *big.Int
	if rec.Block > 0 {
		at = new(big.Int).SetUint64(rec.Block - 1)
	}
	to := rec.To
	_, err := s.chain.CallContract(ctx, ethereum.CallMsg{From: s.from, To: &to, Gas: rec.GasLimit, Value: rec.Value, Data: rec.Data}, at)
	return chain.ReasonOf(err)
}

// Simulation is what Preview saw.
type Simulation struct {
	// Reverted tells whether the call reverted; Reason is its decoded
	// reason ("" when the contract gave none).
	Reverted bool   `json:"reverted"`
	Reason   string `json:"revertReason,omitempty"`
	// Return is the call's return data when it did not revert.
	Return []byte `json:"return,omitempty"`
}

// Preview runs c with eth_call from the would-be sender at the latest
// block and reports whether it would revert and why. Nothing is signed. An
// error is a failure of the node, not a revert.
func Preview(ctx context.Context, node ethereum.ContractCaller, from common.Address, c execution.Call) (Simulation, error) {
	to := c.To
	out, err := node.CallContract(ctx, ethereum.CallMsg{From: from, To: &to, Gas: c.GasLimit, Value: c.Value, Data: c.Data}, nil)
	if err == nil {
		return Simulation{Return: out}, nil
	}
	if re, ok := chain.AsRevert("execution to "+to.Hex(), err); ok {
		return Simulation{Reverted: true, Reason: re.Reason}, nil
	}
	return Simulation{}, fmt.Errorf("preview the execution to %s: %w", to.Hex(), err)
}
