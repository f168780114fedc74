package reactor

import (
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
)

// JoinReach is the reachability a join target's record keeps
// (joinstore.JoinSpec.Reach), so that the commit that delivers to it can
// decide its join in one script: for each from node of branch b's join, the
// steps of the join group's scope — b's spawns and every step they can
// reach within the group — that can reach the node
// (registry.Orchestration.CanReach). A member's own step equal to the node
// counts without it (Decide). Nil when b declares no join.
func JoinReach(o *registry.Orchestration, b *registry.Branch) map[string][]string {
	if b == nil || b.Join == nil {
		return nil
	}
	seen := map[string]bool{}
	var scope []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			scope = append(scope, s)
		}
	}
	for _, sp := range b.Spawns {
		add(sp)
		for _, r := range o.Reachable(sp) {
			add(r)
		}
	}
	out := make(map[string][]string, len(b.Join.From))
	for _, f := range b.Join.From {
		list := []string{}
		for _, s := range scope {
			if o.CanReach(s, f.Node) {
				list = append(list, s)
			}
		}
		out[f.Node] = list
	}
	return out
}

// withJoinReach sets the reachability of the join targets among children
// that step's branch creates (JoinReach), from cache (by step and outcome).
func withJoinReach(o *registry.Orchestration, step *registry.Step, valid bool, children []joinstore.Child, cache map[joinReachKey]map[string][]string) {
	for i := range children {
		j := children[i].Join
		if j == nil || j.Reach != nil {
			continue
		}
		key := joinReachKey{step.ID, valid}
		reach, ok := cache[key]
		if !ok {
			b := step.OnInvalid
			if valid {
				b = step.OnValid
			}
			reach = JoinReach(o, b)
			cache[key] = reach
		}
		j.Reach = reach
	}
}

type joinReachKey struct {
	step  string
	valid bool
}
