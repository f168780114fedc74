package tracing

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/rulesource"
)

// maxOpen bounds the spans held open (steps claimed, executions sent,
// sessions seen) so that a replica's memory stays bounded whatever its
// sessions do; beyond it the oldest are ended as they are.
const maxOpen = 100_000

type procKey struct {
	root joinstore.Root
	pid  string
}

// Sessions turns timelines and rule evaluations into spans. Safe for
// concurrent use (the runtime reports from many goroutines).
type Sessions struct {
	tracer trace.Tracer

	mu       sync.Mutex
	steps    map[procKey]trace.Span
	execs    map[procKey]trace.Span
	sessions map[joinstore.Root]time.Time // first event this replica saw
}

// New traces sessions with tp's tracer "xgr". tp should use IDs as its ID
// generator (NewProvider does), so that session root spans get their
// derived ids.
func New(tp trace.TracerProvider) *Sessions {
	return &Sessions{tracer: tp.Tracer("github.com/xgr-sidecar/xgr"), steps: map[procKey]trace.Span{},
		execs: map[procKey]trace.Span{}, sessions: map[joinstore.Root]time.Time{}}
}

func sessionAttr(root joinstore.Root) attribute.KeyValue {
	return attribute.String("xgr.session", root.Owner+":"+strconv.FormatInt(root.RootPid, 10))
}

