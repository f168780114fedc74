package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/redact"
	"github.com/xgr-sidecar/xgr/internal/throttle"
)

// logRepeatWindow is how often one repeating log record (the same level,
// message and attributes) is written at most; the copies in between are
// counted in the next one's "repeated".
const logRepeatWindow = time.Minute

// setupLogging installs the process logger: --log-level, --log-format,
// repeats held back (see internal/throttle), and go-redis's own messages
// routed through it.
func setupLogging(level, format string, w io.Writer) error {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return usageError("--log-level %q: use debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: l, ReplaceAttr: uniformDurations}
	var h slog.Handler
	switch strings.ToLower(format) {
	case "text":
		h = slog.NewTextHandler(w, opts)
	case "json":
		h = slog.NewJSONHandler(w, opts)
	default:
		return usageError("--log-format %q: use text or json", format)
	}
	slog.SetDefault(slog.New(throttle.New(redact.Handler(h), logRepeatWindow)))
	redis.SetLogger(redisLogger{})
	return nil
}

// uniformDurations writes every time.Duration attribute, in text and in
// JSON logs alike, as a Go duration string ("1.5s", "250ms"): slog's JSON
// handler would write nanoseconds, and many attributes are logged as such
// strings already.
func uniformDurations(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		a.Value = slog.StringValue(a.Value.Duration().String())
	}
	return a
}

// redisLogger routes go-redis's messages (connection pool, dial retries)
// through slog, so that they follow --log-format and --log-level.
type redisLogger struct{}

// Printf implements go-redis's internal.Logging.
func (redisLogger) Printf(ctx context.Context, format string, v ...any) {
	msg := strings.TrimPrefix(strings.TrimSpace(fmt.Sprintf(format, v...)), "redis: ")
	slog.Default().Log(ctx, slog.LevelWarn, msg, "component", "go-redis")
}
