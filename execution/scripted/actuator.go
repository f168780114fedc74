// Package scripted holds a scripted execution.Actuator: every outcome is
// decided by a pure function of the execution's key and call, so that two
// runs of a session (xgr simulate and replicas, a crash and its take-over)
// see the same outcomes. It records every Send, so that tests can check
// that a key was never sent with a different call.
package scripted

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/execution"
)

// Plan is what becomes of one execution.
type Plan struct {
	// Refuse, when set, refuses the call at every Send.
	Refuse *execution.Refusal
	// SendFailures is how many Sends of the key fail transiently before
	// one records it; PollFailures how many Outcome polls fail
	// transiently; Pending how many polls after those answer "not final".
	SendFailures, PollFailures, Pending int
	// Revert makes the outcome a revert (status 0) with RevertReason.
	Revert       bool
	RevertReason string
}

// Actuator is the scripted actuator. Decide is called once per key, at its
// first Send (nil: every call succeeds at once). Safe for concurrent use.
type Actuator struct {
	Decide func(s execution.Scope, key string, c execution.Call) Plan
	// TxHash names a key's transaction (nil: the key's keccak256); a
	// function of the call alone gives two sessions of one run the same
	// outcomes.
	TxHash func(key string, c execution.Call) common.Hash
	// Hold, while set, answers every poll "not final" (a transaction that
	// is not mined yet), without counting it against Pending.
	Hold atomic.Bool

	mu   sync.Mutex
	keys map[string]*entry
}

type entry struct {
	plan      Plan
	scope     execution.Scope
	call      execution.Call
	sends     int // Send calls
	recorded  bool
	conflicts []string
	polls     int
}

// ErrTransient is what a scripted transient failure wraps.
var ErrTransient = errors.New("scripted transient failure")

func (a *Actuator) entry(s execution.Scope, key string, c execution.Call) *entry {
	if a.keys == nil {
		a.keys = map[string]*entry{}
	}
	e := a.keys[key]
	if e == nil {
		e = &entry{scope: s, call: c}
		if a.Decide != nil {
			e.plan = a.Decide(s, key, c)
		}
		a.keys[key] = e
		return e
	}
	if !reflect.DeepEqual(e.call, c) {
		e.conflicts = append(e.conflicts, fmt.Sprintf("call %+v, first %+v", c, e.call))
	}
	if e.scope != s {
		e.conflicts = append(e.conflicts, fmt.Sprintf("scope %+v, first %+v", s, e.scope))
	}
	return e
}

// Send implements execution.Actuator.
func (a *Actuator) Send(_ context.Context, s execution.Scope, key string, c execution.Call) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	e := a.entry(s, key, c)
	e.sends++
	if e.plan.Refuse != nil {
		return e.plan.Refuse
	}
	if !e.recorded && e.sends <= e.plan.SendFailures {
		return fmt.Errorf("send %s: %w", key, ErrTransient)
	}
	e.recorded = true
	return nil
}

// Outcome implements execution.Actuator.
func (a *Actuator) Outcome(_ context.Context, key string) (execution.Outcome, bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e := a.keys[key]
	if e == nil || !e.recorded {
		return execution.Outcome{}, false, fmt.Errorf("outcome of %s: no such execution", key)
	}
	if a.Hold.Load() {
		return execution.Outcome{}, false, nil
	}
	e.polls++
	switch {
	case e.polls <= e.plan.PollFailures:
		return execution.Outcome{}, false, fmt.Errorf("outcome of %s: %w", key, ErrTransient)
	case e.polls <= e.plan.PollFailures+e.plan.Pending:
		return execution.Outcome{}, false, nil
	}
	o := Outcome(key, e.call, e.plan)
	if a.TxHash != nil {
		o.TxHash = a.TxHash(key, e.call)
	}
	return o, true, nil
}

// ByCallData is a Decide that reads the plan from the calldata (the words
// of reactor's scripted outcomes): "revert" and "revert-flip" revert,
// "refuse" is refused ("scripted.refuse"), "transient" fails one send and
// one poll first; anything else succeeds. Every outcome is pending for one
// poll first.
func ByCallData(_ execution.Scope, _ string, c execution.Call) Plan {
	p := Plan{Pending: 1}
	switch string(c.Data) {
	case "revert", "revert-flip":
		p.Revert, p.RevertReason = true, "scripted revert"
	case "refuse":
		p.Refuse = &execution.Refusal{Limit: "scripted.refuse", Reason: "the script refuses this call"}
	case "transient":
		p.SendFailures, p.PollFailures = 1, 1
	}
	return p
}

// CallHash is a TxHash of the call alone: keccak256 of its target and
// calldata.
func CallHash(_ string, c execution.Call) common.Hash {
	return crypto.Keccak256Hash(c.To.Bytes(), c.Data)
}

// Outcome is the final outcome a plan gives a key: its transaction hash is
// the key's keccak256; its block and gas follow from the call.
func Outcome(key string, c execution.Call, p Plan) execution.Outcome {
	o := execution.Outcome{TxHash: crypto.Keccak256Hash([]byte(key)), Block: 100 + uint64(len(c.Data)), GasUsed: 21000 + 16*uint64(len(c.Data)), Status: 1}
	if p.Revert {
		o.Status, o.RevertReason = 0, p.RevertReason
	}
	return o
}

// Sent reports the first call sent under key and how many Sends it got.
func (a *Actuator) Sent(key string) (execution.Call, int, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e := a.keys[key]
	if e == nil {
		return execution.Call{}, 0, false
	}
	return e.call, e.sends, true
}

// Keys are the keys sent, sorted.
func (a *Actuator) Keys() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]string, 0, len(a.keys))
	for k := range a.keys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Conflicts lists every Send of a key with another call or scope than its
// first: an actuator must never see one.
func (a *Actuator) Conflicts() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for k, e := range a.keys {
		for _, c := range e.conflicts {
			out = append(out, k+": "+c)
		}
	}
	sort.Strings(out)
	return out
}
