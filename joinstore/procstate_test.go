package joinstore

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/reactor/wakeup"
)

// The meta key Start fills is the allow list's payload key.
func TestAllowListKeyIsTheWakeUpKey(t *testing.T) {
	if AllowListKey != wakeup.Key {
		t.Fatalf("joinstore.AllowListKey %q, wakeup.Key %q", AllowListKey, wakeup.Key)
	}
}

// WakeGate answers from the session's meta: the start payload's allow list
// (raw), killed, the last iter and whether a wake id was applied; a
// session started before meta kept the list has it read from its root
// process.
func TestWakeGate(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := newStore(rdb), context.Background()
		list := `{"steps":{"W1":{"rpc":["0x00000000000000000000000000000000000000bb"]}}}`
		a := start(t, s, StartRequest{Payload: json.RawMessage(`{"x":1,"__wakeUp":` + list + `}`)})
		g, err := s.WakeGate(ctx, a.Root, "permit:1")
		if err != nil || g.AllowList != list || g.Killed || g.Last != 1 || g.Applied {
			t.Fatalf("gate: %+v %v", g, err)
		}
		b := start(t, s, StartRequest{Payload: json.RawMessage(`{"x":1}`)})
		if g, err := s.WakeGate(ctx, b.Root, ""); err != nil || g.AllowList != "" {
			t.Fatalf("gate without a list: %+v %v", g, err)
		}
		// An older session: no wakeUp in meta.
		if err := rdb.HDel(ctx, keysOf(a.Root).meta(), "wakeUp").Err(); err != nil {
			t.Fatal(err)
		}
		if g, err := s.WakeGate(ctx, a.Root, ""); err != nil || g.AllowList != list {
			t.Fatalf("gate of an older session: %+v %v", g, err)
		}
		if _, err := s.KillSession(ctx, b.Root, t0, "test"); err != nil {
			t.Fatal(err)
		}
		if g, err := s.WakeGate(ctx, b.Root, ""); err != nil || !g.Killed {
			t.Fatalf("gate of a killed session: %+v %v", g, err)
		}
		if _, err := s.WakeGate(ctx, Root{Owner: owner, RootPid: 99}, ""); !errors.Is(err, ErrNoSession) {
			t.Fatalf("gate of no session: %v", err)
		}
	})
}

// ProcStates reads state fields page by page (more processes than a page
// here), in iter order, and stops at the limit, saying whether more match.
func TestProcStates(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := newStore(rdb), context.Background()
		const n = statePage + 88
		a := start(t, s, StartRequest{Payload: json.RawMessage(`{"big":"` + strings.Repeat("x", 1024) + `"}`)})
		claims := claimAll(t, s, a.Root, t0, n)
		children := make([]Child, n)
		for i := range children {
			step := "B1"
			if i%2 == 1 {
				step = "C1"
			}
			children[i] = Child{Iter: claims[0].FirstChild + int64(i), ResumeStep: step, NextWakeAt: t0.Add(time.Hour), JoinGroupID: "0",
				ResumePlain: json.RawMessage(`{"p":1}`)}
		}
		valid := true
		if _, err := s.Commit(ctx, claims[0], t0, Commit{Status: "done", Valid: &valid, Children: children}); err != nil {
			t.Fatal(err)
		}
		g, err := s.WakeGate(ctx, a.Root, "")
		if err != nil || g.Last != n+1 {
			t.Fatalf("last iter %d, want %d (%v)", g.Last, n+1, err)
		}
		all, more, err := s.ProcStates(ctx, a.Root, g.Last, func(ProcState) bool { return true }, 10000)
		if err != nil || more || len(all) != n+1 {
			t.Fatalf("all: %d %v %v", len(all), more, err)
		}
		for i, p := range all {
			if p.Iter != int64(i+1) || p.Pid != a.Root.Pid(p.Iter) {
				t.Fatalf("row %d: %+v", i, p)
			}
		}
		if p := all[1]; p.Step != "B1" || p.Status != "waiting" || p.ParentPid != a.Root.Pid(1) || p.JoinGroupID != "0" || p.UpdatedAt.IsZero() || p.Killed || p.JoinOpen {
			t.Fatalf("a child: %+v", p)
		}
		if all[0].Status != "done" {
			t.Fatalf("the root: %+v", all[0])
		}
		onB := func(p ProcState) bool { return p.Step == "B1" && p.Status == "waiting" }
		some, more, err := s.ProcStates(ctx, a.Root, g.Last, onB, 10)
		if err != nil || !more || len(some) != 10 || some[9].Iter != 20 {
			t.Fatalf("the first 10 on B1: %d %v %v", len(some), more, err)
		}
		every, more, err := s.ProcStates(ctx, a.Root, g.Last, onB, n/2)
		if err != nil || more || len(every) != n/2 {
			t.Fatalf("every B1 at the limit: %d %v %v", len(every), more, err)
		}
	})
}
