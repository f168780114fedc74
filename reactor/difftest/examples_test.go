package difftest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/xgr-sidecar/xgr/registry"
)

// Every orchestration in examples/ostc, with every outcome file in
// examples/outcomes, ends the same under the replicas as under the Runner.
func TestExamplesAgree(t *testing.T) {
	ostcs, _ := filepath.Glob("../../examples/ostc/*.json")
	docs, _ := filepath.Glob("../../examples/outcomes/*.json")
	if len(ostcs) == 0 || len(docs) == 0 {
		t.Fatalf("no examples found (%d orchestrations, %d outcome files)", len(ostcs), len(docs))
	}
	var cases []kase
	for _, f := range ostcs {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		o, err := registry.Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, d := range docs {
			raw, err := os.ReadFile(d)
			if err != nil {
				t.Fatal(err)
			}
			oc, err := parseOutcomes(raw)
			if err != nil {
				t.Fatalf("%s: %v", d, err)
			}
			cases = append(cases, kase{name: filepath.Base(f) + " with " + filepath.Base(d), orch: fromRegistry(o), outcomes: oc})
		}
	}
	e := newEnv(t)
	ch := make(chan kase, len(cases))
	for _, k := range cases {
		ch <- k
	}
	close(ch)
	var st stats
	e.checkAll(context.Background(), ch, 4, func(k kase) string { return "examples/ostc and examples/outcomes" }, func(msg string) { t.Error(msg) }, &st)
	t.Log(st.String())
	if st.compared.Load() == 0 {
		t.Fatal("no example could be compared")
	}
}
