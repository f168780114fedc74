// Package cost measures what a peer harness's run costs, as xgr bench
// measures it: Redis commands and server CPU from INFO, round trips through
// go-redis clients, and this process's CPU. (The main module's
// internal/redisstat and internal/proccpu, which this separate module
// cannot import.)
package cost

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// ProcessCPU is the user and system CPU time this process has used, 0 when
// getrusage fails.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// RoundTrips is a go-redis hook counting round trips: one per command sent
// alone, one per pipeline (or MULTI/EXEC).
type RoundTrips struct{ n atomic.Int64 }

// N is the round trips counted since the last Reset.
func (c *RoundTrips) N() int64 { return c.n.Load() }

// Reset sets the count to 0.
func (c *RoundTrips) Reset() { c.n.Store(0) }

// DialHook implements redis.Hook (not counted).
func (c *RoundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook implements redis.Hook.
func (c *RoundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { c.n.Add(1); return next(ctx, cmd) }
}

// ProcessPipelineHook implements redis.Hook.
func (c *RoundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { c.n.Add(1); return next(ctx, cmds) }
}

// Stats is what one INFO reply says: calls by command, process CPU.
type Stats struct {
	// Calls counts calls by command name (lower case), the commands a
	// script runs included.
	Calls map[string]int64
	// CPU is used_cpu_user + used_cpu_sys of the server process.
	CPU time.Duration
}

// Info reads INFO commandstats and cpu.
func Info(ctx context.Context, rdb *redis.Client) (Stats, error) {
	raw, err := rdb.Info(ctx, "commandstats", "cpu").Result()
	if err != nil {
		return Stats{}, fmt.Errorf("INFO: %w", err)
	}
	return ParseInfo(raw)
}

// ParseInfo reads Stats from an INFO reply; unknown lines are ignored.
func ParseInfo(raw string) (Stats, error) {
	s := Stats{Calls: map[string]int64{}}
	var secs float64
	for _, line := range strings.Split(raw, "\n") {
		key, val, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		switch {
		case strings.HasPrefix(key, "cmdstat_"):
			for _, f := range strings.Split(val, ",") {
				if n, ok := strings.CutPrefix(f, "calls="); ok {
					v, err := strconv.ParseInt(n, 10, 64)
					if err != nil {
						return s, fmt.Errorf("INFO %s: calls %q is not a number", key, n)
					}
					s.Calls[strings.TrimPrefix(key, "cmdstat_")] = v
				}
			}
		case key == "used_cpu_user" || key == "used_cpu_sys":
			f, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return s, fmt.Errorf("INFO %s %q is not a number", key, val)
			}
			secs += f
		}
	}
	s.CPU = time.Duration(secs * float64(time.Second))
	return s, nil
}

// Between is what ran between two readings: commands (INFO itself left
// out), of which EVAL and EVALSHA, and the server's CPU.
func Between(before, after Stats) (cmds, evals int64, cpu time.Duration) {
	for name, n := range after.Calls {
		if name == "info" {
			continue
		}
		d := n - before.Calls[name]
		cmds += d
		if name == "evalsha" || name == "eval" {
			evals += d
		}
	}
	return cmds, evals, after.CPU - before.CPU
}
