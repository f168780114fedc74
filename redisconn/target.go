package redisconn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
)

// Target is a Redis as messages name it: where it is and what chose it.
type Target struct {
	// Addr is where: "127.0.0.1:6379", "cluster a:1,b:2", "master m via
	// sentinels s:1".
	Addr string
	// Origin is what chose it, e.g. "--redis / XGR_REDIS" ("" when not
	// known).
	Origin string
}

func (t Target) String() string {
	if t.Origin == "" {
		return "Redis at " + t.Addr
	}
	return fmt.Sprintf("Redis at %s (%s)", t.Addr, t.Origin)
}

// Failed wraps an error from this Redis so that it names Redis, the
// address and its origin, without the dialer's jargon: "Redis at
// 127.0.0.1:1 (--redis / XGR_REDIS): connection refused". nil stays nil.
func (t Target) Failed(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Target: t, Err: err}
}

// Error is an error from a Redis, named by its Target.
type Error struct {
	Target Target
	Err    error
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Target, Reason(e.Err)) }
func (e *Error) Unwrap() error { return e.Err }

// Reason is err in a user's words: a network error without its "dial tcp
// host:port: connect:" prefix, a timeout as a timeout.
func Reason(err error) string {
	var op *net.OpError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer in time (is it running and reachable?)"
	case errors.As(err, &op) && op.Err != nil:
		msg := op.Err.Error()
		if _, after, ok := strings.Cut(msg, "connect: "); ok {
			msg = after
		}
		return msg
	}
	return err.Error()
}
