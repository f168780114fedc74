package joinstore

import (
	"context"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// While a Redis Cluster slot migrates between masters (CLUSTER SETSLOT
// MIGRATING/IMPORTING, MIGRATE of its keys, SETSLOT NODE), a transition
// whose declared keys are split between the two masters, or that declares
// a key neither has yet, is refused with TRYAGAIN until the slot's owner
// changes; go-redis follows MOVED and ASK and retries TRYAGAIN, but only
// MaxRedirects times over about a tenth of a second, and not at all for a
// command in a pipeline other than the first of its node's share. Every
// script declares the keys it reaches (TestScriptsDeclareTheirKeys), so a
// refused transition did not run: the store sends it again until it runs
// or refusedRetries rounds passed (several seconds, far longer than a
// session's slot takes to move), and only then reports the refusal.

// refused reports whether err is Redis Cluster's answer to a command it
// did not run because the command's slot is moving: TRYAGAIN, or a MOVED
// or ASK that go-redis stopped following (its redirect budget spent while
// the slot's owner changed).
func refused(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.HasPrefix(s, "TRYAGAIN") || strings.HasPrefix(s, "MOVED ") || strings.HasPrefix(s, "ASK ")
}

// anyRefused reports whether a command of cmds was refused.
func anyRefused(cmds []redis.Cmder) bool {
	for _, c := range cmds {
		if refused(c.Err()) {
			return true
		}
	}
	return false
}

// refusedRetries and refusedPause bound whileRefused: each round is one
// go-redis send with its own retries, then a pause.
const (
	refusedRetries = 40
	refusedPause   = 50 * time.Millisecond
)

// whileRefused calls send again while its error is a refusal (refused), at
// most refusedRetries more times, and returns the last error.
func whileRefused(ctx context.Context, send func() error) error {
	err := send()
	for i := 0; i < refusedRetries && refused(err); i++ {
		t := time.NewTimer(refusedPause)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		err = send()
	}
	return err
}

// runUntilRun sends one script call (send) again while a migrating slot
// refuses it (whileRefused) and returns its last reply.
func runUntilRun(ctx context.Context, send func() *redis.Cmd) *redis.Cmd {
	var cmd *redis.Cmd
	_ = whileRefused(ctx, func() error {
		cmd = send()
		return cmd.Err()
	})
	return cmd
}

// resendRefused sends each command of cmds that was refused again on its
// own, in order, while it is refused (whileRefused).
func resendRefused(ctx context.Context, rdb redis.UniversalClient, cmds []redis.Cmder) {
	for _, c := range cmds {
		if refused(c.Err()) {
			_ = whileRefused(ctx, func() error { return rdb.Process(ctx, c) })
		}
	}
}
