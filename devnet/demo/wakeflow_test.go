package demo

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

const (
	waiterOwner = "0x00000000000000000000000000000000000000a1"
	wakerOwner  = "0x00000000000000000000000000000000000000b2"
	wakerRule   = "0x00000000000000000000000000000000000000c3"
)

// wakeStore is a joinstore on a Redis of the test's own, and the source of
// the wake-up flow's two orchestrations (examples/ostc/wake_*.json).
func wakeStore(t *testing.T) (*joinstore.Store, reactor.Source) {
	t.Helper()
	rdb := testenv.StartRedis(t).Client()
	t.Cleanup(func() { rdb.Close() })
	var orchs []*registry.Orchestration
	for _, f := range []string{"../../examples/ostc/wake_kyc_review.json", "../../examples/ostc/wake_shop_checkout.json"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		o, err := registry.Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		orchs = append(orchs, o)
	}
	return joinstore.New(rdb, joinstore.Config{}), reactor.NewStaticSource(orchs...)
}

// A flow whose waiting session waits at WaitingStep at once (it starts
// there; no replica runs): Start starts the waking session, of the other
// owner, with a payload that targets the waiting session, which allows
// exactly the waker and its rule.
func TestWakeFlowStartsTheWakerOnceTheWaiterWaits(t *testing.T) {
	store, src := wakeStore(t)
	ctx := context.Background()
	f := &WakeFlow{Store: store, Source: src, Registry: "file", Waiter: waiterOwner, Waker: wakerOwner, WakerRule: wakerRule,
		WaitStart: WaitingStep, WakeStart: "checkout", Timeout: 5 * time.Second}
	waiting, waking, err := f.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if waiting.Owner != waiterOwner || waking.Owner != wakerOwner {
		t.Fatalf("roots %s and %s: want owners %s and %s", waiting, waking, waiterOwner, wakerOwner)
	}
	for _, c := range []struct {
		root joinstore.Root
		flow string
		want []string
	}{
		{waiting, WaitingFlow, []string{`"allow":["` + wakerOwner + `"]`, `"fromXRC137":["` + wakerRule + `"]`, `"` + WaitingStep + `"`}},
		{waking, WakingFlow, []string{`"` + waiterOwner + `"`, `"order-kyc-1"`}},
	} {
		meta, err := store.SessionMeta(ctx, c.root)
		if err != nil {
			t.Fatal(err)
		}
		if meta.OstcID != c.flow {
			t.Errorf("session %s runs %q, want %s", c.root, meta.OstcID, c.flow)
		}
		procs, err := store.Processes(ctx, c.root)
		if err != nil || len(procs) != 1 {
			t.Fatalf("processes of %s: %d, %v", c.root, len(procs), err)
		}
		plain := string(procs[0].ResumePlain)
		for _, w := range c.want {
			if !strings.Contains(plain, w) {
				t.Errorf("session %s: start payload %s lacks %s", c.root, plain, w)
			}
		}
	}
	// The waking payload names the waiting session by its root id.
	procs, _ := store.Processes(ctx, waking)
	var p map[string]any
	if err := json.Unmarshal(procs[0].ResumePlain, &p); err != nil {
		t.Fatal(err)
	}
	want, err := WakingPayload("order-kyc-1", waiterOwner, waiting.RootPid)
	if err != nil {
		t.Fatal(err)
	}
	var w map[string]any
	json.Unmarshal(want, &w)
	if got, exp := jsonText(t, p), jsonText(t, w); got != exp {
		t.Errorf("waking payload %s, want %s", got, exp)
	}
}

// A waiting session that never reaches WaitingStep (it starts at its first
// step and no replica runs it): Start gives up after Timeout, names the
// session and the step, and starts no waking session.
func TestWakeFlowGivesUpWhenTheWaiterNeverWaits(t *testing.T) {
	store, src := wakeStore(t)
	ctx := context.Background()
	f := &WakeFlow{Store: store, Source: src, Registry: "file", Waiter: waiterOwner, Waker: wakerOwner, WakerRule: wakerRule,
		WaitStart: "open_case", WakeStart: "checkout", Timeout: 300 * time.Millisecond}
	begin := time.Now()
	waiting, _, err := f.Start(ctx)
	if err == nil {
		t.Fatal("Start succeeded although the waiting session never reached " + WaitingStep)
	}
	if took := time.Since(begin); took > 5*time.Second {
		t.Errorf("Start took %s with a 300ms timeout", took)
	}
	if msg := err.Error(); !strings.Contains(msg, waiting.String()) || !strings.Contains(msg, WaitingStep) || !strings.Contains(msg, "300ms") {
		t.Errorf("error %q: want the session %s, the step %s and the timeout", msg, waiting, WaitingStep)
	}
	refs, err := store.Sessions(ctx, wakerOwner, 0, 10, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 0 {
		t.Errorf("the waker has %d sessions; Start must not start it when the waiter does not wait", len(refs))
	}
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
