package tracing_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/replica"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/session"
	"github.com/xgr-sidecar/xgr/testenv"
	"github.com/xgr-sidecar/xgr/tracing"
)

func provider(exp *tracetest.InMemoryExporter, name string) *sdktrace.TracerProvider {
	return sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithIDGenerator(tracing.IDs{}))
}

// Two replicas that run steps of one session — the second after taking it
// over — put their spans into one trace under one root span, without
// exchanging anything: the ids derive from the session. A rule's reads and
// API calls are spans under their step; an API call shows its host only.
func TestOneTraceAcrossReplicas(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	a, b := tracing.New(provider(exp, "a")), tracing.New(provider(exp, "b"))
	root := joinstore.Root{Owner: "0x00000000000000000000000000000000000000aa", RootPid: 7}
	t0 := time.Unix(1_700_000_000, 0)
	a.Event(root, reactor.Event{Type: reactor.EvClaimed, Pid: "7:1", Step: "A1", At: t0})
	a.Observe(reactor.Execution{Owner: root.Owner, Session: 7, Pid: "7:1", Step: &registry.Step{ID: "A1"}}, nil, &rule.Result{
		Valid: true, Timings: rule.Timings{Total: rule.Duration(30 * time.Millisecond), Inputs: rule.Duration(time.Millisecond), ContractReads: rule.Duration(10 * time.Millisecond)},
		Reads: []rule.ReadReport{{Function: "balanceOf(address)", To: "0x01", Duration: rule.Duration(9 * time.Millisecond)}},
		Calls: []rule.CallReport{{Name: "price", Method: "GET", URL: "https://api.example/v1/price?apikey=SECRET", Status: 200, Duration: rule.Duration(15 * time.Millisecond)}}})
	a.Event(root, reactor.Event{Type: reactor.EvExecuted, Pid: "7:1", Step: "A1", At: t0.Add(40 * time.Millisecond), Detail: "valid"})
	a.Event(root, reactor.Event{Type: reactor.EvClaimed, Pid: "7:2", Step: "B1", At: t0.Add(50 * time.Millisecond)})
	a.Event(root, reactor.Event{Type: reactor.EvClaimed, Pid: "7:3", Step: "X1", At: t0.Add(50 * time.Millisecond)})
	a.Event(root, reactor.Event{Type: reactor.EvExecuting, Pid: "7:3", Step: "X1", At: t0.Add(60 * time.Millisecond), Detail: "settle"})
	// a stops; b takes the session over, runs 7:2 again and learns the
	// outcome of 7:3's execution, which a sent.
	b.Event(root, reactor.Event{Type: reactor.EvRecovered, Pid: "7:2", Step: "B1", At: t0.Add(3 * time.Second)})
	b.Event(root, reactor.Event{Type: reactor.EvExecuted, Pid: "7:2", Step: "B1", At: t0.Add(3100 * time.Millisecond), Detail: "valid"})
	b.Event(root, reactor.Event{Type: reactor.EvRecovered, Pid: "7:3", Step: "X1", At: t0.Add(3 * time.Second)})
	b.Event(root, reactor.Event{Type: reactor.EvExecOutcome, Pid: "7:3", Step: "X1", At: t0.Add(3200 * time.Millisecond), Detail: "mined"})
	b.Event(root, reactor.Event{Type: reactor.EvExecuted, Pid: "7:3", Step: "X1", At: t0.Add(3300 * time.Millisecond), Detail: "valid"})
	// A k-of-n producer delivering after the join closed: the event names
	// the join's target; it is no failure and no span of its own.
	b.Event(root, reactor.Event{Type: reactor.EvIgnored, Pid: "7:9", Step: "P3", At: t0.Add(3400 * time.Millisecond), Detail: "join already decided"})
	b.Finished(root, joinstore.SessionMeta{Status: joinstore.SessionFinished, OstcID: "flow", XRC729: "0x01", Steps: 3, Failed: 1,
		CreatedAt: t0.Add(-time.Second), FinishedAt: t0.Add(3500 * time.Millisecond)})

	spans := exp.GetSpans()
	byName := map[string]tracetest.SpanStub{}
	for _, s := range spans {
		if s.SpanContext.TraceID() != tracing.TraceID(root) {
			t.Errorf("span %q is in trace %s, not the session's %s", s.Name, s.SpanContext.TraceID(), tracing.TraceID(root))
		}
		byName[s.Name] = s
	}
	s, ok := byName["session"]
	if !ok || s.SpanContext.SpanID() != tracing.RootSpanID(root) || s.Parent.IsValid() {
		t.Fatalf("session root span: %+v", s)
	}
	// The root span covers the whole session, not the part the replica
	// that finished it ran, and says what a trace search needs.
	if !s.StartTime.Equal(t0.Add(-time.Second)) || !s.EndTime.Equal(t0.Add(3500*time.Millisecond)) {
		t.Errorf("session span %s – %s, want the session's creation to its end", s.StartTime, s.EndTime)
	}
	attrs := map[string]string{}
	for _, kv := range s.Attributes {
		attrs[string(kv.Key)] = kv.Value.String()
	}
	if attrs["xgr.orchestration"] != "flow" || attrs["xgr.outcome"] != "failed" || attrs["xgr.steps"] != "3" || s.Status.Code != codes.Error {
		t.Errorf("session span attributes %v, status %v: want orchestration, outcome failed, steps and status Error", attrs, s.Status)
	}
	if x, ok := byName["execution"]; !ok || x.Parent.SpanID() != byName["step X1"].SpanContext.SpanID() {
		t.Errorf("the execution sent before the takeover: %+v, want a span under step X1", x)
	}
	for _, sp := range spans {
		if sp.Status.Code == codes.Error && sp.Name != "session" {
			t.Errorf("span %q has status Error: %v", sp.Name, sp.Status)
		}
		if sp.Name == "step P3" {
			t.Errorf("an ignored delivery opened a span: %+v", sp)
		}
	}
	for _, name := range []string{"step A1", "step B1"} {
		if s, ok := byName[name]; !ok || s.Parent.SpanID() != tracing.RootSpanID(root) {
			t.Errorf("%s: %+v, want a child of the session's root span", name, s)
		}
	}
	step := byName["step A1"]
	for _, name := range []string{"read balanceOf(address)", "api price"} {
		if s, ok := byName[name]; !ok || s.Parent.SpanID() != step.SpanContext.SpanID() {
			t.Errorf("%s: %+v, want a child of step A1", name, s)
		}
	}
	for _, kv := range byName["api price"].Attributes {
		if strings.Contains(kv.Value.String(), "SECRET") || strings.Contains(kv.Value.String(), "/v1/price") {
			t.Errorf("the API call span shows %s=%s: the URL's path and query may hold secrets", kv.Key, kv.Value.String())
		}
	}
	if got := byName["step A1"].EndTime.Sub(byName["step A1"].StartTime); got != 40*time.Millisecond {
		t.Errorf("step A1 lasted %s, want its claim-to-commit 40ms", got)
	}
}

