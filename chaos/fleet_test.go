//go:build chaos

package chaos

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/testenv"
)

// TestChaosFleet checks the harness's own lifecycle (harness_test.go), the
// race that once kept a CI run of TestChaosExecutions waiting in stop for
// minutes: a replica that exits on its own is being restarted when kill9
// claims and kills the new incarnation. Before each slot had one
// supervisor, both the restart and kill9 started an incarnation of their
// own; the one no longer in the slot was never stopped, and stop waited
// for its exit for ever. Here: such a kill9 leaves exactly one live
// incarnation per slot, and stop, called while a slot is being restarted,
// returns within its bound with every process it started gone.
func TestChaosFleet(t *testing.T) {
	rds := testenv.StartRedis(t, testenv.WithAOF())
	fl := newFleet(t, 2, []string{"--redis", "redis://" + rds.Addr + "/0"}, abs(t, ostcFiles...), abs(t, outcomesFile)[0])

	// kill9 right after a replica exited on its own (an outside SIGKILL):
	// it kills the incarnation the supervisor is starting, then waits for
	// the next one.
	external := 0
	for i := 0; i < 3; i++ {
		r := fl.current(0)
		if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatalf("SIGKILL %s: %v", r.name, err)
		}
		external++
		if err := awaitExit(r, exitAfterKill); err != nil {
			t.Fatal(err)
		}
		victim, _, err := fl.kill9(0)
		if err != nil {
			t.Fatalf("kill9 after %s exited on its own: %v", r.name, err)
		}
		if victim == r.name {
			t.Fatalf("kill9 claimed %s, which had exited already", victim)
		}
	}
	// A second incarnation that something started on the side would be
	// up by now (the old restart loop retried after a second).
	time.Sleep(2 * time.Second)
	checkOneLivePerSlot(t, fl)

	unexpected := fl.unexpectedExits()
	if len(unexpected) != external {
		t.Errorf("%d unexpected exits recorded, want the %d outside kills:\n%s", len(unexpected), external, strings.Join(unexpected, "\n"))
	}

	// stop while slot 1 is being restarted: the supervisor waits a second
	// after an exit of its own, then starts the next incarnation, which
	// takes a while to serve /metrics; stop comes as soon as it exists.
	r := fl.current(1)
	if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("SIGKILL %s: %v", r.name, err)
	}
	if err := awaitExit(r, exitAfterKill); err != nil {
		t.Fatal(err)
	}
	next := r
	for deadline := time.Now().Add(10 * time.Second); next == r; next = fl.current(1) {
		if time.Now().After(deadline) {
			t.Fatalf("slot 1: no incarnation after %s within 10s", r.name)
		}
		time.Sleep(5 * time.Millisecond)
	}
	serving := "starting"
	select {
	case <-next.ready:
		serving = "serving already"
	default:
	}
	const grace = 2 * time.Second
	begin := time.Now()
	fl.stop(grace)
	took := time.Since(begin)
	if bound := grace + exitAfterKill + 5*time.Second; took > bound {
		t.Errorf("stop took %s, its bound is %s", took.Round(time.Millisecond), bound)
	}
	for _, r := range fl.incarnations() {
		select {
		case <-r.done:
		default:
			t.Errorf("%s (pid %d) still runs after stop returned", r.name, r.cmd.Process.Pid)
		}
	}
	if n := len(fl.incarnations()); n < 2+2*3+1 {
		t.Errorf("%d incarnations started, want at least %d (2 first, 2 per kill9 round, 1 restart)", n, 2+2*3+1)
	}
	t.Logf("stop (%s %s) took %s; incarnations: %s", next.name, serving, took.Round(time.Millisecond), names(fl.incarnations()))
}

// checkOneLivePerSlot fails the test unless every slot has exactly one
// live incarnation, the one the slot holds.
func checkOneLivePerSlot(t *testing.T, fl *fleet) {
	t.Helper()
	live := map[int][]string{}
	for _, r := range fl.incarnations() {
		select {
		case <-r.done:
		default:
			live[r.slot] = append(live[r.slot], r.name)
		}
	}
	for slot := range fl.supervised {
		cur := fl.current(slot)
		if got := live[slot]; len(got) != 1 || got[0] != cur.name {
			t.Errorf("slot %d: live incarnations %v, want exactly the slot's current one, %s", slot, got, cur.name)
		}
	}
}

func names(rs []*replica) string {
	var out []string
	for _, r := range rs {
		state := "exited"
		select {
		case <-r.done:
			if r.isDeliberate() {
				state = "killed"
			}
			if r.failpoint != "" {
				state = "failpoint " + r.failpoint
			}
		default:
			state = "live"
		}
		out = append(out, fmt.Sprintf("%s (%s)", r.name, state))
	}
	return strings.Join(out, ", ")
}
