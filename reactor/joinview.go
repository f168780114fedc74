package reactor

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
)

// JoinStateOf reads the join fields of a target's proc_rt record.
func JoinStateOf(fields map[string]string) (JoinState, error) {
	var s JoinState
	var expect []string
	var when map[string]string
	if err := json.Unmarshal([]byte(fields["expect"]), &expect); err != nil {
		return s, fmt.Errorf("target %s: expect: %w", fields["pid"], err)
	}
	if err := json.Unmarshal([]byte(fields["requireWhen"]), &when); err != nil {
		return s, fmt.Errorf("target %s: requireWhen: %w", fields["pid"], err)
	}
	for _, node := range expect {
		f := registry.From{Node: node}
		switch when[node] {
		case "valid":
			f.When = registry.WhenValid
		case "invalid":
			f.When = registry.WhenInvalid
		}
		s.From = append(s.From, f)
	}
	k, err := strconv.Atoi(fields["k"])
	if err != nil {
		return s, fmt.Errorf("target %s: k %q", fields["pid"], fields["k"])
	}
	s.K = k
	if fields["policy"] == "kill" {
		s.Policy = registry.PolicyKill
	}
	if err := unmarshalExact([]byte(orObject(fields["inbox"])), &s.Inbox); err != nil {
		return s, fmt.Errorf("target %s: inbox: %w", fields["pid"], err)
	}
	if err := json.Unmarshal([]byte(orObject(fields["fail"])), &s.Fail); err != nil {
		return s, fmt.Errorf("target %s: fail: %w", fields["pid"], err)
	}
	s.Closed = fields["closed"] == "1"
	return s, nil
}

func orObject(s string) string {
	if s == "" {
		return "{}"
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
	s, err := JoinStateOf(v.Fields)
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
	if s.Closed && v.Fields["closed"] != "1" {
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
	a := joinstore.JoinApply{Consumed: len(v.Pending), Verdict: joinstore.VerdictKill,
		Inbox: json.RawMessage(orObject(v.Fields["inbox"])), Fail: json.RawMessage(orObject(v.Fields["fail"]))}
	if v.Fields["policy"] == "kill" {
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
