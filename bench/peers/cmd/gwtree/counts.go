package main

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/cschleiden/go-workflows/backend/metrics"
)

// go-workflows' metric names and tag (its internal/metrickeys).
const (
	metricFinished     = "workflows.workflow.finished"
	metricTaskDone     = "workflows.workflow.task.processed"
	tagSubWorkflow     = "subworkflow"
	tagSubWorkflowRoot = "false"
)

// counts is a go-workflows metrics client that counts finished root
// workflows and executed workflow tasks, and closes allDone when the
// wanted number of roots finished.
type counts struct {
	want          int64
	roots         atomic.Int64
	workflowTasks atomic.Int64
	allDone       chan struct{}
	once          *sync.Once
}

func newCounts(roots int) *counts {
	return &counts{want: int64(roots), allDone: make(chan struct{}), once: &sync.Once{}}
}

// Counter counts the finish of a root workflow (one that is no
// sub-workflow); the worker reports it once, when the instance's state
// turns to finished.
func (c *counts) Counter(name string, tags metrics.Tags, value int64) {
	if name == metricFinished && tags[tagSubWorkflow] == tagSubWorkflowRoot {
		if c.roots.Add(value) >= c.want {
			c.once.Do(func() { close(c.allDone) })
		}
	}
}

// Distribution counts executed workflow tasks: the worker reports each
// one's execution time under metricTaskDone.
func (c *counts) Distribution(name string, _ metrics.Tags, _ float64) {
	if name == metricTaskDone {
		c.workflowTasks.Add(1)
	}
}

// Gauge implements metrics.Client (ignored).
func (c *counts) Gauge(string, metrics.Tags, int64) {}

// Timing implements metrics.Client (ignored).
func (c *counts) Timing(string, metrics.Tags, time.Duration) {}

// WithTags implements metrics.Client: the counts are shared, the tags of
// each call are all that is read.
func (c *counts) WithTags(metrics.Tags) metrics.Client { return c }

var _ metrics.Client = (*counts)(nil)
