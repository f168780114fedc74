// Package redisstat reads Redis's per-command statistics (INFO
// commandstats) so that benchmarks can report what a workload cost Redis:
// commands and microseconds of Redis CPU, independent of the client's load.
package redisstat

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// Stat is one command's totals: calls and microseconds spent in it.
type Stat struct {
	Calls int64
	Usec  float64
}

// Stats maps command names (lower case, as Redis reports them: "evalsha",
// "hset", …) to their totals.
type Stats map[string]Stat

// Read returns the server's command statistics (every master of a
// cluster, summed).
func Read(ctx context.Context, rdb redis.UniversalClient) (Stats, error) {
	out := Stats{}
	add := func(ctx context.Context, c *redis.Client) error {
		raw, err := c.Info(ctx, "commandstats").Result()
		if err != nil {
			return fmt.Errorf("redis INFO commandstats: %w", err)
		}
		stats, err := Parse(raw)
		if err != nil {
			return err
		}
		for name, st := range stats {
			t := out[name]
			t.Calls += st.Calls
			t.Usec += st.Usec
			out[name] = t
		}
		return nil
	}
	if cc, ok := rdb.(*redis.ClusterClient); ok {
		var mu = make(chan struct{}, 1)
		mu <- struct{}{}
		err := cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
			<-mu
			defer func() { mu <- struct{}{} }()
			return add(ctx, c)
		})
		return out, err
	}
	c, ok := rdb.(*redis.Client)
	if !ok {
		return nil, fmt.Errorf("redisstat: unsupported client %T", rdb)
	}
	return out, add(ctx, c)
}

// Parse reads the lines "cmdstat_<name>:calls=N,usec=N,…" of INFO
// commandstats; other lines are skipped.
func Parse(info string) (Stats, error) {
	out := Stats{}
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		name, rest, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		var st Stat
		for _, kv := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(kv, "=")
			var err error
			switch k {
			case "calls":
				st.Calls, err = strconv.ParseInt(v, 10, 64)
			case "usec":
				st.Usec, err = strconv.ParseFloat(v, 64)
			}
			if err != nil {
				return nil, fmt.Errorf("INFO commandstats: %s: %s %q is not a number", name, k, v)
			}
		}
		out[strings.TrimPrefix(name, "cmdstat_")] = st
	}
	return out, nil
}

// Sub is s minus an earlier reading.
func (s Stats) Sub(before Stats) Stats {
	out := Stats{}
	for name, st := range s {
		b := before[name]
		if d := (Stat{Calls: st.Calls - b.Calls, Usec: st.Usec - b.Usec}); d.Calls > 0 {
			out[name] = d
		}
	}
	return out
}

// Without takes out calls that an observer made itself (by command name),
// with their share of the command's microseconds, and the INFO reads.
func (s Stats) Without(own map[string]int64) Stats {
	out := Stats{}
	for name, st := range s {
		if name == "info" {
			continue
		}
		if n := own[name]; n > 0 && st.Calls > 0 {
			keep := max(st.Calls-n, 0)
			st.Usec = st.Usec * float64(keep) / float64(st.Calls)
			st.Calls = keep
		}
		if st.Calls > 0 {
			out[name] = st
		}
	}
	return out
}

// Calls is the number of commands in all.
func (s Stats) Calls() int64 {
	var n int64
	for _, st := range s {
		n += st.Calls
	}
	return n
}

// Usec is the microseconds spent in commands in all.
func (s Stats) Usec() float64 {
	var n float64
	for _, st := range s {
		n += st.Usec
	}
	return n
}

// CPU is the microseconds Redis spent on the commands a client sent
// (top, counted by name on the client, pipelined ones included): a
// script's commands run inside its EVALSHA, whose time includes theirs,
// so only each name's share sent from outside counts.
func (s Stats) CPU(top map[string]int64) float64 {
	var n float64
	for name, st := range s {
		if c := min(top[name], st.Calls); c > 0 {
			n += st.Usec * float64(c) / float64(st.Calls)
		}
	}
	return n
}

// RoundTrips is a go-redis hook that counts round trips: one per command
// sent alone, one per pipeline (or MULTI/EXEC transaction).
type RoundTrips struct{ n atomic.Int64 }

// N is the number of round trips so far.
func (c *RoundTrips) N() int64 { return c.n.Load() }

// DialHook implements redis.Hook.
func (c *RoundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook implements redis.Hook.
func (c *RoundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { c.n.Add(1); return next(ctx, cmd) }
}

// ProcessPipelineHook implements redis.Hook.
func (c *RoundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { c.n.Add(1); return next(ctx, cmds) }
}

// Sent is a go-redis hook that counts the commands a client sends by name,
// pipelined ones included: what CPU needs, and what an observer takes out
// of the server's statistics (Without).
type Sent struct {
	mu sync.Mutex
	m  map[string]int64
}

// Counts returns a copy of the counts so far.
func (c *Sent) Counts() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int64, len(c.m))
	for k, v := range c.m {
		out[k] = v
	}
	return out
}

func (c *Sent) add(cmds ...redis.Cmder) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]int64{}
	}
	for _, cmd := range cmds {
		c.m[cmd.Name()]++
	}
	c.mu.Unlock()
}

// DialHook implements redis.Hook.
func (c *Sent) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook implements redis.Hook.
func (c *Sent) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { c.add(cmd); return next(ctx, cmd) }
}

// ProcessPipelineHook implements redis.Hook.
func (c *Sent) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { c.add(cmds...); return next(ctx, cmds) }
}
