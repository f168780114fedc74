package reactor

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
)

// Reserve is how many child iters a claim of step must reserve: the most
// processes any one of its branches creates (spawns plus a join target).
func Reserve(s *registry.Step) int {
	n := 0
	for _, b := range s.Branches() {
		c := len(b.Spawns)
		if b.Join != nil {
			c++
		}
		n = max(n, c)
	}
	return n
}

// CreatesJoin reports whether a step declares a join in some branch; such
// steps bypass the session's concurrency window (so a join can always form).
func CreatesJoin(s *registry.Step) bool {
	for _, b := range s.Branches() {
		if b.Join != nil {
			return true
		}
	}
	return false
}

// Parent is what the children of a finished step inherit from it.
type Parent struct {
	// Group is the parent's joinGroupId.
	Group string
	// FirstChild is the first iter its lease reserved.
	FirstChild int64
}

// Children plans the processes a finished step creates (DESIGN.md
// "Executing a step"): none when it aborted; otherwise one waiting process
// per spawn of the selected branch, due at now+wait and carrying the next
// payload. Without a join the spawns inherit the parent's group; with one,
// the join target takes the first reserved iter, the spawns join the fresh
// group named by that iter, and the target stays in the parent's group with
// an empty payload.
func Children(s *registry.Step, aborted, valid bool, p Parent, next json.RawMessage, now time.Time, wait time.Duration) []joinstore.Child {
	if aborted {
		return nil
	}
	b := s.OnInvalid
	if valid {
		b = s.OnValid
	}
	if b == nil {
		return nil
	}
	wake := now.Add(wait)
	iter := p.FirstChild
	var out []joinstore.Child
	group := p.Group
	if j := b.Join; j != nil {
		group = strconv.FormatInt(iter, 10)
		out = append(out, joinstore.Child{
			Iter: iter, ResumeStep: j.Target, NextWakeAt: wake, ResumePlain: json.RawMessage("{}"), JoinGroupID: p.Group,
			Join: &joinstore.JoinSpec{FromGroup: group, From: j.From, K: j.K, Policy: j.Policy},
		})
		iter++
	}
	for _, sp := range b.Spawns {
		out = append(out, joinstore.Child{Iter: iter, ResumeStep: sp, NextWakeAt: wake, ResumePlain: next, JoinGroupID: group})
		iter++
	}
	return out
}

// Table is the claim step table of an orchestration.
func Table(o *registry.Orchestration) joinstore.StepTable {
	t := make(joinstore.StepTable, len(o.Steps))
	for _, s := range o.Steps {
		t[s.ID] = joinstore.StepLimits{Reserve: Reserve(s), Bypass: CreatesJoin(s)}
	}
	return t
}
