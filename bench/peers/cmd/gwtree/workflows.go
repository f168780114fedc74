package main

import (
	"context"
	"sync/atomic"

	"github.com/cschleiden/go-workflows/workflow"
)

// The tree's shape: branches per root, leaf activities per branch.
const branches, leaves = 4, 4

// activities counts Leaf executions (a retried activity counts again).
var activities atomic.Int64

// Root starts the branches as sub-workflows and waits for all of them (the
// root join, tree16's RJ).
func Root(ctx workflow.Context) error {
	fs := make([]workflow.Future[int], branches)
	for b := range fs {
		fs[b] = workflow.CreateSubWorkflowInstance[int](ctx, workflow.DefaultSubWorkflowOptions, Branch, b+1)
	}
	for _, f := range fs {
		if _, err := f.Get(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Branch executes its leaf activities and waits for all of them (a branch
// join, tree16's BJ1–BJ4).
func Branch(ctx workflow.Context, b int) (int, error) {
	fs := make([]workflow.Future[int], leaves)
	for l := range fs {
		fs[l] = workflow.ExecuteActivity[int](ctx, workflow.DefaultActivityOptions, Leaf, b, l+1)
	}
	for _, f := range fs {
		if _, err := f.Get(ctx); err != nil {
			return 0, err
		}
	}
	return b, nil
}

// Leaf is the activity: no work, as xgr bench's steps run no rule.
func Leaf(_ context.Context, b, l int) (int, error) {
	activities.Add(1)
	return b*10 + l, nil
}
