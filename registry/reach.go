package registry

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"strings"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

// Reachability is scope-aware (DESIGN.md): from a step, a process's work
// continues in the same join group along
//   - the spawns of a branch without a join (children inherit the group), and
//   - the joinid of a branch with a join (the target stays in the parent's group),
// but not along the spawns of a branch that declares a join: those start in a
// fresh group and can never deliver to a join of the current one. Both
// branches of a step count, because the outcome is not known in advance.

// Edge is one scope-preserving move from a step to the next.
type Edge struct {
	From, To string
	// Outcome is the branch the edge belongs to.
	Outcome Outcome
	// Join is true when To is the branch's join target rather than a spawn.
	Join bool
}

func (e Edge) String() string {
	kind := "spawns"
	if e.Join {
		kind = "join.joinid"
	}
	return fmt.Sprintf("%s.%s.%s → %s", e.From, e.Outcome.Field(), kind, e.To)
}

// closure is the transitive closure of scope-preserving edges as a bit
// matrix: row i has bit j set when step j can run after step i, in the
// same join group, after at least one edge.
type closure struct {
	words int
	bits  []uint64
}

// edges lists the scope-preserving edges out of s; with fresh set it lists
// the spawns of join-declaring branches instead (the group-crossing edges).
func edges(s *Step, fresh bool) []Edge {
	var out []Edge
	for _, b := range s.Branches() {
		switch {
		case b.Join == nil && !fresh:
			for _, t := range b.Spawns {
				out = append(out, Edge{From: s.ID, To: t, Outcome: b.Outcome})
			}
		case b.Join != nil && !fresh:
			out = append(out, Edge{From: s.ID, To: b.Join.Target, Outcome: b.Outcome, Join: true})
		case b.Join != nil && fresh:
			for _, t := range b.Spawns {
				out = append(out, Edge{From: s.ID, To: t, Outcome: b.Outcome})
			}
		}
	}
	return out
}

func newClosure(o *Orchestration) *closure {
	n := len(o.Steps)
	c := &closure{words: (n + 63) / 64}
	c.bits = make([]uint64, n*c.words)
	for _, s := range o.Steps {
		for _, b := range s.Branches() {
			if b.Join != nil {
				c.set(s.Index, o.index[b.Join.Target])
				continue
			}
			for _, t := range b.Spawns {
				c.set(s.Index, o.index[t])
			}
		}
	}
	// Warshall over bit rows: whoever reaches k reaches all k reaches.
	for k := 0; k < n; k++ {
		rowK := c.row(k)
		for i := 0; i < n; i++ {
			if c.has(i, k) {
				rowI := c.row(i)
				for w := range rowI {
					rowI[w] |= rowK[w]
				}
			}
		}
	}
	return c
}

func (c *closure) row(i int) []uint64 { return c.bits[i*c.words : (i+1)*c.words] }
func (c *closure) set(i, j int)       { c.bits[i*c.words+j/64] |= 1 << (j % 64) }
func (c *closure) has(i, j int) bool  { return c.bits[i*c.words+j/64]&(1<<(j%64)) != 0 }

// CanReach reports whether a process about to run step from can lead, within
// its join group and after at least one edge, to a process that runs step to.
// It is an O(1) lookup in the closure computed by Parse. Unknown ids give false.
// A process that is about to run to itself is a separate check (from == to).
func (o *Orchestration) CanReach(from, to string) bool {
	i, ok := o.index[from]
	j, ok2 := o.index[to]
	return ok && ok2 && o.reach.has(i, j)
}

// CanReachIndex is CanReach by step index (Step.Index), for hot paths.
func (o *Orchestration) CanReachIndex(from, to int) bool {
	return o.reach.has(from, to)
}

// Reachable returns the ids of every step reachable from the given step, in
// document order.
func (o *Orchestration) Reachable(from string) []string {
	i, ok := o.index[from]
	if !ok {
		return nil
	}
	var out []string
	for w, word := range o.reach.row(i) {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			out = append(out, o.Steps[w*64+b].ID)
			word &= word - 1
		}
	}
	return out
}

// Explanation says why one step can or cannot reach another.
type Explanation struct {
	From      string `json:"from"`
	To        string `json:"to"`
	Reachable bool   `json:"reachable"`
	// Path is the shortest scope-preserving path when Reachable.
	Path []Edge `json:"-"`
	// Reason explains the answer in one sentence.
	Reason string `json:"reason"`
}

// MarshalJSON writes the explanation with its path as a list (empty when
// not reachable) of hops: from, to, branch ("onValid" or "onInvalid") and
// kind ("spawn" or "join").
func (e Explanation) MarshalJSON() ([]byte, error) {
	type hop struct {
		From   string `json:"from"`
		To     string `json:"to"`
		Branch string `json:"branch"`
		Kind   string `json:"kind"`
	}
	type plain Explanation
	out := struct {
		plain
		Path []hop `json:"path"`
	}{plain: plain(e), Path: []hop{}}
	for _, h := range e.Path {
		kind := "spawn"
		if h.Join {
			kind = "join"
		}
		out.Path = append(out.Path, hop{h.From, h.To, h.Outcome.Field(), kind})
	}
	return json.Marshal(out)
}

