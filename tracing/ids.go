package tracing

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"strconv"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// TraceID is the trace of a session: the first 16 bytes of
// SHA-256("xgr session <owner>:<rootPid>").
func TraceID(root joinstore.Root) trace.TraceID {
	var id trace.TraceID
	h := sha256.Sum256([]byte("xgr session " + root.Owner + ":" + strconv.FormatInt(root.RootPid, 10)))
	copy(id[:], h[:16])
	return id
}

// RootSpanID is the session's root span: the first 8 bytes of
// SHA-256("xgr session span <owner>:<rootPid>").
func RootSpanID(root joinstore.Root) trace.SpanID {
	var id trace.SpanID
	h := sha256.Sum256([]byte("xgr session span " + root.Owner + ":" + strconv.FormatInt(root.RootPid, 10)))
	copy(id[:], h[:8])
	return id
}

// sessionParent is a context whose (remote) parent is the session's root
// span: spans started from it join the session's trace.
func sessionParent(ctx context.Context, root joinstore.Root) context.Context {
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: TraceID(root), SpanID: RootSpanID(root), TraceFlags: trace.FlagsSampled, Remote: true})
	return trace.ContextWithRemoteSpanContext(ctx, sc)
}

type forcedKey struct{}

// forced asks the ID generator for the session's own ids (its root span).
func forced(ctx context.Context, root joinstore.Root) context.Context {
	return context.WithValue(ctx, forcedKey{}, root)
}

// IDs is the span ID generator a provider needs for session root spans to
// get their derived ids; every other span gets random ones.
type IDs struct{}

var _ sdktrace.IDGenerator = IDs{}

// NewIDs implements sdktrace.IDGenerator.
func (IDs) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	if root, ok := ctx.Value(forcedKey{}).(joinstore.Root); ok {
		return TraceID(root), RootSpanID(root)
	}
	var t trace.TraceID
	rand.Read(t[:])
	return t, IDs{}.NewSpanID(ctx, t)
}

// NewSpanID implements sdktrace.IDGenerator.
func (IDs) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	if root, ok := ctx.Value(forcedKey{}).(joinstore.Root); ok {
		return RootSpanID(root)
	}
	var s trace.SpanID
	rand.Read(s[:])
	return s
}
