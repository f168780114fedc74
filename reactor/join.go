package reactor

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/xgr-sidecar/xgr/registry"
)

// Piece is a producer's delivered payload with the meta keys _from and _when.
type Piece map[string]any

// JoinState is the join-side state of a join target (DESIGN.md "Processes").
type JoinState struct {
	// From is the join's expected producers in `from` order (node and when).
	From   []registry.From
	K      int
	Policy registry.Policy
	// Inbox maps a from step to its first accepted piece.
	Inbox map[string]Piece
	// Fail maps a from step to why it failed ("aborted").
	Fail map[string]string
	// Closed is true once the join was decided (satisfied or aborted).
	Closed bool
}

// Finished is a process of the target's join group reaching a final state:
// the delivery candidate.
type Finished struct {
	Pid string
	// FromStep is the step the process evaluated or, if it never ran
	// (killed, gated, an aborted join target), the step it was waiting to run.
	FromStep string
	// Aborted is true for a hard error, a kill or an aborted join target.
	Aborted bool
	// Valid is the rule's verdict for a done process.
	Valid bool
	// Payload is the process's next payload (input overlaid by output).
	Payload map[string]any
}

// DeliveryResult says what a delivery did to the join.
type DeliveryResult uint8

// Delivery results.
const (
	// Delivered: the piece went into the inbox.
	Delivered DeliveryResult = iota
	// Failed: an expected producer aborted; fail[fromStep] was recorded.
	Failed
	// IgnoredClosed: the join was already decided.
	IgnoredClosed
	// IgnoredNotExpected: fromStep is not a `from` node of the join.
	IgnoredNotExpected
	// IgnoredWhen: the outcome does not match the node's `when`.
	IgnoredWhen
	// IgnoredDuplicate: the node already delivered (first delivery wins).
	IgnoredDuplicate
)

var deliveryNames = [...]string{"delivered", "failed", "ignored_closed", "ignored_not_expected", "ignored_when", "ignored_duplicate"}

func (d DeliveryResult) String() string { return deliveryNames[d] }

func (s *JoinState) expected(step string) (registry.From, bool) {
	for _, f := range s.From {
		if f.Node == step {
			return f, true
		}
	}
	return registry.From{}, false
}

// Deliver applies one finished producer to the join (the delivery guard of
// DESIGN.md "Delivery"). It returns the new state; the input is not modified.
// A failure is recorded unless the node already delivered; a later success of
// the same node (a backloop) replaces a recorded failure.
func Deliver(s JoinState, f Finished) (JoinState, DeliveryResult) {
	if s.Closed {
		return s, IgnoredClosed
	}
	want, ok := s.expected(f.FromStep)
	if !ok {
		return s, IgnoredNotExpected
	}
	if _, have := s.Inbox[f.FromStep]; have {
		return s, IgnoredDuplicate
	}
	if f.Aborted {
		s.Fail = cloneFail(s.Fail)
		s.Fail[f.FromStep] = "aborted"
		return s, Failed
	}
	if !want.When.Accepts(f.Valid) {
		return s, IgnoredWhen
	}
	piece := make(Piece, len(f.Payload)+2)
	for k, v := range f.Payload {
		piece[k] = v
	}
	when := "invalid"
	if f.Valid {
		when = "valid"
	}
	piece["_from"], piece["_when"] = f.FromStep, when
	inbox := make(map[string]Piece, len(s.Inbox)+1)
	for k, v := range s.Inbox {
		inbox[k] = v
	}
	inbox[f.FromStep] = piece
	s.Inbox = inbox
	if _, failed := s.Fail[f.FromStep]; failed {
		s.Fail = cloneFail(s.Fail)
		delete(s.Fail, f.FromStep)
	}
	return s, Delivered
}

