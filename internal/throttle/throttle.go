// Package throttle keeps repeated log records from flooding a log: a record
// is written the first time it occurs, and while it keeps repeating at most
// once per window, counting the copies it held back. A record repeats when
// its level, message and attributes (those of the logger too) are the same,
// so a change of state (another error, another session) is written at once.
package throttle

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// MaxKeys bounds how many distinct records a handler remembers; past it,
// records older than the window are forgotten, and if that is not enough,
// all of them.
const MaxKeys = 4096

// Handler is a slog.Handler that passes records on to another handler,
// holding back repeats. Records below MinLevel are never held back.
type Handler struct {
	next     slog.Handler
	window   time.Duration
	minLevel slog.Level
	now      func() time.Time
	prefix   string // the logger's own attributes and groups
	state    *state
}

type state struct {
	mu   sync.Mutex
	seen map[string]*entry
}

type entry struct {
	written time.Time // when the record was last written
	held    int       // copies held back since
}

// New returns a handler that writes a repeated record at most once per
// window to next, with a "repeated" attribute counting the copies held back
// since it was last written. Debug records always pass.
func New(next slog.Handler, window time.Duration) *Handler {
	return &Handler{next: next, window: window, minLevel: slog.LevelInfo, now: time.Now, state: &state{seen: map[string]*entry{}}}
}

// WithClock returns h reading time from now (for tests).
func (h *Handler) WithClock(now func() time.Time) *Handler {
	c := *h
	c.now = now
	return &c
}

// Enabled implements slog.Handler.
func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

// Handle implements slog.Handler.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < h.minLevel {
		return h.next.Handle(ctx, r)
	}
	key := h.key(r)
	now := h.now()
	h.state.mu.Lock()
	e, ok := h.state.seen[key]
	if ok && now.Sub(e.written) < h.window {
		e.held++
		h.state.mu.Unlock()
		return nil
	}
	held := 0
	if ok {
		held = e.held
	} else {
		h.state.prune(now, h.window)
	}
	h.state.seen[key] = &entry{written: now}
	h.state.mu.Unlock()
	if held > 0 {
		r = r.Clone()
		r.AddAttrs(slog.Int("repeated", held))
	}
	return h.next.Handle(ctx, r)
}

// prune makes room for a new key (mu held).
func (s *state) prune(now time.Time, window time.Duration) {
	if len(s.seen) < MaxKeys {
		return
	}
	for k, e := range s.seen {
		if now.Sub(e.written) >= window {
			delete(s.seen, k)
		}
	}
	if len(s.seen) >= MaxKeys {
		s.seen = map[string]*entry{}
	}
}

// key identifies a record: level, message and every attribute.
func (h *Handler) key(r slog.Record) string {
	var b strings.Builder
	b.WriteString(h.prefix)
	b.WriteString(r.Level.String())
	b.WriteByte('|')
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		writeAttr(&b, a)
		return true
	})
	return b.String()
}

func writeAttr(b *strings.Builder, a slog.Attr) {
	fmt.Fprintf(b, "|%s=%v", a.Key, a.Value.Resolve())
}

// WithAttrs implements slog.Handler.
func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.next = h.next.WithAttrs(as)
	var b strings.Builder
	b.WriteString(h.prefix)
	for _, a := range as {
		writeAttr(&b, a)
	}
	b.WriteByte('|')
	c.prefix = b.String()
	return &c
}

// WithGroup implements slog.Handler.
func (h *Handler) WithGroup(name string) slog.Handler {
	c := *h
	c.next = h.next.WithGroup(name)
	c.prefix = h.prefix + "group=" + name + "|"
	return &c
}
