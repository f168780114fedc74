package replica

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/httpserve"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/redisconn"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/session"
	"github.com/xgr-sidecar/xgr/testenv"
)

// A minimal replica — a Redis it opens itself, an orchestration file,
// scripted outcomes, one ops listener and a production replica's checks
// — serves /healthz, /readyz and /metrics once New returns, runs a
// session to its end, fails /readyz once it drains, and after Close
// listens no more and has closed the client New opened.
func TestNewRunClose(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := testenv.StartRedis(t)
	o := nestedJoin(t)
	scripted, err := reactor.ParseOutcomes([]byte(`{"default": {"result": "valid"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var events atomic.Int64
	rep, err := New(ctx, Config{Name: "it", Redis: redisconn.Config{Addr: "redis://" + srv.Addr + "/0"}, Store: joinstore.Config{SessionTTL: time.Hour},
		Orchestrations: []*registry.Orchestration{o}, Rules: Rules{Outcomes: scripted}, Poll: 10 * time.Millisecond,
		Listeners: []Listener{{Addr: "127.0.0.1:0", HTTP: httpserve.Config{Name: "listen"}}}, Checks: &Checks{},
		OnEvent: func(joinstore.Root, reactor.Event) { events.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	defer rep.Close()
	if len(rep.Addrs()) != 1 || strings.HasSuffix(rep.Addrs()[0], ":0") {
		t.Fatalf("listening on %v, want one bound address", rep.Addrs())
	}
	base := "http://" + rep.Addrs()[0]
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, body := get(t, base+path); code != 200 || !strings.HasPrefix(body, "ok: redis write acknowledged") {
			t.Errorf("%s before Run: %d %s", path, code, body)
		}
	}

	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rep.Run(runCtx) }()
	res, err := session.Starter{Store: rep.Store(), Source: rep.Source()}.Start(ctx, session.Request{Owner: owner, Registry: "test", OstcID: o.ID, Step: o.Steps[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	for n := int64(0); n < 1; time.Sleep(10 * time.Millisecond) {
		if n, err = rep.Store().FinishedSessions(ctx, res.Root.Owner); err != nil || ctx.Err() != nil {
			t.Fatalf("the session did not finish: %v %v", err, ctx.Err())
		}
	}
	if events.Load() == 0 {
		t.Error("OnEvent saw no event")
	}
	if code, body := get(t, base+"/metrics"); code != 200 || !strings.Contains(body, "xgr_") {
		t.Errorf("/metrics: %d, no xgr_ series", code)
	}

	stop()
	if err := <-done; err != nil {
		t.Fatalf("Run after a drain: %v", err)
	}
	if rep.Running() != 0 {
		t.Errorf("%d sessions still running after the drain", rep.Running())
	}
	if code, body := get(t, base+"/readyz"); code != 503 || !strings.Contains(body, "draining") {
		t.Errorf("/readyz after the drain: %d %s", code, body)
	}
	if code, _ := get(t, base+"/healthz"); code != 200 {
		t.Errorf("/healthz after the drain: %d", code)
	}

	if err := rep.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rep.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	if c, err := net.DialTimeout("tcp", rep.Addrs()[0], time.Second); err == nil {
		c.Close()
		t.Error("the ops listener still accepts connections after Close")
	}
	if err := rep.rdb.Ping(ctx).Err(); !errors.Is(err, redis.ErrClosed) {
		t.Errorf("the client New opened: PING after Close: %v, want %v", err, redis.ErrClosed)
	}
}

// New fails with the part that failed and leaves nothing open: a Redis
// that does not answer (naming it), a listener address that is taken.
func TestNewFailsCleanly(t *testing.T) {
	ctx := context.Background()
	scripted := &reactor.Scripted{}
	_, err := New(ctx, Config{Redis: redisconn.Config{Addr: "127.0.0.1:1", Origin: "the test"}, Rules: Rules{Outcomes: scripted}})
	var re *Error
	if !errors.As(err, &re) || re.Part != PartRedis || re.Usage || !strings.Contains(err.Error(), "Redis at 127.0.0.1:1 (the test): connection refused") {
		t.Errorf("unreachable Redis: %v", err)
	}

	srv := testenv.StartRedis(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	rdb := srv.Client()
	_, err = New(ctx, Config{Client: rdb, Rules: Rules{Outcomes: scripted},
		Listeners: []Listener{{Addr: taken.Addr().String(), HTTP: httpserve.Config{Name: "listen"}}}})
	if !errors.As(err, &re) || re.Part != PartListener || re.Name != "listen" || re.Addr != taken.Addr().String() || !re.Usage {
		t.Errorf("a taken listener address: %v", err)
	}
	// The caller's client is the caller's: New did not close it.
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Errorf("the caller's client after a failed New: %v", err)
	}
}

// nestedJoin is the orchestration of examples/ostc/nested_join.json.
func nestedJoin(t *testing.T) *registry.Orchestration {
	t.Helper()
	raw, err := os.ReadFile("../examples/ostc/nested_join.json")
	o, perr := registry.Parse(raw)
	if err != nil || perr != nil {
		t.Fatal(errors.Join(err, perr))
	}
	return o
}

// get is the status and body of a GET of url.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