// Explain answers CanReach with a shortest path, or with the reason none
// exists: either no edge sequence leads there at all, or every sequence
// crosses into a fresh join group (the spawns of a join-declaring branch).
func (o *Orchestration) Explain(from, to string) (Explanation, error) {
	e := Explanation{From: from, To: to}
	for _, id := range [...]string{from, to} {
		if o.Step(id) == nil {
			return e, fmt.Errorf("unknown step %q (steps: %s)", id, stepList(o))
		}
	}
	if path := o.shortest(from, to, false); path != nil {
		e.Reachable, e.Path = true, path
		e.Reason = fmt.Sprintf("%s reaches %s in %d step(s) within one join group: %s", from, to, len(path), formatPath(path))
		return e, nil
	}
	if path := o.shortest(from, to, true); path != nil {
		var cross Edge
		for _, h := range path {
			if s := o.Step(h.From); s.Branch(h.Outcome).Join != nil && !h.Join {
				cross = h
				break
			}
		}
		e.Reason = fmt.Sprintf("every path from %s to %s leaves the join group; the shortest, %s, crosses at %s.%s, whose spawns start the fresh group of join %q",
			from, to, formatPath(path), cross.From, cross.Outcome.Field(), o.Step(cross.From).Branch(cross.Outcome).Join.Target)
		return e, nil
	}
	e.Reason = fmt.Sprintf("no sequence of spawns or join targets leads from %s to %s", from, to)
	return e, nil
}

// shortest finds a shortest path of ≥1 edges by breadth-first search; with
// crossing set it may also use group-crossing spawns.
func (o *Orchestration) shortest(from, to string, crossing bool) []Edge {
	prev := make([]Edge, len(o.Steps))
	seen := make([]bool, len(o.Steps))
	queue := []int{o.index[from]}
	for len(queue) > 0 {
		cur := o.Steps[queue[0]]
		queue = queue[1:]
		next := edges(cur, false)
		if crossing {
			next = append(next, edges(cur, true)...)
		}
		for _, e := range next {
			j := o.index[e.To]
			if seen[j] {
				continue
			}
			seen[j], prev[j] = true, e
			if e.To == to {
				// Walk back to the first edge leaving from; from itself may have
				// been revisited (a cycle), so stop there rather than at a root.
				var path []Edge
				for {
					path = append(path, prev[j])
					if prev[j].From == from {
						break
					}
					j = o.index[prev[j].From]
				}
				for l, r := 0, len(path)-1; l < r; l, r = l+1, r-1 {
					path[l], path[r] = path[r], path[l]
				}
				return path
			}
			queue = append(queue, j)
		}
	}
	return nil
}

func formatPath(path []Edge) string {
	var b strings.Builder
	b.WriteString(path[0].From)
	for _, e := range path {
		fmt.Fprintf(&b, " -%s.%s-> %s", e.Outcome, map[bool]string{false: "spawn", true: "join"}[e.Join], e.To)
	}
	return b.String()
}

// checkJoinScopes warns about join inputs that no producer of the join's own
// group can ever deliver, and about joins that therefore can never close.
func (d *decoder) checkJoinScopes(o *Orchestration) {
	for _, s := range o.Steps {
		for _, b := range s.Branches() {
			j := b.Join
			if j == nil {
				continue
			}
			path := jsondoc.Path("structure").Key(s.ID).Key(b.Outcome.Field()).Key("join")
			satisfiable := 0
			for i, f := range j.From {
				if o.spawnsReach(b.Spawns, f.Node) {
					satisfiable++
					continue
				}
				d.Warnf(-1, path.Key("from").Index(i).Key("node"), CodeJoinScope,
					"no producer of this join's group can reach %q (the branch spawns %s); a process that runs it elsewhere belongs to another group and never delivers here",
					f.Node, listOrNone(b.Spawns))
			}
			if satisfiable < j.K {
				d.Warnf(-1, path, CodeJoinNeverMet,
					"join %q can never close: k=%d but only %d of its %d inputs are reachable from this branch's spawns; every session reaching %s.%s aborts it",
					j.Target, j.K, satisfiable, len(j.From), s.ID, b.Outcome.Field())
			}
		}
	}
}

// spawnsReach reports whether some process started on one of spawns runs
// step to, itself or later in its group.
func (o *Orchestration) spawnsReach(spawns []string, to string) bool {
	for _, sp := range spawns {
		if sp == to || o.CanReach(sp, to) {
			return true
		}
	}
	return false
}

func listOrNone(ids []string) string {
	if len(ids) == 0 {
		return "nothing"
	}
	return strings.Join(ids, ", ")
}
