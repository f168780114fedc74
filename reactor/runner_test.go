package reactor

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

const owner = "0x00000000000000000000000000000000000000bb"

// sim runs one session of an orchestration with scripted outcomes on a real
// redis-server and a virtual clock, and returns the final processes.
type sim struct {
	t      *testing.T
	store  *joinstore.Store
	orch   *registry.Orchestration
	clock  time.Time
	events []Event
	root   joinstore.Root
}

func newSim(t *testing.T, ostc string, outcomes string) *sim {
	t.Helper()
	raw := []byte(ostc)
	if strings.HasSuffix(ostc, ".json") {
		var err error
		if raw, err = os.ReadFile("../examples/ostc/" + ostc); err != nil {
			t.Fatal(err)
		}
	}
	o, err := registry.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	rdb := testenv.StartRedis(t).Client()
	return &sim{t: t, store: joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), orch: o, clock: time.UnixMilli(1_800_000_000_000)}
}

func (s *sim) run(start, outcomes string) map[string]joinstore.Process {
	s.t.Helper()
	ctx := context.Background()
	exec, err := ParseOutcomes([]byte(outcomes))
	if err != nil {
		s.t.Fatal(err)
	}
	res, err := s.store.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: start, Now: s.clock, OstcHash: s.orch.Hash.Hex()})
	if err != nil {
		s.t.Fatal(err)
	}
	s.root = res.Root
	r := &Runner{Store: s.store, Orch: s.orch, Exec: exec, Worker: "test",
		Now: func() time.Time { return s.clock }, Advance: func(t time.Time) { s.clock = t },
		OnEvent: func(e Event) { s.events = append(s.events, e) }}
	if err := r.Run(ctx, s.root); err != nil {
		s.t.Fatalf("run: %v\n%s", err, s.timeline())
	}
	procs, err := s.store.Processes(ctx, s.root)
	if err != nil {
		s.t.Fatal(err)
	}
	out := map[string]joinstore.Process{}
	for _, p := range procs {
		out[p.Pid] = p
	}
	return out
}

func (s *sim) timeline() string {
	var b strings.Builder
	for _, e := range s.events {
		fmt.Fprintf(&b, "  %s %s %s %s\n", e.Type, e.Pid, e.Step, e.Detail)
	}
	return b.String()
}

// summary renders "step=status" per process in pid order, e.g. "A1=done J1=aborted".
func summary(procs map[string]joinstore.Process) string {
	var pids []string
	for pid := range procs {
		pids = append(pids, pid)
	}
	sort.Slice(pids, func(i, j int) bool {
		_, a, _ := joinstore.ParsePid(pids[i])
		_, b, _ := joinstore.ParsePid(pids[j])
		return a < b
	})
	var parts []string
	for _, pid := range pids {
		parts = append(parts, procs[pid].ResumeStep+"="+string(procs[pid].Status))
	}
	return strings.Join(parts, " ")
}

// target is the join target of step (a zero one with empty join fields
// when there is none).
func target(procs map[string]joinstore.Process, step string) joinstore.Process {
	for _, p := range procs {
		if p.ResumeStep == step && p.Join != nil {
			return p
		}
	}
	return joinstore.Process{Join: &joinstore.JoinTarget{}}
}

