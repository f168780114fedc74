package tracing

import (
	"cmp"
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
		sp := s.execs[k]
		if sp == nil {
			// An execution this replica took over: the replica that sent
			// it stopped, and its span went with it. This one covers what
			// this replica saw, from its step span's start.
			start := at
			if st := s.steps[k]; st != nil {
				if ro, ok := st.(interface{ StartTime() time.Time }); ok {
					start = ro.StartTime()
				}
			}
			parent := trace.ContextWithSpan(context.Background(), s.stepSpan(k, e.Step, at))
			_, sp = s.tracer.Start(parent, "execution", trace.WithTimestamp(start), trace.WithSpanKind(trace.SpanKindClient),
				trace.WithAttributes(sessionAttr(root), attribute.String("xgr.pid", e.Pid), attribute.Bool("xgr.execution.resumed", true)))
		}
		sp.SetAttributes(attribute.String("xgr.outcome", e.Detail))
		if strings.Contains(e.Detail, "revert") || strings.Contains(e.Detail, "lost") {
			sp.SetStatus(codes.Error, e.Detail)
		}
		sp.End(trace.WithTimestamp(at))
		delete(s.execs, k)
	case reactor.EvIgnored:
		// Not a failure: a delivery after its join closed (the event names
		// the join's target) or work this replica gave up with its lease.
		// An open span of the process ends with it; none is opened.
		if sp := s.steps[k]; sp != nil {
			sp.SetAttributes(attribute.String("xgr.outcome", string(e.Type)), attribute.String("xgr.detail", e.Detail))
			sp.End(trace.WithTimestamp(at))
			delete(s.steps, k)
		}
	case reactor.EvExecuted, reactor.EvAborted, reactor.EvKilled:
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

// Finished ends the session: its root span (with the session's derived
// ids) from its creation to its end as the session's record says them —
// whichever replicas ran it — with its orchestration, outcome and step
// count, and status Error when it failed, was killed or cancelled, or
// could not be fulfilled, so that a trace search finds failed sessions.
// Without times in meta it spans the events this replica saw. Wire it to
// reactor.Lifecycle.Finished.
func (s *Sessions) Finished(root joinstore.Root, meta joinstore.SessionMeta) {
	now := time.Now()
	s.mu.Lock()
	first := s.sessions[root]
	delete(s.sessions, root)
	s.mu.Unlock()
	start, end := meta.CreatedAt, meta.FinishedAt
	if start.IsZero() {
		start = cmp.Or(first, now) // first is zero when this replica saw no event
	}
	if end.IsZero() || end.Before(start) {
		end = now
	}
	outcome := joinstore.OutcomeOf(meta)
	attrs := []attribute.KeyValue{sessionAttr(root), attribute.String("xgr.orchestration", meta.OstcID),
		attribute.String("xgr.registry", meta.XRC729), attribute.String("xgr.outcome", string(outcome)), attribute.Int64("xgr.steps", meta.Steps)}
	if meta.KillReason != "" {
		attrs = append(attrs, attribute.String("xgr.kill_reason", meta.KillReason))
	}
	_, sp := s.tracer.Start(forced(context.Background(), root), "session", trace.WithTimestamp(start), trace.WithNewRoot(),
		trace.WithAttributes(attrs...))
	switch outcome {
	case joinstore.OutcomeFailed, joinstore.OutcomeKilled, joinstore.OutcomeCancelled, joinstore.OutcomeUnfulfillable:
		sp.SetStatus(codes.Error, string(outcome))
	}
	sp.End(trace.WithTimestamp(end))
}
