package registry

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// randomSpec is a generated orchestration together with its scope-preserving
// edges, derived independently of the package's own edge code.
type randomSpec struct {
	raw   []byte
	ids   []string
	edges map[string][]string
}

type jsonFrom struct {
	Node string `json:"node"`
	When string `json:"when,omitempty"`
}
type jsonJoin struct {
	JoinID string     `json:"joinid"`
	Mode   any        `json:"mode,omitempty"`
	Wait   string     `json:"waitonjoin,omitempty"`
	From   []jsonFrom `json:"from"`
}
type jsonBranch struct {
	Spawns []string  `json:"spawns,omitempty"`
	Join   *jsonJoin `json:"join,omitempty"`
}
type jsonStep struct {
	Rule      string      `json:"rule"`
	OnValid   *jsonBranch `json:"onValid,omitempty"`
	OnInvalid *jsonBranch `json:"onInvalid,omitempty"`
}

func genSpec(r *rand.Rand, n int) randomSpec {
	spec := randomSpec{edges: map[string][]string{}}
	for i := 0; i < n; i++ {
		spec.ids = append(spec.ids, fmt.Sprintf("S%d", i))
	}
	pick := func() string { return spec.ids[r.Intn(n)] }
	structure := map[string]jsonStep{}
	for _, id := range spec.ids {
		st := jsonStep{Rule: "${addr:R}"}
		for b := 0; b < 2; b++ {
			if r.Intn(3) == 0 {
				continue
			}
			br := &jsonBranch{}
			for s := r.Intn(4); s > 0; s-- {
				br.Spawns = append(br.Spawns, pick())
			}
			if r.Intn(3) == 0 {
				j := &jsonJoin{JoinID: pick(), Wait: []string{"", "kill", "drain"}[r.Intn(3)]}
				for _, p := range r.Perm(n)[:1+r.Intn(min(n, 4))] {
					j.From = append(j.From, jsonFrom{Node: spec.ids[p], When: []string{"", "valid", "invalid", "any", "both"}[r.Intn(5)]})
				}
				switch r.Intn(3) {
				case 0:
					j.Mode = "all"
				case 1:
					j.Mode = map[string]int{"kofn": 1 + r.Intn(len(j.From))}
				}
				br.Join = j
				spec.edges[id] = append(spec.edges[id], j.JoinID)
			} else {
				spec.edges[id] = append(spec.edges[id], br.Spawns...)
			}
			if b == 0 {
				st.OnValid = br
			} else {
				st.OnInvalid = br
			}
		}
		structure[id] = st
	}
	raw, err := json.Marshal(map[string]any{"id": "random", "structure": structure})
	if err != nil {
		panic(err)
	}
	spec.raw = raw
	return spec
}

// bruteReach answers "to after ≥1 edge from from" by depth-first search.
func (s randomSpec) bruteReach(from, to string) bool {
	seen := map[string]bool{}
	stack := append([]string(nil), s.edges[from]...)
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if cur == to {
			return true
		}
		if !seen[cur] {
			seen[cur] = true
			stack = append(stack, s.edges[cur]...)
		}
	}
	return false
}

// The closure agrees with a brute-force search on random graphs, and Explain
// agrees with both (its path is a real path).
func TestClosureMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(729))
	for iter := 0; iter < 300; iter++ {
		spec := genSpec(r, 1+r.Intn(70))
		o, err := Parse(spec.raw)
		if err != nil {
			t.Fatalf("generated document rejected: %v", err)
		}
		for _, a := range spec.ids {
			got := map[string]bool{}
			for _, id := range o.Reachable(a) {
				got[id] = true
			}
			for _, b := range spec.ids {
				want := spec.bruteReach(a, b)
				if o.CanReach(a, b) != want || got[b] != want || o.CanReachIndex(o.Step(a).Index, o.Step(b).Index) != want {
					t.Fatalf("iter %d: CanReach(%s,%s) = %v, brute force %v\n%s", iter, a, b, o.CanReach(a, b), want, spec.raw)
				}
				if iter%10 == 0 {
					e, err := o.Explain(a, b)
					if err != nil || e.Reachable != want {
						t.Fatalf("Explain(%s,%s) = %+v, %v; want reachable=%v", a, b, e, err, want)
					}
					if want {
						checkPath(t, spec, a, b, e.Path)
					}
				}
			}
		}
	}
}

