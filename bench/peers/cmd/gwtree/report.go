package main

import (
	"fmt"
	"io"
	"time"

	"github.com/xgr-sidecar/xgr/bench/peers/internal/cost"
)

// report is the harness's result. Its JSON names follow xgr bench's, with
// "root" for "session"; the per-unit figures are per activity (16 per
// root), the unit comparable with xgr's leaf steps. A step here is one
// activity or one workflow task executed.
type report struct {
	Redis              string  `json:"redis"`
	Roots              int     `json:"roots"`
	ActivitiesPerRoot  int     `json:"activities_per_root"`
	Concurrency        int     `json:"concurrency"`
	Cache              int     `json:"cache"`
	Activities         int64   `json:"activities"`
	WorkflowTasks      int64   `json:"workflow_tasks"`
	Steps              int64   `json:"steps"`
	Seconds            float64 `json:"seconds"`
	StartSeconds       float64 `json:"start_seconds"`
	RootsPerSec        float64 `json:"roots_per_sec"`
	ActivitiesPerSec   float64 `json:"activities_per_sec"`
	StepsPerSec        float64 `json:"steps_per_sec"`
	WorkflowTasksPerRt float64 `json:"workflow_tasks_per_root"`
	// Per activity, over the timed run:
	RoundtripsPerActivity float64 `json:"roundtrips_per_activity"`
	RedisCPUUsPerActivity float64 `json:"redis_cpu_us_per_activity"`
	// ClientCPUUsPerActivity is this process's CPU (user and system) per
	// activity: the worker, its workflow tasks included.
	ClientCPUUsPerActivity float64 `json:"client_cpu_us_per_activity"`
	RedisCmdsPerActivity   float64 `json:"redis_cmds_per_activity"`
	EvalshaPerActivity     float64 `json:"evalsha_per_activity"`
	AllocsPerActivity      float64 `json:"allocs_per_activity"`
}

func (r *report) fill(acts, wfTasks int64, elapsed, clientCPU time.Duration, trips int64, before, after cost.Stats, mallocs uint64) {
	r.ActivitiesPerRoot = branches * leaves
	r.Activities, r.WorkflowTasks, r.Steps, r.Seconds = acts, wfTasks, acts+wfTasks, elapsed.Seconds()
	if acts == 0 || r.Seconds <= 0 {
		return
	}
	per := func(n float64) float64 { return n / float64(acts) }
	r.RootsPerSec = float64(r.Roots) / r.Seconds
	r.ActivitiesPerSec = float64(acts) / r.Seconds
	r.StepsPerSec = float64(r.Steps) / r.Seconds
	r.WorkflowTasksPerRt = float64(wfTasks) / float64(r.Roots)
	r.RoundtripsPerActivity = per(float64(trips))
	cmds, evals, redisCPU := cost.Between(before, after)
	r.RedisCPUUsPerActivity = per(float64(redisCPU) / float64(time.Microsecond))
	r.ClientCPUUsPerActivity = per(float64(clientCPU) / float64(time.Microsecond))
	r.RedisCmdsPerActivity = per(float64(cmds))
	r.EvalshaPerActivity = per(float64(evals))
	r.AllocsPerActivity = per(float64(mallocs))
}

func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "go-workflows trees: %d roots × %d activities (4 branch sub-workflows × 4), concurrency %d, cache %d, redis %s\n",
		r.Roots, r.ActivitiesPerRoot, r.Concurrency, r.Cache, r.Redis)
	fmt.Fprintf(w, "  roots created before the clock in %.2fs (not timed)\n", r.StartSeconds)
	fmt.Fprintf(w, "  %-24s %12d  in %.2fs\n", "activities", r.Activities, r.Seconds)
	fmt.Fprintf(w, "  %-24s %12d  %.1f per root\n", "workflow tasks", r.WorkflowTasks, r.WorkflowTasksPerRt)
	fmt.Fprintf(w, "  %-24s %12.1f\n", "roots/s", r.RootsPerSec)
	fmt.Fprintf(w, "  %-24s %12.0f\n", "activities/s", r.ActivitiesPerSec)
	fmt.Fprintf(w, "  %-24s %12.0f  activities + workflow tasks\n", "steps/s", r.StepsPerSec)
	fmt.Fprintf(w, "  %-24s %12.2f\n", "round trips/activity", r.RoundtripsPerActivity)
	fmt.Fprintf(w, "  %-24s %12.1f  INFO commandstats, incl. commands run by scripts\n", "redis commands/activity", r.RedisCmdsPerActivity)
	fmt.Fprintf(w, "  %-24s %12.2f\n", "evalsha/activity", r.EvalshaPerActivity)
	fmt.Fprintf(w, "  %-24s %12.1f  INFO cpu: used_cpu_user+used_cpu_sys\n", "redis CPU µs/activity", r.RedisCPUUsPerActivity)
	fmt.Fprintf(w, "  %-24s %12.1f  this process (getrusage)\n", "client CPU µs/activity", r.ClientCPUUsPerActivity)
	fmt.Fprintf(w, "  %-24s %12.0f\n", "allocs/activity", r.AllocsPerActivity)
}
