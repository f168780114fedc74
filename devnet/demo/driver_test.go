package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// lines collects what a Driver says.
type lines struct {
	mu  sync.Mutex
	out []string
}

func (l *lines) say(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.out = append(l.out, fmt.Sprintf(format, args...))
}

func (l *lines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.out...)
}

// The orders go out one every Every, in order, each with its JSON text; a
// failed one is logged, not announced, and the next one still goes out.
// Without ExitWhenDone the driver follows the sessions until ctx ends.
func TestDriverRegistersTheOrdersInTurn(t *testing.T) {
	store, _ := wakeStore(t)
	var said lines
	var logged bytes.Buffer
	var mu sync.Mutex
	var puts []string
	var at []time.Time
	d := &Driver{Watch: NewWatch(store, waiterOwner, said.say, slog.Default()), Home: waiterOwner, Orders: 3, Every: 50 * time.Millisecond,
		Flow: OrderFlow, Say: said.say, Log: slog.New(slog.NewTextHandler(&logged, nil)), Poll: 10 * time.Millisecond,
		Put: func(_ context.Context, id string, text []byte) error {
			mu.Lock()
			defer mu.Unlock()
			puts, at = append(puts, id+" "+string(text)), append(at, time.Now())
			if id == "order-2" {
				return errors.New("nonce too low")
			}
			return nil
		}}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	begin := time.Now()
	go func() { defer close(ran); d.Run(ctx) }()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(puts)
		mu.Unlock()
		if n == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of 3 orders registered after 10s", n)
		}
	}
	select {
	case <-ran:
		t.Fatal("Run returned after the orders without ExitWhenDone")
	case <-time.After(200 * time.Millisecond):
	}
	cancel()
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5s of its context's end")
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{`order-1 {"order":"order-1"}`, `order-2 {"order":"order-2"}`, `order-3 {"order":"order-3"}`}
	if strings.Join(puts, "\n") != strings.Join(want, "\n") {
		t.Errorf("registered %q, want %q", puts, want)
	}
	for i, a := range at {
		if earliest := time.Duration(i+1) * 50 * time.Millisecond; a.Sub(begin) < earliest {
			t.Errorf("order-%d went out after %s, want ≥ %s (one every 50ms)", i+1, a.Sub(begin), earliest)
		}
	}
	got := strings.Join(said.all(), "")
	for _, w := range []string{"registered order-1 on the demo orders contract (a trigger event: a session of " + OrderFlow + ")", "registered order-3 "} {
		if !strings.Contains(got, w) {
			t.Errorf("said %q, want %q", got, w)
		}
	}
	if strings.Contains(got, "order-2") {
		t.Errorf("the failed order-2 was announced: %q", got)
	}
	if !strings.Contains(logged.String(), "nonce too low") {
		t.Errorf("the failed order was not logged: %q", logged.String())
	}
}

// With the wake-up flow and ExitWhenDone, the driver announces the flow,
// counts its two sessions as the demo's, and returns once both finished.
func TestDriverExitsWhenTheDemoSessionsFinished(t *testing.T) {
	store, src := wakeStore(t)
	var said lines
	w := NewWatch(store, waiterOwner, said.say, slog.Default())
	d := &Driver{Watch: w, Home: waiterOwner, ExitWhenDone: true, Say: said.say, Log: slog.Default(), Poll: 10 * time.Millisecond,
		Wake: &WakeFlow{Store: store, Source: src, Registry: "file", Waiter: waiterOwner, Waker: wakerOwner, WakerRule: wakerRule,
			WaitStart: WaitingStep, WakeStart: "checkout", Timeout: 5 * time.Second},
		Put: func(context.Context, string, []byte) error { t.Error("no orders to register"); return nil }}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ran := make(chan struct{})
	go func() { defer close(ran); d.Run(ctx) }()
	// Finish the two sessions once both exist (no replica runs them:
	// killed).
	for ctx.Err() == nil {
		refs, _ := store.Sessions(ctx, waiterOwner, 0, 10, true)
		more, _ := store.Sessions(ctx, wakerOwner, 0, 10, true)
		if len(refs)+len(more) == 2 {
			for _, r := range append(refs, more...) {
				if _, err := store.KillSession(ctx, r.Root, time.Now(), "test"); err != nil {
					t.Fatal(err)
				}
			}
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case <-ran:
	case <-ctx.Done():
		t.Fatalf("Run did not return after both demo sessions finished; said %q", said.all())
	}
	got := strings.Join(said.all(), "")
	for _, want := range []string{"xgr dev: wake-up flow: session 1 (" + WaitingFlow + ") waits at " + WaitingStep, "xgr dev: all 2 demo sessions finished\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("said %q, want %q", got, want)
		}
	}
	if n := strings.Count(got, " finished ("); n != 2 {
		t.Errorf("%d finish lines, want 2: %q", n, got)
	}
}
