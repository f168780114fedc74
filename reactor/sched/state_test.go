package sched

import (
	"fmt"
	"strings"
	"testing"
)

var allStatuses = []Status{StatusRunning, StatusBlocked, StatusIdle, StatusComplete}

func allStates() []procState {
	var out []procState
	for p := phaseReady; p <= phaseComplete; p++ {
		out = append(out, stateOf(p), stateOf(p)|wakeup)
	}
	return out
}

func TestNotifyTable(t *testing.T) {
	for _, s := range allStates() {
		next, act := notify(s)
		var want procState
		var wantAct action
		switch s.phase() {
		case phaseRunning:
			want, wantAct = s|wakeup, actNone
		case phaseBlocked, phaseIdle:
			want, wantAct = stateOf(phaseReady), actEnqueue
		default:
			want, wantAct = s, actNone
		}
		if next != want || act != wantAct {
			t.Errorf("notify(%v) = %v, %v; want %v, %v", s, next, act, want, wantAct)
		}
	}
}

func TestClaimAndParkTable(t *testing.T) {
	for _, s := range allStates() {
		next, ok := claim(s)
		if ok != (s == stateOf(phaseReady)) || (ok && next != stateOf(phaseRunning)) || (!ok && next != s) {
			t.Errorf("claim(%v) = %v, %v", s, next, ok)
		}
		for _, st := range allStatuses {
			next, act, ok := park(s, st)
			if s.phase() != phaseRunning {
				if ok || next != s || act != actNone {
					t.Errorf("park(%v, %v) = %v, %v, %v; want a refusal", s, st, next, act, ok)
				}
				continue
			}
			want, wantAct := stateOf(phaseReady), actEnqueue
			switch {
			case st == StatusComplete:
				want, wantAct = stateOf(phaseComplete), actFinish
			case st == StatusBlocked && !s.woken():
				want, wantAct = stateOf(phaseBlocked), actNone
			case st == StatusIdle && !s.woken():
				want, wantAct = stateOf(phaseIdle), actNone
			}
			if !ok || next != want || act != wantAct {
				t.Errorf("park(%v, %v) = %v, %v, %v; want %v, %v", s, st, next, act, ok, want, wantAct)
			}
		}
		next, ok = abandon(s)
		switch s.phase() {
		case phaseReady, phaseBlocked, phaseIdle:
			if !ok || next != stateOf(phaseComplete) {
				t.Errorf("abandon(%v) = %v, %v", s, next, ok)
			}
		default:
			if ok || next != s {
				t.Errorf("abandon(%v) = %v, %v; want a refusal", s, next, ok)
			}
		}
	}
}

// world is one state of the model: a process, its event queue, its run
// queue entries, one worker and some notifiers (CompleteYield, Send,
// Cancel), each a sequence of atomic steps as the real code performs them.
type world struct {
	st   procState
	q    int // events pushed and not yet drained
	runq int // run queue entries of the process
	// worker: 0 waits for a run queue entry, 1 owns the process and will
	// drain its events, 2 has stepped and will park it with status.
	wpc    int
	status Status
	more   bool // the drain left events behind (its cap was reached)
	// notifier i: 0 will push its event, 1 will notify, 2 is done.
	npc [3]int
}