func TestSeedExamples(t *testing.T) {
	cases := []struct {
		name, ostc, outcomes, want string
		check                      func(t *testing.T, procs map[string]joinstore.Process)
	}{
		// 001 §6.1: D1 delivers invalid where valid is expected and nothing can
		// reach D1 again: the numbered algorithm aborts J1 at once.
		{"6.1 any drain, wrong when", "order_flow_any_drain.json",
			`{"A1":{"result":"valid"},"D1":{"result":"invalid"}}`, "A1=done J1=aborted D1=done", nil},
		// 001 §6.2: E1 hard-fails; all of {B1, E1} can no longer arrive.
		{"6.2 all kill, one fails", "parallel_enrichment_all_kill.json",
			`{"A1":{"result":"valid"},"B1":{"result":"valid"},"E1":{"result":"error"}}`, "A1=done J1=aborted B1=done E1=aborted",
			func(t *testing.T, procs map[string]joinstore.Process) {
				if f := string(target(procs, "J1").Join.Fail); f != `{"E1":"aborted"}` {
					t.Errorf("J1 fail = %s", f)
				}
			}},
		// 001 §6.3: B1 then C1 deliver; k=2 closes J1; C1's respawn of B1 is killed.
		{"6.3 k-of-n backloop kill", "kofn_backloop_kill.json",
			`{"A1":{"result":"valid"},"B1":{"result":"valid","payload":{"b":1}},"C1":{"result":"valid","payload":{"c":2}},"J1":{"result":"valid"}}`,
			"A1=done J1=done B1=done C1=done B1=aborted",
			func(t *testing.T, procs map[string]joinstore.Process) {
				j := target(procs, "J1")
				if string(j.ResumePlain) != `{"b":1,"c":2}` || !j.Join.Closed {
					t.Errorf("J1 merged payload %s closed %v", j.ResumePlain, j.Join.Closed)
				}
			}},
		// 001 §6.4 scenario 1: B1 valid satisfies J1 (any); drain lets C1 finish.
		{"6.4 when filter, B1 valid", "when_filter.json",
			`{"A1":{"result":"valid"},"B1":{"result":"valid"},"C1":{"result":"valid"},"J1":{"result":"valid"}}`,
			"A1=done J1=done B1=done C1=done",
			func(t *testing.T, procs map[string]joinstore.Process) {
				if in := string(target(procs, "J1").Join.Inbox); !strings.Contains(in, `"B1"`) || strings.Contains(in, `"C1"`) {
					t.Errorf("inbox %s", in)
				}
			}},
		// 001 §6.4 scenario 2: B1 invalid is discarded, C1 invalid satisfies.
		{"6.4 when filter, both invalid", "when_filter.json",
			`{"A1":{"result":"valid"},"B1":{"result":"invalid"},"C1":{"result":"invalid","payload":{"c":true}},"J1":{"result":"valid"}}`,
			"A1=done J1=done B1=done C1=done",
			func(t *testing.T, procs map[string]joinstore.Process) {
				if in := string(target(procs, "J1").Join.Inbox); strings.Contains(in, `"B1"`) || !strings.Contains(in, `"_when":"invalid"`) {
					t.Errorf("inbox %s", in)
				}
			}},
		// 002 §7.4: nested joins in series; J1 (any, kill) kills H1 once G1 delivers.
		{"7.4 nested joins", "nested_join.json",
			`{"default":{"result":"valid"}}`,
			"A1=done J1=done G1=done H1=aborted J2=done P1=done Q1=done Z1=done", nil},
		// 002 §13: the minimal join.
		{"13 minimal join", "minimal_join.json",
			`{"default":{"result":"valid"}}`,
			"A1=done J1=done G1=done H1=aborted Z1=done", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSim(t, c.ostc, c.outcomes)
			procs := s.run("A1", c.outcomes)
			if got := summary(procs); got != c.want {
				t.Fatalf("got  %s\nwant %s\ntimeline:\n%s", got, c.want, s.timeline())
			}
			if c.check != nil {
				c.check(t, procs)
			}
			meta, _ := s.store.SessionMeta(context.Background(), s.root)
			if meta.Status != joinstore.SessionFinished || meta.Live != 0 {
				t.Errorf("session not finished: %v", meta)
			}
		})
	}
}

// 001 §6.1 with a backloop: D1's invalid branch spawns D1 again, so the join
// stays open after the first invalid delivery and closes on the valid one.
func TestSeed61WithBackloop(t *testing.T) {
	ostc := `{"id":"OrderFlow_backloop","structure":{
  "A1":{"rule":"${addr:A}","onValid":{"spawns":["D1"],"join":{"joinid":"J1","mode":"any","waitonjoin":"drain","from":[{"node":"D1","when":"valid"}]}}},
  "D1":{"rule":"${addr:D}","onInvalid":{"spawns":["D1"]}},
  "J1":{"rule":"${addr:J}"}}}`
	s := newSim(t, ostc, "")
	procs := s.run("A1", `{"A1":{"result":"valid"},"D1":[{"result":"invalid"},{"result":"valid","payload":{"ok":1}}],"J1":{"result":"valid"}}`)
	if got := summary(procs); got != "A1=done J1=done D1=done D1=done" {
		t.Fatalf("got %s\n%s", got, s.timeline())
	}
	if p := string(target(procs, "J1").ResumePlain); p != `{"ok":1}` {
		t.Errorf("J1 payload %s", p)
	}
}

// An unfulfillable inner join aborts its target, which fails the outer join
// that expected it: the failure cascades upward.
func TestCascadeAbortThroughNestedJoins(t *testing.T) {
	ostc := `{"id":"cascade","structure":{
  "A1":{"rule":"x","onValid":{"spawns":["B1"],"join":{"joinid":"OUT","mode":"all","from":[{"node":"IN"}]}}},
  "B1":{"rule":"x","onValid":{"spawns":["C1"],"join":{"joinid":"IN","mode":"all","from":[{"node":"C1","when":"valid"}]}}},
  "C1":{"rule":"x"},"IN":{"rule":"x"},"OUT":{"rule":"x"}}}`
	s := newSim(t, ostc, "")
	procs := s.run("A1", `{"default":{"result":"valid"},"C1":{"result":"error"}}`)
	if got := summary(procs); got != "A1=done OUT=aborted B1=done IN=aborted C1=aborted" {
		t.Fatalf("got %s\n%s", got, s.timeline())
	}
	if f := string(target(procs, "OUT").Join.Fail); f != `{"IN":"aborted"}` {
		t.Errorf("OUT fail %s", f)
	}
}

