package console

import (
	"sort"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
)

// Graph is a laid-out graph for the page to draw: nodes at layered places
// and the edges between them.
type Graph struct {
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
}

// Node is one box of a graph: a process (flow view) or a step
// (orchestration view).
type Node struct {
	// ID is the process id or the step id.
	ID string `json:"id"`
	// Label is the step id; Sub a second line (pid, rule).
	Label string `json:"label"`
	Sub   string `json:"sub,omitempty"`
	// Status is the process status (waiting, running, done, aborted) or, on
	// a step, the most telling status of its processes ("" when it has
	// none).
	Status string `json:"status,omitempty"`
	Place
	// Join describes a join target.
	Join *JoinInfo `json:"join,omitempty"`
	// Counts are a step's processes by status (orchestration view).
	Counts map[string]int `json:"counts,omitempty"`
}

// JoinInfo is what a graph shows of a join target.
type JoinInfo struct {
	// Status is the join's outcome (open, closed, unfulfillable, killed);
	// empty on a step.
	Status string `json:"status,omitempty"`
	Mode   string `json:"mode,omitempty"`
	K      int    `json:"k"`
	N      int    `json:"n"`
	Policy string `json:"policy"`
	// From are the expected producer steps; Got those that delivered.
	From []string `json:"from"`
	Got  []string `json:"got,omitempty"`
	// Inbox lists the steps whose payloads the inbox holds.
	Inbox []string `json:"inbox,omitempty"`
}

// Edge kinds.
const (
	EdgeSpawn     = "spawn"     // a process created another
	EdgeValid     = "valid"     // onValid spawns
	EdgeInvalid   = "invalid"   // onInvalid spawns
	EdgeJoin      = "join"      // an expected producer feeds a join target
	EdgeDelivered = "delivered" // a producer's delivery reached the target
	EdgeOpens     = "opens"     // a process opened a join target
)

// Edge is one arrow.
type Edge struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Kind  string `json:"kind"`
	Label string `json:"label,omitempty"`
}

// statusRank orders statuses by how much they tell an operator: what is
// running or waiting first, then failures, then done.
var statusRank = map[string]int{"executing": 5, "running": 4, "waiting": 3, "aborted": 2, "done": 1}

// ProcessGraph is the flow view of a session: one node per process (step,
// pid, status; join targets with k, got, policy and inbox), spawn edges from
// parent to child, and join edges from the expected producers of a join's
// group to its target (delivered when the producer's step delivered). A
// join target is laid out after its producers.
func ProcessGraph(procs []joinstore.Process) Graph {
	g := Graph{Nodes: []Node{}, Edges: []Edge{}}
	sorted := append([]joinstore.Process(nil), procs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Iter < sorted[j].Iter })
	byGroup := map[string][]joinstore.Process{}
	for _, p := range sorted {
		byGroup[p.JoinGroupID] = append(byGroup[p.JoinGroupID], p)
	}
	ids := make([]string, 0, len(sorted))
	var layout [][2]string
	for _, p := range sorted {
		pid := p.Pid
		ids = append(ids, pid)
		n := Node{ID: pid, Label: p.ResumeStep, Sub: pid, Status: string(p.Status)}
		if p.Join == nil {
			if p.ParentPid != "" {
				g.Edges = append(g.Edges, Edge{From: p.ParentPid, To: pid, Kind: EdgeSpawn})
				layout = append(layout, [2]string{p.ParentPid, pid})
			}
			g.Nodes = append(g.Nodes, n)
			continue
		}
		js, err := reactor.SummarizeJoin(p)
		st, serr := reactor.JoinStateOf(p)
		if err != nil || serr != nil {
			g.Nodes = append(g.Nodes, n)
			continue
		}
		info := &JoinInfo{Status: js.Status, K: js.K, N: len(st.From), Policy: st.Policy.String(), Got: js.Got, From: []string{}}
		expect := map[string]bool{}
		for _, f := range st.From {
			info.From = append(info.From, f.Node)
			expect[f.Node] = true
		}
		for k := range st.Inbox {
			info.Inbox = append(info.Inbox, k)
		}
		sort.Strings(info.Inbox)
		n.Join = info
		g.Nodes = append(g.Nodes, n)
		got := map[string]bool{}
		for _, s := range js.Got {
			got[s] = true
		}
		producers := 0
		for _, q := range byGroup[p.Join.FromGroupID] {
			if q.Pid == pid || !expect[q.ResumeStep] {
				continue
			}
			kind := EdgeJoin
			if got[q.ResumeStep] && q.Status == joinstore.StatusDone {
				kind = EdgeDelivered
			}
			g.Edges = append(g.Edges, Edge{From: q.Pid, To: pid, Kind: kind})
			layout = append(layout, [2]string{q.Pid, pid})
			producers++
		}
		if p.ParentPid != "" {
			g.Edges = append(g.Edges, Edge{From: p.ParentPid, To: pid, Kind: EdgeOpens})
			if producers == 0 {
				layout = append(layout, [2]string{p.ParentPid, pid})
			}
		}
	}
	places := Layered(ids, layout)
	for i := range g.Nodes {
		g.Nodes[i].Place = places[g.Nodes[i].ID]
	}
	return g
}

// OrchestrationGraph is the orchestration view: one node per step (rule,
// join declaration), onValid and onInvalid spawn edges, join edges from
// each expected producer labelled with its "when", and the session's
// processes overlaid as counts by status on their steps.
func OrchestrationGraph(o *registry.Orchestration, procs []joinstore.Process) Graph {
	g := Graph{Nodes: []Node{}, Edges: []Edge{}}
	counts := map[string]map[string]int{}
	for _, p := range procs {
		step := p.ResumeStep
		if counts[step] == nil {
			counts[step] = map[string]int{}
		}
		counts[step][string(p.Status)]++
	}
	joins := map[string]*JoinInfo{}
	ids := make([]string, 0, len(o.Steps))
	var layout [][2]string
	for _, s := range o.Steps {
		ids = append(ids, s.ID)
		for _, b := range s.Branches() {
			kind := EdgeValid
			if b.Outcome == registry.OutcomeInvalid {
				kind = EdgeInvalid
			}
			for _, t := range b.Spawns {
				g.Edges = append(g.Edges, Edge{From: s.ID, To: t, Kind: kind})
				layout = append(layout, [2]string{s.ID, t})
			}
			if j := b.Join; j != nil {
				info := &JoinInfo{Mode: j.Mode.String(), K: j.K, N: len(j.From), Policy: j.Policy.String(), From: []string{}}
				for _, f := range j.From {
					info.From = append(info.From, f.Node)
					g.Edges = append(g.Edges, Edge{From: f.Node, To: j.Target, Kind: EdgeJoin, Label: f.When.String()})
					layout = append(layout, [2]string{f.Node, j.Target})
				}
				joins[j.Target] = info
			}
		}
	}
	places := Layered(ids, layout)
	for _, s := range o.Steps {
		n := Node{ID: s.ID, Label: s.ID, Sub: shortRule(s.Rule), Place: places[s.ID], Join: joins[s.ID], Counts: counts[s.ID]}
		for st := range n.Counts {
			if statusRank[st] > statusRank[n.Status] {
				n.Status = st
			}
		}
		g.Nodes = append(g.Nodes, n)
	}
	return g
}

// shortRule abbreviates a rule address (0x1234…abcd); aliases stay.
func shortRule(r string) string {
	if len(r) == 42 && r[:2] == "0x" {
		return r[:6] + "…" + r[38:]
	}
	return r
}