// Through a replica: every committed step of a session is a span of the
// session's trace, and the finished session its root span.
func TestTraceOfARunningSession(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	raw, err := os.ReadFile("../examples/ostc/nested_join.json")
	if err != nil {
		t.Fatal(err)
	}
	o, err := registry.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	store, err := replica.OpenStore(ctx, testenv.StartRedis(t).Client(), joinstore.Config{SessionTTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	scripted, _ := reactor.ParseOutcomes([]byte(`{"default": {"result": "valid"}}`))
	exp := tracetest.NewInMemoryExporter()
	tr := tracing.New(provider(exp, "r"))
	finished := make(chan joinstore.Root, 1)
	src := reactor.NewStaticSource(o)
	m, err := replica.NewManager(replica.ManagerConfig{Store: store, Source: src, Exec: scripted, Name: "r", Poll: 10 * time.Millisecond,
		OnEvent: tr.Event, Lifecycle: reactor.Lifecycle{Finished: func(r joinstore.Root, meta joinstore.SessionMeta) { tr.Finished(r, meta); finished <- r }}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := session.Starter{Store: store, Source: src}.Start(ctx, session.Request{Owner: "0x00000000000000000000000000000000000000aa", Registry: "test", OstcID: o.ID, Step: o.Steps[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.Run(runCtx) }()
	defer func() { stop(); <-done }()
	select {
	case <-finished:
	case <-ctx.Done():
		t.Fatal("the session did not finish")
	}
	hist, err := store.History(ctx, res.Root)
	if err != nil {
		t.Fatal(err)
	}
	commits := 0
	for _, h := range hist {
		if h.Commit() {
			commits++
		}
	}
	executed, roots := 0, 0
	for _, s := range exp.GetSpans() {
		if s.SpanContext.TraceID() != tracing.TraceID(res.Root) {
			t.Errorf("span %q outside the session's trace", s.Name)
		}
		switch {
		case s.Name == "session":
			roots++
		case strings.HasPrefix(s.Name, "step "):
			if s.Parent.SpanID() != tracing.RootSpanID(res.Root) {
				t.Errorf("%s is not a child of the session's root span", s.Name)
			}
			for _, kv := range s.Attributes {
				if kv.Key == "xgr.outcome" && kv.Value.AsString() == "executed" {
					executed++
				}
			}
		}
	}
	if roots != 1 || executed != commits || commits == 0 {
		t.Errorf("%d root spans and %d executed step spans for %d commits in the history; want 1 and one per commit", roots, executed, commits)
	}
}
