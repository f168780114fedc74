package replica

import (
	"context"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/tracing"
)

// traceFlush bounds the flush of traces on Close.
const traceFlush = 5 * time.Second

// startTracing starts the session tracer of cfg.OTLPEndpoint (none when
// empty); Close flushes and stops it.
func (r *Replica) startTracing(ctx context.Context) error {
	ep := r.cfg.OTLPEndpoint
	if ep == "" {
		return nil
	}
	exp, err := tracing.Exporter(ctx, ep)
	if err != nil {
		return &Error{Part: PartTracing, Usage: true, Err: err}
	}
	tp := tracing.NewProvider(exp, r.name)
	r.log.Info("tracing sessions", "endpoint", ep)
	r.tracer = tracing.New(tp)
	r.onClose(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), traceFlush)
		defer cancel()
		if err := tp.Shutdown(ctx); err != nil {
			r.log.Warn("flushing traces failed", "err", err)
		}
		return nil
	})
	return nil
}

// observe is what sees every evaluation: cfg.Rules.Observe and the
// tracer (nil when neither).
func (r *Replica) observe() func(reactor.Execution, *rulesource.Loaded, *rule.Result) {
	first := r.cfg.Rules.Observe
	switch {
	case r.tracer == nil:
		return first
	case first == nil:
		return r.tracer.Observe
	}
	return func(e reactor.Execution, l *rulesource.Loaded, res *rule.Result) {
		first(e, l, res)
		r.tracer.Observe(e, l, res)
	}
}

// withTracing adds the tracer's session root spans to a lifecycle.
func withTracing(l reactor.Lifecycle, t *tracing.Sessions) reactor.Lifecycle {
	if t == nil {
		return l
	}
	finished := l.Finished
	l.Finished = func(root joinstore.Root, meta joinstore.SessionMeta) {
		t.Finished(root, meta)
		if finished != nil {
			finished(root, meta)
		}
	}
	return l
}
