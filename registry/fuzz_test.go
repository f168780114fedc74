package registry

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Parse: it must never panic, and what it
// accepts must satisfy the model's invariants.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../examples/ostc/*.json")
	more, _ := filepath.Glob("testdata/*.jsonc")
	for _, file := range append(files, more...) {
		if raw, err := os.ReadFile(file); err == nil {
			f.Add(raw)
		}
	}
	f.Add([]byte(`{"id":"x","structure":{"A":{"rule":"r","onValid":{"spawns":["A"],"join":{"joinid":"A","mode":{"k":1},"from":[{"node":"A"}]}}}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		o, err := Parse(raw)
		if err != nil {
			if _, ok := err.(*ValidationError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		checkInvariants(t, o)
	})
}

func checkInvariants(t *testing.T, o *Orchestration) {
	t.Helper()
	if o.Hash != Hash(o.Raw()) || len(o.Steps) == 0 || len(o.Steps) > MaxSteps {
		t.Fatalf("bad header: %d steps", len(o.Steps))
	}
	for i, s := range o.Steps {
		if s.Index != i || o.Step(s.ID) != s || checkIdentifier(s.ID) != "" || s.Rule == "" {
			t.Fatalf("bad step %d: %+v", i, s)
		}
		for _, b := range s.Branches() {
			if len(b.Spawns) > MaxSpawnsPerBranch {
				t.Fatalf("too many spawns")
			}
			for _, sp := range b.Spawns {
				if o.Step(sp) == nil {
					t.Fatalf("dangling spawn %q", sp)
				}
			}
			if j := b.Join; j != nil {
				if o.Step(j.Target) == nil || j.K < 1 || j.K > len(j.From) || len(j.From) > MaxJoinInputs {
					t.Fatalf("bad join %+v", j)
				}
				seen := map[string]bool{}
				for _, f := range j.From {
					if o.Step(f.Node) == nil || seen[f.Node] {
						t.Fatalf("bad from %+v", f)
					}
					seen[f.Node] = true
				}
			}
			for _, e := range edges(s, false) {
				if !o.CanReach(e.From, e.To) {
					t.Fatalf("edge %v missing from the closure", e)
				}
			}
		}
	}
}
