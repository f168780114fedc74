// Package redisstat reads Redis's per-command statistics (INFO
// commandstats) so that benchmarks can report what a workload cost Redis:
// commands and microseconds of Redis CPU, independent of the client's load.
package redisstat

import (
	"context"
	"fmt"
	"strconv"
	"strings"

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
		for name, st := range Parse(raw) {
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
func Parse(info string) Stats {
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
			switch k {
			case "calls":
				st.Calls, _ = strconv.ParseInt(v, 10, 64)
			case "usec":
				st.Usec, _ = strconv.ParseFloat(v, 64)
			}
		}
		out[strings.TrimPrefix(name, "cmdstat_")] = st
	}
	return out
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