func cloneFail(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Member is a live (waiting or running) process of a join group.
type Member struct {
	Pid string
	// Step is the step the process runs or is about to run (resumeStep).
	Step    string
	Running bool
}

// Reach answers whether a process about to run step from can lead to a
// process running step to within its join group (registry.Orchestration.CanReach).
type Reach func(from, to string) bool

// Verdict is the outcome of a join decision.
type Verdict uint8

// Join verdicts.
const (
	// Open: not enough deliveries yet, but still satisfiable.
	Open Verdict = iota
	// Satisfied: k deliveries arrived; the target is promoted.
	Satisfied
	// Unfulfillable: got + potential < k; the target aborts.
	Unfulfillable
)

func (v Verdict) String() string {
	return [...]string{"open", "satisfied", "unfulfillable"}[v]
}

// Decision is what the join does now.
type Decision struct {
	Verdict Verdict
	// Got lists the delivered from steps in from order.
	Got []string
	// Potential lists the missing from steps some live member can still produce.
	Potential []string
	// Merged is the target's payload on Satisfied: the pieces in from order,
	// later overwriting earlier, meta keys dropped.
	Merged map[string]any
	// Kill lists the waiting members to abort now: on any close of a join
	// with policy kill, every waiting member of the group (ASAP); running
	// members may finish, their spawns are gated and deliveries ignored.
	Kill []string
}

// Decide is the join decision of seed 001 §4.5 over a fresh view of the
// target and its group's live members. A closed join decides nothing.
func Decide(s JoinState, live []Member, reach Reach) Decision {
	var d Decision
	if s.Closed {
		return d
	}
	d.Got = make([]string, 0, len(s.From))
	d.Potential = make([]string, 0, len(s.From))
	for _, f := range s.From {
		if _, ok := s.Inbox[f.Node]; ok {
			d.Got = append(d.Got, f.Node)
			continue
		}
		for _, m := range live {
			if m.Step == f.Node || reach(m.Step, f.Node) {
				d.Potential = append(d.Potential, f.Node)
				break
			}
		}
	}
	switch {
	case len(d.Got) >= s.K:
		d.Verdict = Satisfied
		d.Merged = Merge(s)
	case len(d.Got)+len(d.Potential) < s.K:
		d.Verdict = Unfulfillable
	default:
		return d
	}
	if s.Policy == registry.PolicyKill {
		for _, m := range live {
			if !m.Running {
				d.Kill = append(d.Kill, m.Pid)
			}
		}
	}
	return d
}

// Merge builds the target's payload from the inbox: pieces in `from` order,
// later keys overwriting earlier ones, meta keys (_from, _when) dropped.
func Merge(s JoinState) map[string]any {
	out := map[string]any{}
	for _, f := range s.From {
		for k, v := range s.Inbox[f.Node] {
			if k == "_from" || k == "_when" {
				continue
			}
			out[k] = v
		}
	}
	return out
}

// NextPayload is the payload flow of one step: the input overlaid by the
// step's output; output keys starting with "_" are engine-reserved and
// dropped.
func NextPayload(input, output map[string]any) map[string]any {
	out := make(map[string]any, len(input)+len(output))
	for k, v := range input {
		out[k] = v
	}
	for k, v := range output {
		if strings.HasPrefix(k, "_") {
			continue
		}
		out[k] = v
	}
	return out
}

// UnmarshalPayload decodes a stored payload object. Numbers keep their
// text (json.Number), so integers beyond 2^53 and the exact digits of
// decimals reach the executor unchanged.
func UnmarshalPayload(raw []byte) (map[string]any, error) {
	var p map[string]any
	if err := unmarshalExact(raw, &p); err != nil {
		return nil, err
	}
	return p, nil
}

// unmarshalExact decodes one JSON value into v with numbers kept as
// json.Number (never float64) and rejects trailing data.
func unmarshalExact(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// MarshalPayload encodes a payload as a JSON object ("{}" for nil).
func MarshalPayload(p map[string]any) json.RawMessage {
	if p == nil {
		return json.RawMessage("{}")
	}
	b, err := json.Marshal(p)
	if err != nil {
		// Payloads come from JSON and hold only JSON values.
		panic("reactor: payload is not JSON: " + err.Error())
	}
	return b
}
