package main

import (
	"fmt"
	"io"
	"time"

	"github.com/xgr-sidecar/xgr/bench/peers/internal/cost"
)

// report is the harness's result; its JSON names follow xgr bench's with
// "task" for "step" and "chain" for "session".
type report struct {
	Redis        string  `json:"redis"`
	Chains       int     `json:"chains"`
	Length       int     `json:"length"`
	Concurrency  int     `json:"concurrency"`
	Tasks        int64   `json:"tasks"`
	Seconds      float64 `json:"seconds"`
	StartSeconds float64 `json:"start_seconds"`
	TasksPerSec  float64 `json:"tasks_per_sec"`
	ChainsPerSec float64 `json:"chains_per_sec"`
	// Per task, over the timed run:
	RoundtripsPerTask float64 `json:"roundtrips_per_task"`
	RedisCPUUsPerTask float64 `json:"redis_cpu_us_per_task"`
	// ClientCPUUsPerTask is this process's CPU (user and system) per task.
	ClientCPUUsPerTask float64 `json:"client_cpu_us_per_task"`
	RedisCmdsPerTask   float64 `json:"redis_cmds_per_task"`
	EvalshaPerTask     float64 `json:"evalsha_per_task"`
	AllocsPerTask      float64 `json:"allocs_per_task"`
}

func (r *report) fill(tasks int64, elapsed, clientCPU time.Duration, trips int64, before, after cost.Stats, mallocs uint64) {
	r.Tasks, r.Seconds = tasks, elapsed.Seconds()
	if tasks == 0 || r.Seconds <= 0 {
		return
	}
	per := func(n float64) float64 { return n / float64(tasks) }
	r.TasksPerSec = float64(tasks) / r.Seconds
	r.ChainsPerSec = float64(r.Chains) / r.Seconds
	r.RoundtripsPerTask = per(float64(trips))
	cmds, evals, redisCPU := cost.Between(before, after)
	r.RedisCPUUsPerTask = per(float64(redisCPU) / float64(time.Microsecond))
	r.ClientCPUUsPerTask = per(float64(clientCPU) / float64(time.Microsecond))
	r.RedisCmdsPerTask = per(float64(cmds))
	r.EvalshaPerTask = per(float64(evals))
	r.AllocsPerTask = per(float64(mallocs))
}

func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "asynq chains: %d chains of %d tasks, concurrency %d, redis %s\n", r.Chains, r.Length, r.Concurrency, r.Redis)
	fmt.Fprintf(w, "  first tasks enqueued before the clock in %.2fs (not timed)\n", r.StartSeconds)
	fmt.Fprintf(w, "  %-20s %12d  in %.2fs\n", "tasks", r.Tasks, r.Seconds)
	fmt.Fprintf(w, "  %-20s %12.0f\n", "tasks/s", r.TasksPerSec)
	fmt.Fprintf(w, "  %-20s %12.1f\n", "chains/s", r.ChainsPerSec)
	fmt.Fprintf(w, "  %-20s %12.2f\n", "round trips/task", r.RoundtripsPerTask)
	fmt.Fprintf(w, "  %-20s %12.1f  INFO commandstats, incl. commands run by scripts\n", "redis commands/task", r.RedisCmdsPerTask)
	fmt.Fprintf(w, "  %-20s %12.2f\n", "evalsha/task", r.EvalshaPerTask)
	fmt.Fprintf(w, "  %-20s %12.1f  INFO cpu: used_cpu_user+used_cpu_sys\n", "redis CPU µs/task", r.RedisCPUUsPerTask)
	fmt.Fprintf(w, "  %-20s %12.1f  this process (getrusage)\n", "client CPU µs/task", r.ClientCPUUsPerTask)
	fmt.Fprintf(w, "  %-20s %12.0f\n", "allocs/task", r.AllocsPerTask)
}