func checkPath(t *testing.T, spec randomSpec, from, to string, path []Edge) {
	t.Helper()
	if len(path) == 0 || path[0].From != from || path[len(path)-1].To != to {
		t.Fatalf("path %v does not run from %s to %s", path, from, to)
	}
	for i, e := range path {
		if i > 0 && path[i-1].To != e.From {
			t.Fatalf("path %v is broken at %d", path, i)
		}
		found := false
		for _, n := range spec.edges[e.From] {
			found = found || n == e.To
		}
		if !found {
			t.Fatalf("path %v uses a non-edge %v", path, e)
		}
	}
}

// Reachability never follows the spawns of a join-declaring branch: those
// processes start in a fresh join group (seed 002 §7).
func TestReachabilityStopsAtFreshJoinGroups(t *testing.T) {
	o := mustParse(t, string(readFile(t, "../examples/ostc/nested_join.json")))
	cases := []struct {
		from, to string
		want     bool
	}{
		{"A1", "G1", false}, // A1.onValid spawns G1 into the fresh group of J1
		{"A1", "H1", false},
		{"A1", "J1", true}, // the join target stays in A1's group
		{"A1", "J2", true}, // J1's join target, still the same group
		{"A1", "Z1", true}, // J2 spawns Z1 without a join: the group is inherited
		{"A1", "P1", false},
		{"J1", "P1", false},
		{"J1", "Z1", true},
		{"G1", "J1", false}, // a producer cannot reach its own join target
		{"Z1", "Z1", false},
		{"A1", "A1", false},
	}
	for _, c := range cases {
		if got := o.CanReach(c.from, c.to); got != c.want {
			t.Errorf("CanReach(%s, %s) = %v, want %v", c.from, c.to, got, c.want)
		}
	}
	// Backloops keep steps reachable (seed 001 §6.3).
	loop := mustParse(t, string(readFile(t, "../examples/ostc/kofn_backloop_kill.json")))
	for _, c := range [][2]string{{"B1", "C1"}, {"C1", "B1"}, {"B1", "B1"}} {
		if !loop.CanReach(c[0], c[1]) {
			t.Errorf("backloop: CanReach(%s, %s) = false", c[0], c[1])
		}
	}
}

func TestExplain(t *testing.T) {
	o := mustParse(t, string(readFile(t, "../examples/ostc/nested_join.json")))
	e, err := o.Explain("A1", "Z1")
	if err != nil || !e.Reachable || len(e.Path) != 3 {
		t.Fatalf("Explain(A1,Z1) = %+v, %v", e, err)
	}
	if want := "A1 -valid.join-> J1 -valid.join-> J2 -valid.spawn-> Z1"; !strings.Contains(e.Reason, want) {
		t.Errorf("reason %q lacks path %q", e.Reason, want)
	}
	e, _ = o.Explain("A1", "P1")
	if e.Reachable || !strings.Contains(e.Reason, "crosses at J1.onValid") || !strings.Contains(e.Reason, `join "J2"`) {
		t.Errorf("crossing reason: %+v", e)
	}
	e, _ = o.Explain("Z1", "A1")
	if e.Reachable || !strings.Contains(e.Reason, "no sequence") {
		t.Errorf("no-path reason: %+v", e)
	}
	if _, err := o.Explain("A1", "nope"); err == nil || !strings.Contains(err.Error(), `unknown step "nope"`) {
		t.Errorf("unknown step: %v", err)
	}
	// from == to needs a real cycle.
	loop := mustParse(t, string(readFile(t, "../examples/ostc/kofn_backloop_kill.json")))
	e, _ = loop.Explain("B1", "B1")
	if !e.Reachable || len(e.Path) != 2 {
		t.Errorf("Explain(B1,B1) = %+v", e)
	}
}

func ExampleOrchestration_Explain() {
	o, err := Parse([]byte(`{"id":"demo","structure":{
  "A1":{"rule":"${addr:A}","onValid":{"spawns":["B1"],"join":{"joinid":"J1","from":[{"node":"B1"}]}}},
  "B1":{"rule":"${addr:B}"},
  "J1":{"rule":"${addr:J}","onValid":{"spawns":["Z1"]}},
  "Z1":{"rule":"${addr:Z}"}}}`))
	if err != nil {
		panic(err)
	}
	for _, to := range []string{"Z1", "B1"} {
		e, _ := o.Explain("A1", to)
		fmt.Println(e.Reachable, e.Reason)
	}
	// Output:
	// true A1 reaches Z1 in 2 step(s) within one join group: A1 -valid.join-> J1 -valid.spawn-> Z1
	// false every path from A1 to B1 leaves the join group; the shortest, A1 -valid.spawn-> B1, crosses at A1.onValid, whose spawns start the fresh group of join "J1"
}