// Event takes one line of a session's timeline (reactor.Manager.OnEvent).
func (s *Sessions) Event(root joinstore.Root, e reactor.Event) {
	at := e.At
	if at.IsZero() {
		at = time.Now()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.sessions[root]; !ok {
		if len(s.sessions) >= maxOpen {
			clear(s.sessions)
		}
		s.sessions[root] = at
	}
	k := procKey{root, e.Pid}
	switch e.Type {
	case reactor.EvClaimed, reactor.EvRecovered:
		s.stepSpan(k, e.Step, at)
	case reactor.EvExecuting:
		if len(s.execs) >= maxOpen {
			endAll(s.execs, at)
		}
		parent := trace.ContextWithSpan(context.Background(), s.stepSpan(k, e.Step, at))
		_, sp := s.tracer.Start(parent, "execution", trace.WithTimestamp(at), trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(sessionAttr(root), attribute.String("xgr.pid", e.Pid), attribute.String("xgr.execution", e.Detail)))
		if old := s.execs[k]; old != nil {
			old.End(trace.WithTimestamp(at))
		}
		s.execs[k] = sp
	case reactor.EvExecOutcome:
		if sp := s.execs[k]; sp != nil {
			sp.SetAttributes(attribute.String("xgr.outcome", e.Detail))
			if strings.Contains(e.Detail, "revert") || strings.Contains(e.Detail, "lost") {
				sp.SetStatus(codes.Error, e.Detail)
			}
			sp.End(trace.WithTimestamp(at))
			delete(s.execs, k)
		}
	case reactor.EvExecuted, reactor.EvAborted, reactor.EvIgnored, reactor.EvKilled:
		if e.Pid == "" {
			return
		}
		sp := s.steps[k]
		if sp == nil {
			if e.Type == reactor.EvKilled {
				return // a process killed before this replica claimed it
			}
			sp = s.stepSpan(k, e.Step, at) // claimed by another replica
		}
		sp.SetAttributes(attribute.String("xgr.outcome", string(e.Type)), attribute.String("xgr.detail", e.Detail))
		if e.Type != reactor.EvExecuted {
			sp.SetStatus(codes.Error, string(e.Type)+": "+e.Detail)
		}
		sp.End(trace.WithTimestamp(at))
		delete(s.steps, k)
	}
}

// stepSpan is the open span of a process's step, started at at when there
// is none (the caller holds mu).
func (s *Sessions) stepSpan(k procKey, step string, at time.Time) trace.Span {
	if sp := s.steps[k]; sp != nil {
		return sp
	}
	if len(s.steps) >= maxOpen {
		endAll(s.steps, at)
	}
	_, sp := s.tracer.Start(sessionParent(context.Background(), k.root), "step "+step, trace.WithTimestamp(at),
		trace.WithAttributes(sessionAttr(k.root), attribute.String("xgr.pid", k.pid), attribute.String("xgr.step", step)))
	s.steps[k] = sp
	return sp
}

func endAll(m map[procKey]trace.Span, at time.Time) {
	for k, sp := range m {
		sp.End(trace.WithTimestamp(at))
		delete(m, k)
	}
}

// Observe takes a finished rule evaluation (ruleexec.Executor.Observe):
// its contract reads and API calls become spans under the step's span, laid
// out by the evaluation's stage timings (reads run after the inputs, API
// calls after the reads).
func (s *Sessions) Observe(e reactor.Execution, l *rulesource.Loaded, res *rule.Result) {
	if res == nil {
		return
	}
	end := time.Now()
	root := joinstore.Root{Owner: e.Owner, RootPid: e.Session}
	k := procKey{root, e.Pid}
	s.mu.Lock()
	step := ""
	if e.Step != nil {
		step = e.Step.ID
	}
	parent := trace.ContextWithSpan(context.Background(), s.stepSpan(k, step, end.Add(-time.Duration(res.Timings.Total))))
	s.mu.Unlock()
	// A step whose rule seals its logs: errors of its reads and calls
	// may quote its payload (arguments, URLs); their spans say only that
	// they failed.
	sealed := l != nil && evidence.RuleSeals(l.Doc)
	t := res.Timings
	start := end.Add(-time.Duration(t.Total))
	reads := start.Add(time.Duration(t.Inputs))
	for _, r := range res.Reads {
		_, sp := s.tracer.Start(parent, "read "+r.Function, trace.WithTimestamp(reads), trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.String("xgr.contract", r.To), attribute.String("xgr.function", r.Function)))
		if r.Error != "" {
			sp.SetStatus(codes.Error, errText(r.Error, sealed))
		}
		sp.End(trace.WithTimestamp(reads.Add(time.Duration(r.Duration))))
	}
	calls := reads.Add(time.Duration(t.ContractReads))
	for _, c := range res.Calls {
		_, sp := s.tracer.Start(parent, "api "+c.Name, trace.WithTimestamp(calls), trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.String("http.request.method", c.Method), attribute.String("server.address", host(c.URL)),
				attribute.Int("http.response.status_code", c.Status)))
		if c.Error != "" {
			sp.SetStatus(codes.Error, errText(c.Error, sealed))
		}
		sp.End(trace.WithTimestamp(calls.Add(time.Duration(c.Duration))))
	}
	if l != nil {
		s.mu.Lock()
		if sp := s.steps[k]; sp != nil {
			sp.SetAttributes(attribute.String("xgr.rule", l.Origin), attribute.Bool("xgr.valid", res.Valid))
		}
		s.mu.Unlock()
	}
}

// errText is a read's or call's error as its span's status says it.
func errText(err string, sealed bool) string {
	if sealed {
		return "failed (details withheld: the step's logs are sealed)"
	}
	return err
}

// host is a URL's host only: paths and queries may hold API keys.
func host(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}

// Finished ends the session on this replica: its root span (with the
// session's derived ids) from the first event this replica saw of it.
// Wire it to reactor.Lifecycle.Finished.
func (s *Sessions) Finished(root joinstore.Root) {
	now := time.Now()
	s.mu.Lock()
	first, ok := s.sessions[root]
	delete(s.sessions, root)
	s.mu.Unlock()
	if !ok {
		first = now
	}
	_, sp := s.tracer.Start(forced(context.Background(), root), "session", trace.WithTimestamp(first), trace.WithNewRoot(),
		trace.WithAttributes(sessionAttr(root)))
	sp.End(trace.WithTimestamp(now))
}