// A kill-policy join stops a producer loop that would run forever: once W1
// satisfies the join, the looping L1 is killed or its respawn gated.
func TestKillStopsEndlessBackloop(t *testing.T) {
	ostc := `{"id":"race","structure":{
  "A1":{"rule":"x","onValid":{"spawns":["L1","W1"],"join":{"joinid":"J1","mode":"any","waitonjoin":"kill","from":[{"node":"W1","when":"valid"}]}}},
  "L1":{"rule":"x","onValid":{"spawns":["L1"]}},
  "W1":{"rule":"x"},"J1":{"rule":"x"}}}`
	s := newSim(t, ostc, "")
	procs := s.run("A1", `{"default":{"result":"valid"},"W1":{"result":"valid","waitSec":5}}`)
	// W1 takes 5 s of virtual time to be ... it is spawned like L1; L1 loops
	// meanwhile. After W1 delivers, the waiting L1 is aborted.
	if !strings.HasSuffix(summary(procs), "L1=aborted") || target(procs, "J1").Status != joinstore.StatusDone {
		t.Fatalf("got %s\n%s", summary(procs), s.timeline())
	}
	meta, _ := s.store.SessionMeta(context.Background(), s.root)
	if meta.Status != joinstore.SessionFinished {
		t.Fatalf("session still live: %v", meta)
	}
}

// With drain, producers finish after the join closed and their late
// deliveries are ignored.
func TestDrainIgnoresLateDeliveries(t *testing.T) {
	s := newSim(t, "when_filter.json", "")
	procs := s.run("A1", `{"default":{"result":"valid"},"C1":{"result":"invalid","waitSec":0}}`)
	if got := summary(procs); got != "A1=done J1=done B1=done C1=done" {
		t.Fatalf("got %s", got)
	}
	ignored := 0
	for _, e := range s.events {
		if e.Type == "ignored" {
			ignored++
		}
	}
	if ignored != 1 {
		t.Errorf("%d ignored deliveries, want 1 (C1 after the close)\n%s", ignored, s.timeline())
	}
}

// waitSec delays the spawned children on the (virtual) clock.
func TestWaitSecDelaysChildren(t *testing.T) {
	ostc := `{"id":"loop","structure":{"S":{"rule":"x","onValid":{"spawns":["T"]}},"T":{"rule":"x"}}}`
	s := newSim(t, ostc, "")
	start := s.clock
	procs := s.run("S", `{"S":{"result":"valid","waitSec":3600},"T":{"result":"invalid"}}`)
	if got := summary(procs); got != "S=done T=done" {
		t.Fatalf("got %s", got)
	}
	var tp joinstore.Process
	for _, p := range procs {
		if p.ResumeStep == "T" {
			tp = p
		}
	}
	if !tp.NextWakeAt.Equal(start.Add(time.Hour)) || !s.clock.Equal(start.Add(time.Hour)) {
		t.Errorf("T wakes at %v, clock %v", tp.NextWakeAt, s.clock.Sub(start))
	}
}

func TestParseOutcomesRejectsBadResult(t *testing.T) {
	if _, err := ParseOutcomes([]byte(`{"A1":{"result":"maybe"}}`)); err == nil || !strings.Contains(err.Error(), "outcomes.A1[0].result") {
		t.Fatalf("err = %v", err)
	}
	if _, err := ParseOutcomes([]byte(`{"A1":[]}`)); err == nil {
		t.Fatal("empty list accepted")
	}
}

// A step that cancels its session delivers its failure to its group's
// open join target, and the decision that delivery causes is made, before
// the kill reaps the waiting processes, under the Runner as under the
// replicas (which apply a commit's deliveries, then reap in their next
// claim round): the target ends unfulfillable, not killed. Found by the
// differential test of the drivers (reactor/difftest).
func TestCancelDecidesItsOwnDeliveryBeforeTheReap(t *testing.T) {
	ostc := `{"id":"cancel_join","structure":{
  "A1":{"rule":"x","onValid":{"spawns":["B1"],"join":{"joinid":"J1","mode":"any","from":[{"node":"B1"}]}}},
  "B1":{"rule":"x"},"J1":{"rule":"x"}}}`
	s := newSim(t, ostc, "")
	procs := s.run("A1", `{"default":{"result":"valid"},"B1":{"result":"cancel"}}`)
	j := target(procs, "J1")
	if j.Status != joinstore.StatusAborted || j.AbortReason != "unfulfillable" {
		t.Fatalf("J1 is %s (%s), want aborted (unfulfillable)\n%s", j.Status, j.AbortReason, s.timeline())
	}
}
