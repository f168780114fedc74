package benchmark

import (
	"github.com/xgr-sidecar/xgr/internal/redisstat"

	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// redisStats is what xgr bench reads from one INFO reply: command counts
// from "commandstats", process CPU from "cpu" and used_memory from
// "memory".
type redisStats struct {
	// calls counts calls by command name (lower case, subcommands as
	// "client|setinfo"). Redis counts the commands a script runs as well as
	// the EVALSHA that ran them.
	calls map[string]int64
	// cpu is used_cpu_user + used_cpu_sys of the server process.
	cpu time.Duration
	// memory is used_memory in bytes.
	memory int64
}

// parseRedisInfo reads the fields of redisStats from an INFO reply (any
// sections; unknown lines are ignored).
func parseRedisInfo(info string) (redisStats, error) {
	s := redisStats{calls: map[string]int64{}}
	cmds, err := redisstat.Parse(info)
	if err != nil {
		return s, err
	}
	for name, st := range cmds {
		s.calls[name] = st.Calls
	}
	var cpuSecs float64
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		key, val, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		switch {
		case key == "used_cpu_user" || key == "used_cpu_sys":
			f, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return s, fmt.Errorf("INFO cpu: %s %q is not a number", key, val)
			}
			cpuSecs += f
		case key == "used_memory":
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return s, fmt.Errorf("INFO memory: used_memory %q is not a number", val)
			}
			s.memory = n
		}
	}
	s.cpu = time.Duration(cpuSecs * float64(time.Second))
	return s, nil
}

// commandsBetween is how many commands ran between two readings, by
// command, leaving out INFO (the readings themselves) and the given number
// of the bench's own calls of each command (its completion polls).
func commandsBetween(before, after redisStats, own map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for name, n := range after.calls {
		d := n - before.calls[name] - own[name]
		if name == "info" || d <= 0 {
			continue
		}
		out[name] = d
	}
	return out
}

// percentile is the p-th percentile (0 < p ≤ 100, nearest rank) of sorted.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// Report is the result of a run (xgr bench); its JSON field names are stable.
type Report struct {
	Orchestration string `json:"orchestration"`
	Redis         string `json:"redis"`
	Replicas      int    `json:"replicas"`
	Concurrency   int    `json:"concurrency"`
	Poll          string `json:"poll"`
	Sessions      int    `json:"sessions"`
	Steps         int64  `json:"steps"`
	// Seconds is the timed run: from the replicas' start until every
	// session finished (the sessions were started before).
	Seconds        float64 `json:"seconds"`
	StartSeconds   float64 `json:"start_seconds"`
	StepsPerSec    float64 `json:"steps_per_sec"`
	SessionsPerSec float64 `json:"sessions_per_sec"`
	// Per executed step, over the timed run:
	RoundtripsPerStep float64 `json:"roundtrips_per_step"`
	RedisCPUUsPerStep float64 `json:"redis_cpu_us_per_step"`
	// ClientCPUUsPerStep is this process's CPU (all replicas, user and
	// system) per step: with Redis's, what a step costs the machine.
	ClientCPUUsPerStep float64 `json:"client_cpu_us_per_step"`
	RedisCmdsPerStep   float64 `json:"redis_cmds_per_step"`
	EvalshaPerStep     float64 `json:"evalsha_per_step"`
	AllocsPerStep      float64 `json:"allocs_per_step"`
	LatencyP50Us       float64 `json:"latency_p50_us"`
	LatencyP99Us       float64 `json:"latency_p99_us"`
	// RedisMemoryBytes is how much used_memory grew from before the
	// sessions were started to the end of the run: what the finished
	// sessions' records hold until their TTL.
	RedisMemoryBytes int64 `json:"redis_memory_bytes"`
	// Bundles and BundleBodyBytes (--log-bundles): the log bundles stored
	// and their mean body size; RedisMemoryBytes includes them and their
	// owner grants.
	Bundles         int64   `json:"bundles,omitempty"`
	BundleBodyBytes float64 `json:"bundle_body_bytes,omitempty"`
	// TopCommands are the most frequent commands per step (informative).
	TopCommands []CommandCount `json:"top_commands"`
}

// CommandCount is one command's calls per step.
type CommandCount struct {
	Command string  `json:"command"`
	PerStep float64 `json:"per_step"`
}

// measure is what the timed run measured, before it is turned into
// per-step figures.
type measure struct {
	steps       int64
	elapsed     time.Duration
	roundTrips  int64
	commands    map[string]int64
	redisCPU    time.Duration
	clientCPU   time.Duration
	mallocs     uint64
	memoryDelta int64
	latencies   []time.Duration // any order
}

