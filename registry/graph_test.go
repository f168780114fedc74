package registry

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/internal/toolbin"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestGraphGolden(t *testing.T) {
	for _, name := range []string{"nested_join", "parallel_enrichment_all_kill", "kofn_backloop_kill"} {
		o := mustParse(t, string(readFile(t, "../examples/ostc/"+name+".json")))
		for ext, write := range map[string]func(*bytes.Buffer) error{
			"dot": func(b *bytes.Buffer) error { return o.WriteDOT(b) },
			"mmd": func(b *bytes.Buffer) error { return o.WriteMermaid(b) },
		} {
			var b bytes.Buffer
			if err := write(&b); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", name+"."+ext)
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./registry -run Golden -update)", err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("%s differs from the golden file; got:\n%s", golden, b.String())
			}
		}
	}
}

func TestGraphContent(t *testing.T) {
	o := mustParse(t, string(readFile(t, "../examples/ostc/parallel_enrichment_all_kill.json")))
	var dot, mmd bytes.Buffer
	if err := o.WriteDOT(&dot); err != nil {
		t.Fatal(err)
	}
	if err := o.WriteMermaid(&mmd); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"J1" [label="J1\n${addr:XRC137_J}\njoin all k=2/2 kill (A1.onValid)", peripheries=2`,
		`"A1" -> "B1" [label="valid", color="#2e7d32"`,
		`"E1" -> "J1" [label="from (valid)"`,
		`"B1" -> "J1" [label="from (any)"`,
	} {
		if !strings.Contains(dot.String(), want) {
			t.Errorf("DOT lacks %q:\n%s", want, dot.String())
		}
	}
	for _, want := range []string{
		"flowchart LR",
		`s3[["J1<br/><small>${addr:XRC137_J}</small><br/>join all k=2/2 kill (A1.onValid)"]]`,
		`s0 ==>|"valid: join all k=2/2 kill"| s3`,
		`s2 -.-o|"from (valid)"| s3`,
	} {
		if !strings.Contains(mmd.String(), want) {
			t.Errorf("Mermaid lacks %q:\n%s", want, mmd.String())
		}
	}
	// Invalid edges are drawn apart from valid ones.
	inv := mustParse(t, doc(`"A1":{"rule":"x","onInvalid":{"spawns":["B1"]}},"B1":{"rule":"x"}`))
	dot.Reset()
	mmd.Reset()
	_ = inv.WriteDOT(&dot)
	_ = inv.WriteMermaid(&mmd)
	if !strings.Contains(dot.String(), `label="invalid", color="#c62828", fontcolor="#c62828", style=dashed`) ||
		!strings.Contains(mmd.String(), `s0 -.->|"invalid"| s1`) {
		t.Errorf("invalid edge styling missing:\n%s\n%s", dot.String(), mmd.String())
	}
}

// Every example's DOT output renders with Graphviz.
func TestDOTRendersWithGraphviz(t *testing.T) {
	dot, err := toolbin.Find("dot")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../examples/ostc/*.json")
	for _, f := range files {
		o := mustParse(t, string(readFile(t, f)))
		var b bytes.Buffer
		if err := o.WriteDOT(&b); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(dot, "-Tsvg")
		cmd.Stdin = &b
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("<svg")) {
			t.Errorf("%s: dot failed: %v\n%s", f, err, out)
		}
	}
}
