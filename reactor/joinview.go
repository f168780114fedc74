package reactor

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
)

// JoinStateOf reads the join state of a join target's record.
func JoinStateOf(p joinstore.Process) (JoinState, error) {
	var s JoinState
	j := p.Join
	if j == nil {
		return s, fmt.Errorf("process %s is no join target", p.Pid)
	}
	s.From = append(s.From, j.From...)
	s.K, s.Policy, s.Closed = j.K, j.Policy, j.Closed
	if err := unmarshalExact(orObject(j.Inbox), &s.Inbox); err != nil {
		return s, fmt.Errorf("target %s: inbox: %w", p.Pid, err)
	}
	if err := json.Unmarshal(orObject(j.Fail), &s.Fail); err != nil {
		return s, fmt.Errorf("target %s: fail: %w", p.Pid, err)
	}
	return s, nil
}

func orObject(s json.RawMessage) json.RawMessage {
	if len(s) == 0 {
		return json.RawMessage("{}")
	}
	return s
}

// membersOf lists a view's live members in iter order. Whether each is
// running is not part of the view: every member is a kill candidate and the
// store aborts only those still waiting.
func membersOf(v joinstore.JoinView) []Member {
	iters := make([]int64, 0, len(v.Members))
	for it := range v.Members {
		iters = append(iters, it)
	}
	sort.Slice(iters, func(i, j int) bool { return iters[i] < iters[j] })
	out := make([]Member, len(iters))
	for i, it := range iters {
		out[i] = Member{Pid: v.Root.Pid(it), Step: v.Members[it]}
	}
	return out
}

// JoinOutcome is what one join step did, delivery by delivery, for the timeline.
type JoinOutcome struct {
	Deliveries []Applied
	Decision   Decision
}

// Applied is one pending delivery and what it did.
type Applied struct {
	Pid, From string
	Result    DeliveryResult
}

// DecideJoin is the pure join step over a fresh view: apply the pending
// deliveries in order, deciding after each, until the join closes (later
// deliveries are then ignored). With no pending delivery it decides once
// (a freshly created target).
func DecideJoin(v joinstore.JoinView, reach Reach) (joinstore.JoinApply, JoinOutcome, error) {
	var out JoinOutcome
	s, err := JoinStateOf(v.Proc)
	if err != nil {
		return joinstore.JoinApply{}, out, err
	}
	live := membersOf(v)
	real := make(map[string]bool, len(live))
	for _, m := range live {
		real[m.Pid] = true
	}
	// decide after the first `applied` pending deliveries: the producers of
	// the later ones have finished but not yet been applied, so they count
	// as members about to run their step (never an early abort); the final
	// decision of a batch sees exactly the live members.
	decide := func(applied int) {
		members := live
		for _, d := range v.Pending[applied:] {
			members = append(members[:len(members):len(members)], Member{Pid: d.Pid, Step: d.From, Running: true})
		}
		out.Decision = Decide(s, members, reach)
		if out.Decision.Verdict != Open {
			s.Closed = true
			kill := out.Decision.Kill[:0:0]
			for _, pid := range out.Decision.Kill {
				if real[pid] {
					kill = append(kill, pid)
				}
			}
			out.Decision.Kill = kill
		}
	}
	if len(v.Pending) == 0 {
		decide(0)
	}
	for i, d := range v.Pending {
		f := Finished{Pid: d.Pid, FromStep: d.From, Aborted: d.Aborted, Valid: d.Valid != nil && *d.Valid}
		if !d.Aborted && len(d.Payload) > 0 {
			if f.Payload, err = UnmarshalPayload(d.Payload); err != nil {
				return joinstore.JoinApply{}, out, fmt.Errorf("delivery from %s: payload: %w", d.Pid, err)
			}
		}
		closed := s.Closed
		var r DeliveryResult
		s, r = Deliver(s, f)
		out.Deliveries = append(out.Deliveries, Applied{Pid: d.Pid, From: d.From, Result: r})
		if !closed {
			decide(i + 1)
		}
	}
	a := joinstore.JoinApply{Consumed: len(v.Pending), Verdict: joinstore.VerdictOpen}
	a.Inbox, _ = json.Marshal(nonNil(s.Inbox))
	a.Fail, _ = json.Marshal(nonNilFail(s.Fail))
	if s.Closed && !v.Proc.Join.Closed {
		switch out.Decision.Verdict {
		case Satisfied:
			a.Verdict = joinstore.VerdictSatisfied
			a.Merged = MarshalPayload(out.Decision.Merged)
		case Unfulfillable:
			a.Verdict = joinstore.VerdictUnfulfillable
		}
		for _, pid := range out.Decision.Kill {
			_, it, _ := joinstore.ParsePid(pid)
			a.Kill = append(a.Kill, it)
		}
	}
	return a, out, nil
}

// KillGroup is the decision for a kill-policy target that a cascading kill
// aborted: its group's waiting members are aborted too.
func KillGroup(v joinstore.JoinView) (joinstore.JoinApply, error) {
	j := v.Proc.Join
	if j == nil {
		j = &joinstore.JoinTarget{} // not a target: nothing to kill
	}
	a := joinstore.JoinApply{Consumed: len(v.Pending), Verdict: joinstore.VerdictKill, Inbox: orObject(j.Inbox), Fail: orObject(j.Fail)}
	if j.Policy == registry.PolicyKill {
		for _, m := range membersOf(v) {
			_, it, _ := joinstore.ParsePid(m.Pid)
			a.Kill = append(a.Kill, it)
		}
	}
	return a, nil
}

func nonNil(m map[string]Piece) map[string]Piece {
	if m == nil {
		return map[string]Piece{}
	}
	return m
}

func nonNilFail(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