// next lists every state one atomic step away, or an error for a broken
// invariant on the way.
func (w world) next(park parkFunc) ([]world, error) {
	var out []world
	switch w.wpc {
	case 0:
		if w.runq > 0 { // pop the entry and claim, as the worker does
			n := w
			n.runq--
			st, ok := claim(w.st)
			if !ok {
				return nil, fmt.Errorf("claim of a queued process in state %v", w.st)
			}
			n.st, n.wpc = st, 1
			out = append(out, n)
		}
	case 1:
		// Drain everything, or (when events are queued) stop at the cap
		// with some left; then step with any status.
		drains := []world{w}
		drains[0].q, drains[0].more = 0, false
		if w.q > 0 {
			capped := w
			capped.q, capped.more = 1, true
			drains = append(drains, capped)
		}
		for _, d := range drains {
			for _, st := range allStatuses {
				n := d
				n.wpc, n.status = 2, st
				out = append(out, n)
			}
		}
	case 2:
		n := w
		s := w.st
		if w.more {
			s, _ = notify(s) // the worker notifies itself for what it left behind
		}
		st, act, ok := park(s, w.status)
		if !ok {
			return nil, fmt.Errorf("park of a process in state %v", s)
		}
		n.st, n.wpc, n.more = st, 0, false
		if act == actEnqueue {
			n.runq++
		}
		out = append(out, n)
	}
	for i, pc := range w.npc {
		switch pc {
		case 0:
			n := w
			n.q++
			n.npc[i] = 1
			out = append(out, n)
		case 1:
			n := w
			st, act := notify(w.st)
			n.st = st
			if act == actEnqueue {
				n.runq++
			}
			n.npc[i] = 2
			out = append(out, n)
		}
	}
	for _, n := range out {
		if n.runq > 1 {
			return nil, fmt.Errorf("process enqueued twice: %+v", n)
		}
		if (n.st.phase() == phaseReady) != (n.runq == 1) {
			return nil, fmt.Errorf("ready without exactly one queue entry: %+v", n)
		}
	}
	return out, nil
}

// parkFunc is the park transition the model runs.
type parkFunc func(procState, Status) (procState, action, bool)

// final checks a state where no step is possible.
func (w world) final() error {
	switch w.st.phase() {
	case phaseBlocked, phaseIdle:
		if w.q != 0 {
			return fmt.Errorf("lost wakeup: parked %v with %d events queued", w.st, w.q)
		}
	case phaseComplete:
	default:
		return fmt.Errorf("stuck in %v", w.st)
	}
	return nil
}

// explore visits every state reachable with the given number of notifiers
// and returns the first broken invariant.
func explore(notifiers int, park parkFunc) (states, finals int, err error) {
	start := world{st: stateOf(phaseReady), runq: 1}
	for i := notifiers; i < len(start.npc); i++ {
		start.npc[i] = 2
	}
	seen := map[world]bool{start: true}
	stack := []world{start}
	for len(stack) > 0 {
		w := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		next, err := w.next(park)
		if err != nil {
			return len(seen), finals, err
		}
		if len(next) == 0 {
			finals++
			if err := w.final(); err != nil {
				return len(seen), finals, fmt.Errorf("%v in %+v", err, w)
			}
		}
		for _, n := range next {
			if !seen[n] {
				seen[n] = true
				stack = append(stack, n)
			}
		}
	}
	return len(seen), finals, nil
}

// TestStateEveryInterleaving explores every interleaving of one worker
// (claim, drain, step with any status, park) with up to three notifiers
// (push, notify): a process is never enqueued twice, a queued process can
// always be claimed, and no event is ever left queued behind a parked
// process.
func TestStateEveryInterleaving(t *testing.T) {
	for notifiers := 0; notifiers <= 3; notifiers++ {
		states, finals, err := explore(notifiers, park)
		if err != nil {
			t.Fatalf("%d notifiers: %v", notifiers, err)
		}
		t.Logf("%d notifiers: %d states, %d final", notifiers, states, finals)
	}
}

// TestStateModelFindsLostWakeup shows the model is sharp: a park that
// ignores the wakeup flag loses a wakeup with a single notifier.
func TestStateModelFindsLostWakeup(t *testing.T) {
	ignoreFlag := func(s procState, st Status) (procState, action, bool) {
		return park(s&^wakeup, st)
	}
	_, _, err := explore(1, ignoreFlag)
	if err == nil || !strings.Contains(err.Error(), "lost wakeup") {
		t.Fatalf("explore without the wakeup flag: %v, want a lost wakeup", err)
	}
	t.Log(err)
}