// fill sets the measured fields of r.
func (r *Report) fill(m measure) {
	r.Steps = m.steps
	r.Seconds = m.elapsed.Seconds()
	r.RedisMemoryBytes = m.memoryDelta
	if r.Seconds > 0 {
		r.StepsPerSec = float64(m.steps) / r.Seconds
		r.SessionsPerSec = float64(r.Sessions) / r.Seconds
	}
	if m.steps == 0 {
		return
	}
	per := func(n float64) float64 { return n / float64(m.steps) }
	var total int64
	for name, n := range m.commands {
		total += n
		r.TopCommands = append(r.TopCommands, CommandCount{Command: name, PerStep: per(float64(n))})
	}
	sort.Slice(r.TopCommands, func(i, j int) bool {
		a, b := r.TopCommands[i], r.TopCommands[j]
		return a.PerStep > b.PerStep || a.PerStep == b.PerStep && a.Command < b.Command
	})
	r.TopCommands = r.TopCommands[:min(len(r.TopCommands), 8)]
	r.RoundtripsPerStep = per(float64(m.roundTrips))
	r.RedisCPUUsPerStep = per(float64(m.redisCPU) / float64(time.Microsecond))
	r.ClientCPUUsPerStep = per(float64(m.clientCPU) / float64(time.Microsecond))
	r.RedisCmdsPerStep = per(float64(total))
	r.EvalshaPerStep = per(float64(m.commands["evalsha"] + m.commands["eval"]))
	r.AllocsPerStep = per(float64(m.mallocs))
	lat := append([]time.Duration(nil), m.latencies...)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	r.LatencyP50Us = float64(percentile(lat, 50)) / float64(time.Microsecond)
	r.LatencyP99Us = float64(percentile(lat, 99)) / float64(time.Microsecond)
}

// Print writes the human table.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "xgr bench: %s, %d sessions, %d replica(s) × concurrency %d, poll %s, redis %s\n",
		r.Orchestration, r.Sessions, r.Replicas, r.Concurrency, r.Poll, r.Redis)
	fmt.Fprintf(w, "  sessions started before the clock in %.2fs (not timed)\n", r.StartSeconds)
	rows := []struct{ name, value, note string }{
		{"steps", fmt.Sprintf("%d", r.Steps), fmt.Sprintf("in %.2fs", r.Seconds)},
		{"steps/s", fmt.Sprintf("%.0f", r.StepsPerSec), ""},
		{"sessions/s", fmt.Sprintf("%.1f", r.SessionsPerSec), ""},
		{"round trips/step", fmt.Sprintf("%.2f", r.RoundtripsPerStep), "client calls and pipelines of the replicas"},
		{"redis commands/step", fmt.Sprintf("%.1f", r.RedisCmdsPerStep), "INFO commandstats, incl. commands run by scripts"},
		{"evalsha/step", fmt.Sprintf("%.2f", r.EvalshaPerStep), ""},
		{"redis CPU µs/step", fmt.Sprintf("%.1f", r.RedisCPUUsPerStep), "INFO cpu: used_cpu_user+used_cpu_sys"},
		{"client CPU µs/step", fmt.Sprintf("%.1f", r.ClientCPUUsPerStep), "this process (getrusage), all replicas"},
		{"allocs/step", fmt.Sprintf("%.0f", r.AllocsPerStep), "runtime mallocs of this process"},
		{"step latency p50", fmt.Sprintf("%.0f µs", r.LatencyP50Us), "runnable → result handed to its commit"},
		{"step latency p99", fmt.Sprintf("%.0f µs", r.LatencyP99Us), ""},
		{"redis memory", fmt.Sprintf("%d B", r.RedisMemoryBytes), fmt.Sprintf("%.0f B/session kept until the session TTL", float64(r.RedisMemoryBytes)/float64(max(r.Sessions, 1)))},
	}
	if r.Bundles > 0 {
		rows = append(rows, struct{ name, value, note string }{"log bundles", fmt.Sprintf("%d", r.Bundles),
			fmt.Sprintf("%.0f B body each (mean), kept until their own TTL", r.BundleBodyBytes)})
	}
	for _, row := range rows {
		fmt.Fprintf(w, "  %-20s %12s  %s\n", row.name, row.value, row.note)
	}
	if len(r.TopCommands) > 0 {
		parts := make([]string, len(r.TopCommands))
		for i, c := range r.TopCommands {
			parts[i] = fmt.Sprintf("%s %.2f", c.Command, c.PerStep)
		}
		fmt.Fprintf(w, "  commands/step: %s\n", strings.Join(parts, ", "))
	}
}
