package main

import (
	"testing"

	"github.com/cschleiden/go-workflows/backend/metrics"
)

func TestCountsClosesWhenEveryRootFinished(t *testing.T) {
	c := newCounts(2)
	scoped := c.WithTags(metrics.Tags{"backend": "redis"})
	scoped.Counter(metricFinished, metrics.Tags{tagSubWorkflow: "true", "continued_as_new": "false"}, 1)
	scoped.Counter(metricFinished, metrics.Tags{tagSubWorkflow: "false", "continued_as_new": "false"}, 1)
	scoped.Distribution(metricTaskDone, metrics.Tags{"event": "WorkflowExecutionStarted"}, 3)
	scoped.Distribution("workflows.activity.task.processed", nil, 1)
	select {
	case <-c.allDone:
		t.Fatal("allDone closed after 1 of 2 roots (a sub-workflow's finish was counted)")
	default:
	}
	scoped.Counter(metricFinished, metrics.Tags{tagSubWorkflow: "false"}, 1)
	scoped.Counter(metricFinished, metrics.Tags{tagSubWorkflow: "false"}, 1) // a third: no second close
	select {
	case <-c.allDone:
	default:
		t.Fatal("allDone still open after 2 of 2 roots")
	}
	if got := c.workflowTasks.Load(); got != 1 {
		t.Errorf("workflow tasks = %d, want 1 (activity timings are not workflow tasks)", got)
	}
}
