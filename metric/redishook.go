package metric

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisState is what the hook remembers between requests: whether Redis
// last failed with a connection error, and since when.
type redisState struct {
	down  bool
	since time.Time
}

// RedisHook returns a go-redis hook (client.AddHook) that measures every
// round trip (xgr_redis_request_duration_seconds), counts failures
// (xgr_redis_errors_total; redis.Nil is an answer, not an error) and logs
// "Redis reachable again" at INFO with the outage's length when a request
// succeeds after connection errors.
func (s *Set) RedisHook() redis.Hook { return hook{s} }

type hook struct{ s *Set }

// DialHook passes dials through: a failed dial fails the request that
// needed the connection, which the other hooks count.
func (h hook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h hook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmd)
		if handshake([]redis.Cmder{cmd}) {
			return err
		}
		h.s.redisLatency.WithLabelValues("command").Observe(time.Since(start).Seconds())
		h.s.observeRedis(err, true)
		return err
	}
}

func (h hook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmds)
		if handshake(cmds) {
			// A new connection's HELLO / CLIENT SETINFO: an older server
			// refuses some of them, which go-redis ignores.
			return err
		}
		h.s.redisLatency.WithLabelValues("pipeline").Observe(time.Since(start).Seconds())
		h.s.observeRedis(err, true)
		return err
	}
}

// handshake reports whether a pipeline only sets up a connection.
func handshake(cmds []redis.Cmder) bool {
	for _, c := range cmds {
		switch strings.ToLower(c.Name()) {
		case "hello", "client", "auth", "select", "readonly":
		default:
			return false
		}
	}
	return len(cmds) > 0
}

// observeRedis counts an error by kind and tracks reachability. answered
// is false for a dial, whose success alone does not show Redis serves.
func (s *Set) observeRedis(err error, answered bool) {
	switch kind := redisErrorKind(err); kind {
	case "":
		if !answered {
			return
		}
		s.mu.Lock()
		was := s.redis
		s.redis = redisState{}
		s.mu.Unlock()
		if was.down {
			s.Log.Info("Redis reachable again", "down", time.Since(was.since).Round(time.Millisecond).String())
		}
	case "connection":
		s.redisErrors.WithLabelValues(kind).Inc()
		s.mu.Lock()
		if !s.redis.down {
			s.redis = redisState{down: true, since: time.Now()}
		}
		s.mu.Unlock()
	default:
		s.redisErrors.WithLabelValues(kind).Inc()
	}
}

// scriptRefusals are the error replies of xgr's own Lua transitions: a
// fencing token or checkpoint that moved, the normal outcome of contention
// (their callers count and log them), not a Redis failure.
var scriptRefusals = []string{"LEASE_LOST", "LOCK_LOST", "STALE_HEAD", "STALE_VIEW", "UNSYNCED", "BAD_CHILD", "NOT_HOLDER"}

// redisErrorKind is "" for no error, redis.Nil (an empty answer), NOSCRIPT
// (a script cache miss go-redis answers with EVAL) and the refusals of
// xgr's scripts; "server" for other error replies (OOM, READONLY,
// LOADING, CLUSTERDOWN, …); "connection" for the rest. A cancelled
// context is the caller's, not Redis's: "".
func redisErrorKind(err error) string {
	var reply redis.Error
	switch {
	case err == nil || errors.Is(err, redis.Nil) || errors.Is(err, context.Canceled):
		return ""
	case errors.As(err, &reply):
		msg := reply.Error()
		if strings.HasPrefix(msg, "NOSCRIPT") {
			return ""
		}
		for _, r := range scriptRefusals {
			if strings.Contains(msg, r) {
				return ""
			}
		}
		return "server"
	default:
		return "connection"
	}
}
