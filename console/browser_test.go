package console

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/xgr-sidecar/xgr/internal/toolbin"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/session"
	"github.com/xgr-sidecar/xgr/testenv"
)

// browserEnv is a console on a real redis-server with sessions a real
// session machine ran, driven in headless Chromium.
type browserEnv struct {
	t     *testing.T
	base  string
	store *joinstore.Store
	// finished are the sessions the replica ran to the end (start keys
	// order-1…4, minimal_join), holding the ones waiting an hour (hold-1…3,
	// nested_join_example, not due), due the ones due now that no replica
	// runs (due-1, due-2, minimal_join).
	finished, holding, due []joinstore.Root
	// startedAt separates the holding sessions (created before it) from
	// the due ones (after).
	startedAt time.Time
	ctx       context.Context
	mu        sync.Mutex
	requests  []string
}

const browserReplica = "replica-a"

func loadOrchestration(t *testing.T, file string) *registry.Orchestration {
	t.Helper()
	raw, err := os.ReadFile("../examples/ostc/" + file)
	if err != nil {
		t.Fatal(err)
	}
	o, err := registry.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// newBrowserEnv starts Redis, runs four minimal_join sessions to the end
// with a replica (each step takes 40 ms), starts three nested-join sessions
// that wait an hour and, with the replica stopped, two that are due at
// once; then serves the console and opens Chromium.
func newBrowserEnv(t *testing.T, direct bool) *browserEnv {
	t.Helper()
	if _, err := toolbin.Find("chromium"); err != nil {
		t.Fatal(err) // before the sessions run
	}
	srv := testenv.StartRedis(t)
	rdb := srv.Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	mj, nj := loadOrchestration(t, "minimal_join.json"), loadOrchestration(t, "nested_join.json")
	src := reactor.NewStaticSource(mj, nj)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	rules, err := rulesource.OpenDir("../examples/rules")
	if err != nil {
		t.Fatal(err)
	}
	c := New(Config{Store: store, Redis: rdb, Source: src, Rules: rules, DirectActions: direct, Log: log, Tick: 500 * time.Millisecond})
	exec, err := reactor.ParseOutcomes([]byte(`{"default":{"result":"valid","delayMs":40,"payload":{"checked":true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	exec.Sleep = reactor.SleepContext
	env := &browserEnv{t: t, store: store}
	ctx := context.Background()
	start := func(o *registry.Orchestration, key string, wake time.Time) joinstore.Root {
		t.Helper()
		res, err := session.Starter{Store: store, Source: src}.Start(ctx, session.Request{Owner: testOwner, Registry: "file", OstcID: o.ID,
			Step: o.Steps[0].ID, Payload: json.RawMessage(`{"n": 1}`), Key: key, WakeAt: wake})
		if err != nil {
			t.Fatal(err)
		}
		return res.Root
	}
	mctx, stop := context.WithCancel(ctx)
	m := &reactor.Manager{Store: store, Source: src, Exec: exec, Replica: browserReplica, Poll: 20 * time.Millisecond, Log: log, OnEvent: c.Record}
	done := make(chan error, 1)
	go func() { done <- m.Run(mctx) }()
	for i := 1; i <= 4; i++ {
		env.finished = append(env.finished, start(mj, fmt.Sprintf("order-%d", i), time.Time{}))
	}
	for i := 1; i <= 3; i++ {
		env.holding = append(env.holding, start(nj, fmt.Sprintf("hold-%d", i), time.Now().Add(time.Hour)))
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		n := 0
		for _, r := range env.finished {
			if meta, _ := store.SessionMeta(ctx, r); meta.Status == joinstore.SessionFinished {
				n++
			}
		}
		if n == len(env.finished) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d sessions finished within 60s", n, len(env.finished))
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The due sessions are created in a later second than the others (the
	// page's time inputs have whole seconds).
	env.startedAt = time.Now().Truncate(time.Second).Add(time.Second)
	time.Sleep(time.Until(env.startedAt) + 5*time.Millisecond)
	for i := 1; i <= 2; i++ {
		env.due = append(env.due, start(mj, fmt.Sprintf("due-%d", i), time.Time{}))
	}

	env.serve(c)
	return env
}

// serve serves the console c on httptest and opens headless Chromium on
// it, recording every URL the page requests.
func (env *browserEnv) serve(c *Console) {
	t := env.t
	t.Helper()
	chromium, err := toolbin.Find("chromium")
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(c.Handler())
	t.Cleanup(func() { c.Close(); hs.Close() })
	env.base = hs.URL
	ctx := context.Background()

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(1400, 1000), chromedp.Flag("disable-dev-shm-usage", true))
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	tctx, tcancel := context.WithTimeout(bctx, 3*time.Minute)
	t.Cleanup(func() { tcancel(); bcancel(); acancel() })
	env.ctx = tctx
	if err := chromedp.Listen(tctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			env.mu.Lock()
			env.requests = append(env.requests, e.Request.URL)
			env.mu.Unlock()
		}
	}); err != nil {
		t.Fatalf("start chromium %s: %v", chromium, err)
	}
	env.do("enable the network domain", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, network.Enable, network.EnableParams{})
		return err
	}))
}

// do runs browser actions, failing the test on an error.
func (e *browserEnv) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	e.t.Helper()
	if err := chromedp.Do(e.ctx, actions...); err != nil {
		e.t.Fatalf("%s: %v", what, err)
	}
}

// open shows a view of the page and waits until it has drawn.
func (e *browserEnv) open(hash string) {
	e.t.Helper()
	e.do("open "+hash, chromedp.Navigate(e.base+"/ui/"+hash), chromedp.WaitVisible(chromedp.CSS(`main[data-ready="1"]`)))
}

// eval evaluates a JavaScript expression on the page.
func eval[T any](e *browserEnv, expr string) T {
	e.t.Helper()
	v, err := chromedp.Run(e.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		e.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// wait waits until a JavaScript condition holds on the page.
func (e *browserEnv) wait(what, cond string, show ...string) {
	e.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if ok, err := chromedp.Run(e.ctx, chromedp.Evaluate[bool](cond)); err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			html, _ := chromedp.Run(e.ctx, chromedp.OuterHTML(chromedp.CSS("main")))
			for _, expr := range show {
				v, _ := chromedp.Run(e.ctx, chromedp.Evaluate[any](expr))
				e.t.Errorf("%s = %v", expr, v)
			}
			e.t.Fatalf("page: no %s within 30s:\n%.4000s", what, html)
		}
	}
}

// shot saves a screenshot to $XGR_CONSOLE_SHOTS (when set).
func (e *browserEnv) shot(name string) {
	e.t.Helper()
	dir := os.Getenv("XGR_CONSOLE_SHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(e.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		e.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// onlyHere fails when the page requested anything but the console.
func (e *browserEnv) onlyHere() {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, u := range e.requests {
		if !strings.HasPrefix(u, e.base+"/") && !strings.HasPrefix(u, "data:") {
			e.t.Errorf("the page requested %s", u)
		}
	}
}

// getJSON reads an API answer.
func (e *browserEnv) getJSON(path string, v any) {
	e.t.Helper()
	resp, err := http.Get(e.base + path)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		e.t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		e.t.Fatalf("GET %s: %v", path, err)
	}
}

// chromedpClick clicks the first element matching a CSS selector.
func chromedpClick(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Click(chromedp.CSS(sel))
}
