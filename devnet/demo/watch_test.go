package demo

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/session"
)

// Watch prints "session N finished (…)" exactly once per session, when a
// poll first sees it finished, counts the finished ones, and its table
// lists every session followed, the live one too.
func TestWatchPrintsEachFinishOnceAndTablesAll(t *testing.T) {
	store, src := wakeStore(t)
	ctx := context.Background()
	var mu sync.Mutex
	var out []string
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		out = append(out, fmt.Sprintf(format, args...))
	}
	lines := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), out...)
	}
	w := NewWatch(store, waiterOwner, say, slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)))
	var roots []joinstore.Root
	for i := 0; i < 2; i++ {
		res, err := session.Starter{Store: store, Source: src}.Start(ctx, session.Request{Owner: waiterOwner, Registry: "file", OstcID: WaitingFlow, Step: "open_case", Payload: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		roots = append(roots, res.Root)
		w.Add(res.Root)
		w.Add(res.Root) // every event of a session adds it again
	}
	if n := w.Poll(ctx); n != 0 || len(lines()) != 0 {
		t.Fatalf("nothing finished yet: Poll = %d, printed %q", n, lines())
	}
	if _, err := store.KillSession(ctx, roots[1], time.Now(), "test"); err != nil {
		t.Fatal(err)
	}
	if n := w.Poll(ctx); n != 1 {
		t.Errorf("one session killed: Poll = %d, want 1", n)
	}
	want := fmt.Sprintf("session %d finished (%s, ", roots[1].RootPid, StatusKilled)
	if got := lines(); len(got) != 1 || !strings.HasPrefix(got[0], want) || !strings.HasSuffix(got[0], "\n") {
		t.Fatalf("printed %q, want one line starting %q", got, want)
	}
	if n := w.Poll(ctx); n != 1 || len(lines()) != 1 {
		t.Errorf("a second poll: Poll = %d, printed %q; each finish is printed once", n, lines())
	}
	var table bytes.Buffer
	if err := w.Table(ctx, &table); err != nil {
		t.Fatal(err)
	}
	for _, r := range roots {
		if !strings.Contains(table.String(), fmt.Sprint(r.RootPid)) {
			t.Errorf("table lacks session %d:\n%s", r.RootPid, table.String())
		}
	}
	if !strings.Contains(table.String(), StatusLive) || !strings.Contains(table.String(), StatusKilled) {
		t.Errorf("table does not show one live and one killed session:\n%s", table.String())
	}
}
