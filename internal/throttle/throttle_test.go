package throttle

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestHandlerHoldsBackRepeats(t *testing.T) {
	type rec struct {
		after time.Duration // since the start
		level slog.Level
		msg   string
		attrs []any
	}
	for _, tc := range []struct {
		name string
		recs []rec
		want []string // lines written, in order (substrings)
	}{
		{"a repeat within the window is held back", []rec{
			{0, slog.LevelError, "cannot run session", []any{"session", "a:1", "err", "unknown"}},
			{200 * time.Millisecond, slog.LevelError, "cannot run session", []any{"session", "a:1", "err", "unknown"}},
			{400 * time.Millisecond, slog.LevelError, "cannot run session", []any{"session", "a:1", "err", "unknown"}},
		}, []string{`msg="cannot run session" session=a:1 err=unknown`}},
		{"after the window the next copy says how many were held back", []rec{
			{0, slog.LevelWarn, "trigger waits", []any{"trigger", "t"}},
			{time.Second, slog.LevelWarn, "trigger waits", []any{"trigger", "t"}},
			{2 * time.Second, slog.LevelWarn, "trigger waits", []any{"trigger", "t"}},
			{61 * time.Second, slog.LevelWarn, "trigger waits", []any{"trigger", "t"}},
		}, []string{`msg="trigger waits" trigger=t`, `msg="trigger waits" trigger=t repeated=2`}},
		{"a change of state is written at once", []rec{
			{0, slog.LevelError, "cannot run session", []any{"session", "a:1"}},
			{time.Millisecond, slog.LevelError, "cannot run session", []any{"session", "a:2"}},
			{2 * time.Millisecond, slog.LevelWarn, "cannot run session", []any{"session", "a:2"}},
		}, []string{"session=a:1", "level=ERROR msg=\"cannot run session\" session=a:2", "level=WARN"}},
		{"debug records always pass", []rec{
			{0, slog.LevelDebug, "poll", nil},
			{time.Millisecond, slog.LevelDebug, "poll", nil},
		}, []string{"msg=poll", "msg=poll"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			t0 := time.Unix(1_700_000_000, 0)
			now := t0
			h := New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: dropTime}), time.Minute).WithClock(func() time.Time { return now })
			log := slog.New(h)
			for _, r := range tc.recs {
				now = t0.Add(r.after)
				log.Log(context.Background(), r.level, r.msg, r.attrs...)
			}
			lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
			if len(lines) != len(tc.want) {
				t.Fatalf("wrote %d lines, want %d:\n%s", len(lines), len(tc.want), buf.String())
			}
			for i, w := range tc.want {
				if !strings.Contains(lines[i], w) {
					t.Errorf("line %d = %q, want it to contain %q", i, lines[i], w)
				}
			}
		})
	}
}

// The logger's own attributes are part of a record's identity.
func TestHandlerWithAttrs(t *testing.T) {
	var buf bytes.Buffer
	base := slog.New(New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: dropTime}), time.Minute))
	base.With("session", "a:1").Error("cannot run session")
	base.With("session", "a:2").Error("cannot run session")
	base.With("session", "a:1").Error("cannot run session")
	base.WithGroup("g").Error("cannot run session")
	if n := strings.Count(buf.String(), "\n"); n != 3 {
		t.Errorf("wrote %d lines, want 3:\n%s", n, buf.String())
	}
}

func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}
