package reactor

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

const (
	waker   = "0x00000000000000000000000000000000000000aa"
	sleeper = "0x00000000000000000000000000000000000000b1"
	ruleOK  = "0x1111111111111111111111111111111111111111"
	ruleBad = "0x2222222222222222222222222222222222222222"
)

// wakeFixture runs a "sleeper" session (W0 arms, W1 waits an hour unless
// woken) and a "waker" session whose C1 asks for wake-ups, on one replica.
type wakeFixture struct {
	t       *testing.T
	store   *joinstore.Store
	src     *StaticSource
	mu      sync.Mutex
	wakeUps []WakeUp
	inputs  map[string]map[string]any // step → the payload it ran with
}

func newWakeFixture(t *testing.T) *wakeFixture {
	t.Helper()
	sleeperO, err := registry.Parse([]byte(`{"id":"sleeper","structure":{
  "W0":{"rule":"x","onValid":{"spawns":["W1"]}},
  "W1":{"rule":"x"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	wakerO, err := registry.Parse([]byte(`{"id":"waker","structure":{"C1":{"rule":"x"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	rdb := testenv.StartRedis(t).Client()
	return &wakeFixture{t: t, store: joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}),
		src: NewStaticSource(sleeperO, wakerO), inputs: map[string]map[string]any{}}
}

func (f *wakeFixture) Execute(_ context.Context, e Execution) (Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inputs[e.Step.ID] = e.Payload
	switch e.Step.ID {
	case "W0":
		return Result{Valid: true, Wait: time.Hour, Output: map[string]any{"armed": true}}, nil
	case "C1":
		return Result{Valid: true, Output: map[string]any{"fromOutput": json.Number("9007199254740993"), "_meta": "dropped"}, WakeUps: f.wakeUps}, nil
	}
	return Result{Valid: true}, nil
}

func (f *wakeFixture) start(owner, ostc, step, payload string) joinstore.Root {
	f.t.Helper()
	res, err := Start(context.Background(), f.store, f.src, StartRequest{Owner: owner, XRC729: "test", OstcID: ostc, Step: step,
		Payload: json.RawMessage(payload)}, time.Now())
	if err != nil {
		f.t.Fatal(err)
	}
	return res.Root
}

func (f *wakeFixture) manager(ctx context.Context) func() {
	m := &Manager{Store: f.store, Source: f.src, Exec: f, Replica: "r1", Poll: 10 * time.Millisecond, Log: discardLog()}
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	return func() { <-done }
}

// until polls cond for up to 10 s.
func (f *wakeFixture) until(what string, cond func() bool) {
	f.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			f.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (f *wakeFixture) status(root joinstore.Root, iter int64) string {
	p, err := f.store.Process(context.Background(), root, iter)
	if err != nil {
		return err.Error()
	}
	return string(p.Status)
}

func (f *wakeFixture) history(root joinstore.Root, event string) []joinstore.HistoryEntry {
	f.t.Helper()
	h, err := f.store.History(context.Background(), root)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []joinstore.HistoryEntry
	for _, e := range h {
		if e.Event == event {
			out = append(out, e)
		}
	}
	return out
}

const bigOverlay = `{"n53": 9007199254740993, "u64": 18446744073709551615, "u256": 123456789012345678901234567890, "_secret": "dropped"}`

func overlay(t *testing.T) map[string]any {
	p, err := UnmarshalPayload([]byte(bigOverlay))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A wake-up from another owner's session, allowed by the target's
// internal allow list bound to the emitting rule, resumes the waiting
// process at once with the §8.5.3 merge, numbers exact, once.
func TestWakeUpBetweenSessions(t *testing.T) {
	f := newWakeFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	wait := f.manager(ctx)
	defer func() { cancel(); wait() }()

	allow := fmt.Sprintf(`{"mine": 1, "__wakeUp": {"steps": {"W1": {"internal": {"allow": [%q], "fromXRC137": [%q]}}}}}`, "0x"+strings.ToUpper(waker[2:]), ruleOK)
	b := f.start(sleeper, "sleeper", "W0", allow)
	f.until("W1 waiting", func() bool { return f.status(b, 2) == "waiting" })

	f.wakeUps = []WakeUp{{Runner: sleeper, Session: b.RootPid, Step: "W1", Payload: overlay(t), Rule: ruleOK}}
	a := f.start(waker, "waker", "C1", `{}`)
	f.until("the sleeper finished", func() bool { return f.status(b, 2) == "done" })

	f.mu.Lock()
	got, _ := json.Marshal(f.inputs["W1"])
	f.mu.Unlock()
	want := `{"__wakeUp":{"steps":{"W1":{"internal":{"allow":["0x00000000000000000000000000000000000000AA"],"fromXRC137":["0x1111111111111111111111111111111111111111"]}}}},` +
		`"armed":true,"fromOutput":9007199254740993,"mine":1,"n53":9007199254740993,"u256":123456789012345678901234567890,"u64":18446744073709551615}`
	if string(got) != want {
		t.Fatalf("W1 ran with\n%s\nwant\n%s", got, want)
	}
	f.until("the waker's outcome recorded", func() bool { return len(f.history(a, "wakeup")) == 1 })
	if out := f.history(a, "wakeup")[0].Outcome; !strings.HasPrefix(out, "woke "+b.Pid(2)) {
		t.Errorf("waker's history: %q", out)
	}
	if woken := f.history(b, "woken"); len(woken) != 1 || woken[0].Pid != b.Pid(2) {
		t.Errorf("sleeper's history: %v", woken)
	}
	if w, _ := f.store.PendingWakes(context.Background(), a); len(w) != 0 {
		t.Errorf("wake-ups left queued: %v", w)
	}
}

// Wake-ups that must not wake are recorded no-ops; the target keeps
// waiting.
func TestWakeUpNoOps(t *testing.T) {
	f := newWakeFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	wait := f.manager(ctx)
	defer func() { cancel(); wait() }()
	bound := fmt.Sprintf(`{"__wakeUp": {"default": {"internal": {"allow": ["*"], "fromXRC137": [%q]}}}}`, ruleOK)
	b := f.start(sleeper, "sleeper", "W0", bound)
	open := f.start(sleeper, "sleeper", "W0", `{}`)
	f.until("W1 waiting", func() bool { return f.status(b, 2) == "waiting" && f.status(open, 2) == "waiting" })

	f.wakeUps = []WakeUp{
		{Runner: sleeper, Session: b.RootPid, Step: "W1", Rule: ruleBad}, // another rule contract
		{Runner: sleeper, Session: b.RootPid, Step: "W1"},                // not from a contract
		{Runner: sleeper, Session: open.RootPid, Step: "W1", Rule: ruleOK},
		{Runner: sleeper, Session: b.RootPid, Step: "W0", Rule: ruleOK},                                      // W0 already ran
		{Runner: sleeper, Session: 999, Step: "W1", Rule: ruleOK},                                            // no such session
		{Runner: "0x00000000000000000000000000000000000000cc", Session: b.RootPid, Step: "W1", Rule: ruleOK}, // wrong runner
		{Runner: sleeper, Session: b.RootPid, Step: "nope", Rule: ruleOK},                                    // no such step
	}
	a := f.start(waker, "waker", "C1", `{}`)
	f.until("every outcome recorded", func() bool { return len(f.history(a, "wakeup")) == len(f.wakeUps) })
	want := []string{
		"denied: __wakeUp.default.internal.fromXRC137 does not list the emitting rule " + ruleBad,
		"denied: __wakeUp.default.internal.fromXRC137 does not list the emitting rule (none: the rule is not a contract)",
		"denied: " + waker + " is not the runner and the process has no __wakeUp allow list",
		"not waiting (done)",
		"no-op: no session " + sleeper + ":999",
		"no-op: no session 0x00000000000000000000000000000000000000cc:",
		`no-op: no process of ` + b.String() + ` waits on step "nope"`,
	}
	for i, h := range f.history(a, "wakeup") {
		if !strings.Contains(h.Outcome, want[i]) {
			t.Errorf("wake-up %d: outcome %q, want it to contain %q", i, h.Outcome, want[i])
		}
	}
	if f.status(b, 2) != "waiting" || f.status(open, 2) != "waiting" {
		t.Errorf("a denied wake-up woke a process: %s %s", f.status(b, 2), f.status(open, 2))
	}
	if p, _ := f.store.Process(context.Background(), b, 2); p.NextWakeAt.Equal(p.UpdatedAt) && len(f.history(b, "woken")) > 0 {
		t.Errorf("sleeper was woken: %+v", p)
	}
}

// A crash between a step's commit and its wake-ups: the replica that takes
// the session over performs them, once; a second attempt with the same id
// changes nothing.
func TestWakeUpAfterCrashOnce(t *testing.T) {
	f := newWakeFixture(t)
	ctx := context.Background()
	b := f.start(sleeper, "sleeper", "W0", `{}`) // same owner: no allow list needed
	r := &Runner{Store: f.store, Orch: mustOrch(t, f.src, "sleeper"), Exec: f, Worker: "w", Now: time.Now,
		Advance: func(time.Time) {}, MaxSteps: 1}
	if err := r.Run(ctx, b); err == nil {
		t.Fatal("the runner should stop at its step limit with W1 waiting")
	}
	// The waker's step commits its wake-up, and the replica dies before
	// performing it.
	a := f.start(sleeper, "waker", "C1", `{}`)
	claims, err := f.store.Claim(ctx, a, time.Now(), time.Minute, "dead", Table(mustOrch(t, f.src, "waker")), []int64{1})
	if err != nil || len(claims) != 1 {
		t.Fatalf("claim: %v %v", claims, err)
	}
	valid := true
	wake := WakeUp{Runner: "0x" + strings.ToUpper(sleeper[2:]), Session: b.RootPid, Step: "W1", Payload: overlay(t)}
	cr, err := f.store.Commit(ctx, claims[0], time.Now(), joinstore.Commit{Status: "done", Valid: &valid, Payload: json.RawMessage(`{}`),
		WakeUps: wakeEntries(claims[0], Result{Valid: true, WakeUps: []WakeUp{wake}})})
	if err != nil || len(cr.Wakes) != 1 || cr.Live != 0 {
		t.Fatalf("commit: %+v %v", cr, err)
	}
	if meta, _ := f.store.SessionMeta(ctx, a); meta.Status != joinstore.SessionFinished {
		t.Fatalf("waker: %v", meta)
	}
	// A replica adopts the finished session for its queued wake-up.
	cctx, cancel := context.WithCancel(ctx)
	wait := f.manager(cctx)
	f.until("the sleeper woken and finished", func() bool { return f.status(b, 2) == "done" })
	f.until("the wake-up recorded", func() bool { return len(f.history(a, "wakeup")) == 1 })
	cancel()
	wait()
	if n := len(f.history(b, "woken")); n != 1 {
		t.Fatalf("woken %d times", n)
	}
	// The same wake-up again (a replica that died after waking but before
	// recording it) is a duplicate and changes nothing.
	req, target, err := wakeEntry{Runner: sleeper, Session: b.RootPid, Step: "W1", Base: json.RawMessage(`{}`)}.request()
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := Wake(ctx, f.store, target, cr.Wakes[0].ID, nil, req, "again", time.Now())
	if err != nil || !res.Duplicate {
		t.Fatalf("second delivery: %+v %v", res, err)
	}
	if w, _ := f.store.PendingWakes(ctx, a); len(w) != 0 {
		t.Errorf("left queued: %v", w)
	}
	// A replayed commit of the same step is refused; nothing is queued twice.
	if _, err := f.store.Commit(ctx, claims[0], time.Now(), joinstore.Commit{Status: "done", Valid: &valid, WakeUps: wakeEntries(claims[0], Result{WakeUps: []WakeUp{wake}})}); err == nil {
		t.Fatal("a second commit of the same claim was accepted")
	}
	if w, _ := f.store.PendingWakes(ctx, a); len(w) != 0 {
		t.Errorf("a refused commit queued a wake-up: %v", w)
	}
}

// A killed step queues no wake-up.
func TestKilledStepWakesNothing(t *testing.T) {
	f := newWakeFixture(t)
	ctx := context.Background()
	a := f.start(waker, "waker", "C1", `{}`)
	claims, err := f.store.Claim(ctx, a, time.Now(), time.Minute, "w", Table(mustOrch(t, f.src, "waker")), []int64{1})
	if err != nil || len(claims) != 1 {
		t.Fatalf("claim: %v %v", claims, err)
	}
	if _, err := f.store.Kill(ctx, a, time.Now()); err != nil {
		t.Fatal(err)
	}
	valid := true
	cr, err := f.store.Commit(ctx, claims[0], time.Now(), joinstore.Commit{Status: "done", Valid: &valid,
		WakeUps: wakeEntries(claims[0], Result{WakeUps: []WakeUp{{Runner: sleeper, Session: 1, Step: "W1"}}})})
	if err != nil || !cr.Killed || len(cr.Wakes) != 0 {
		t.Fatalf("commit after kill: %+v %v", cr, err)
	}
	if w, _ := f.store.PendingWakes(ctx, a); len(w) != 0 {
		t.Errorf("queued: %v", w)
	}
	p, _ := f.store.Process(ctx, a, 1)
	if p.AbortReason != "killed" {
		t.Errorf("abortReason %q", p.AbortReason)
	}
}

func mustOrch(t *testing.T, src Source, id string) *registry.Orchestration {
	t.Helper()
	o, err := src.Orchestration(context.Background(), "test", id, [32]byte{})
	if err != nil {
		t.Fatal(err)
	}
	return o
}
