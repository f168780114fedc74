package redact

import (
	"context"
	"log/slog"
)

// Handler wraps h so that the message and every string or error attribute
// of a record pass through All before h writes them.
func Handler(h slog.Handler) slog.Handler { return handler{h} }

type handler struct{ h slog.Handler }

func (r handler) Enabled(ctx context.Context, l slog.Level) bool { return r.h.Enabled(ctx, l) }

func (r handler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, All(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(attr(a))
		return true
	})
	return r.h.Handle(ctx, out)
}

func (r handler) WithAttrs(as []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(as))
	for i, a := range as {
		clean[i] = attr(a)
	}
	return handler{r.h.WithAttrs(clean)}
}

func (r handler) WithGroup(name string) slog.Handler { return handler{r.h.WithGroup(name)} }

// attr is a with its strings (and errors, as strings) passed through All.
func attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, All(v.String()))
	case slog.KindGroup:
		g := v.Group()
		clean := make([]any, len(g))
		for i, x := range g {
			clean[i] = attr(x)
		}
		return slog.Group(a.Key, clean...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, All(err.Error()))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
