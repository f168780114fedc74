package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
	"github.com/xgr-sidecar/xgr/redisconn"
)

// jsonReport is one file's entry in validate --json output.
type jsonReport struct {
	File          string            `json:"file"`
	OK            bool              `json:"ok"`
	ID            string            `json:"id"`
	Steps         int               `json:"steps"`
	Hash          string            `json:"hash"`
	Inputs        int               `json:"inputs"`
	APICalls      int               `json:"apiCalls"`
	ContractReads int               `json:"contractReads"`
	Rules         int               `json:"rules"`
	Errors        []jsondoc.Problem `json:"errors"`
	Warnings      []jsondoc.Problem `json:"warnings"`
}

func TestValidateExamples(t *testing.T) {
	files, _ := filepath.Glob("../../examples/ostc/*.json")
	out, code := run(t, append([]string{"ostc", "validate"}, files...)...)
	if code != 0 || strings.Count(out, ": ok: id ") != len(files) {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestValidateReportsEveryProblemWithPosition(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"id":"x","structure":{
  "A1":{"rule":"${addr:A}","onValid":{"spawns":["B9"],"join":{"joinid":"J1","mode":"most","from":[{"node":"B1"}]}}},
  "B1":{"rule":"${addr:B}"}}}`), 0o644)
	out, code := run(t, "ostc", "validate", bad)
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	for _, want := range []string{
		bad + `:2:49: error: structure.A1.onValid.spawns[0]: spawn target "B9" is not a step`,
		bad + `:2:72: error: structure.A1.onValid.join.joinid: join target "J1" is not a step`,
		bad + `:2:84: error: structure.A1.onValid.join.mode: mode "most" is not allowed`,
		bad + ": INVALID (3 errors",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	out, code = run(t, "ostc", "validate", "--json", bad, "../../examples/ostc/nested_join.json")
	var reports []jsonReport
	if err := json.Unmarshal([]byte(out[:strings.LastIndex(out, "]")+1]), &reports); err != nil || code != 1 {
		t.Fatalf("--json: exit %d, %v:\n%s", code, err, out)
	}
	if len(reports) != 2 || reports[0].OK || len(reports[0].Errors) != 3 || !reports[1].OK || reports[1].Hash == "" {
		t.Errorf("--json reports: %+v", reports)
	}
	if e := reports[0].Errors[0]; e.Line != 2 || e.Col != 49 || e.Code != "unknown-step" {
		t.Errorf("first error: %+v", e)
	}
}

// Join "mode", "waitonjoin" and from "when" are required by the spec: a
// document without them is valid (the defaults apply) but validate warns
// about each, with position and path; the examples carry every field.
func TestValidateWarnsAboutMissingJoinFields(t *testing.T) {
	f := writeFile(t, "defaults.json", `{"id":"d","structure":{
  "A1":{"rule":"${addr:A}","onValid":{"spawns":["B1","C1"],
    "join":{"joinid":"J1","from":[{"node":"B1","when":"valid"},{"node":"C1"}]}}},
  "B1":{"rule":"${addr:B}"},"C1":{"rule":"${addr:C}"},"J1":{"rule":"${addr:J}"}}}`)
	out, code := run(t, "ostc", "validate", f)
	for _, want := range []string{
		f + `:3:12: warning: structure.A1.onValid.join.mode: "mode" is missing; the orchestration spec requires it (§6.2), so xgr applies the default "any" (k=1); allowed: "any", "all", "kofn" with "k", {"k": n} or {"kofn": n}`,
		f + `:3:12: warning: structure.A1.onValid.join.waitonjoin: "waitonjoin" is missing; the orchestration spec requires it (§6.2), so xgr applies the default "drain" (producers still running when the join closes may finish); allowed: "kill", "drain"`,
		f + `:3:64: warning: structure.A1.onValid.join.from[1].when: "when" is missing; the orchestration spec requires it (§6.3), so xgr applies the default "any" (valid and invalid outcomes both deliver); allowed: "valid", "invalid", "any"`,
		f + ": ok: id d, 4 steps, hash ",
		", 3 warnings",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d; output lacks %q:\n%s", code, want, out)
		}
	}
	if out, code := run(t, "ostc", "validate", "--strict", f); code != 1 || !strings.Contains(out, "INVALID under --strict (3 warnings)") {
		t.Errorf("--strict: exit %d\n%s", code, out)
	}

	files, _ := filepath.Glob("../../examples/ostc/*.json")
	out, code = run(t, append([]string{"ostc", "validate", "--json"}, files...)...)
	var reports []jsonReport
	if err := json.Unmarshal([]byte(out), &reports); err != nil || code != 0 || len(reports) != len(files) {
		t.Fatalf("--json: exit %d, %v:\n%s", code, err, out)
	}
	for _, r := range reports {
		for _, w := range r.Warnings {
			if w.Code == "defaulted" {
				t.Errorf("%s: %s (the examples write every join field)", r.File, w)
			}
		}
	}
}

func TestValidateStrictAndBrokenJSON(t *testing.T) {
	quorum := "../../testdata/xgr-public/ApiPriceFeedQuorum/XRC729Json/ApiPriceFeedQuorumLoop.json"
	if _, code := run(t, "ostc", "validate", quorum); code != 0 {
		t.Fatalf("placeholder rule must only warn")
	}
	if out, code := run(t, "ostc", "validate", "--strict", quorum); code != 1 || !strings.Contains(out, "INVALID under --strict") {
		t.Fatalf("--strict: exit %d\n%s", code, out)
	}
	truncated := "../../testdata/xgr-public/IterationOfPi/XRC137Json/Iterationstep.json"
	out, code := run(t, "ostc", "validate", truncated)
	if code != 1 || !strings.Contains(out, truncated+":21:4: error: broken JSON: unexpected end of input") {
		t.Fatalf("truncated: exit %d\n%s", code, out)
	}
	if _, code := run(t, "ostc", "validate"); code != 2 {
		t.Errorf("no files: exit %d, want 2", code)
	}
}

func TestHash(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "empty.json")
	os.WriteFile(f, nil, 0o644)
	out, code := run(t, "ostc", "hash", f)
	if code != 0 || strings.TrimSpace(out) != "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470" {
		t.Fatalf("hash: %d %q", code, out)
	}
	out, _ = run(t, "ostc", "hash", "--json", f)
	if !strings.Contains(out, `"bytes":0`) {
		t.Errorf("hash --json: %s", out)
	}
}

func TestGraph(t *testing.T) {
	out, code := run(t, "ostc", "graph", "../../examples/ostc/nested_join.json")
	if code != 0 || !strings.HasPrefix(out, `digraph "nested_join_example" {`) {
		t.Fatalf("dot: %d\n%s", code, out)
	}
	dest := filepath.Join(t.TempDir(), "g.mmd")
	if _, code := run(t, "ostc", "graph", "-f", "mermaid", "-o", dest, "../../examples/ostc/nested_join.json"); code != 0 {
		t.Fatalf("mermaid: exit %d", code)
	}
	if b, _ := os.ReadFile(dest); !strings.HasPrefix(string(b), "flowchart LR") {
		t.Errorf("mermaid file: %s", b)
	}
	if out, code := run(t, "ostc", "graph", "../../examples/ostc/nested_join.json", "--format", "mermaid"); code != 0 || !strings.HasPrefix(out, "flowchart LR") {
		t.Errorf("flag after the file: %d %s", code, out)
	}
	if out, code := run(t, "ostc", "graph", "../../examples/ostc/nested_join.json", "--nope"); code != 2 || !strings.Contains(out, "flag provided but not defined: -nope") {
		t.Errorf("unknown flag after the file: %d %s", code, out)
	}
	if out, code := run(t, "ostc", "graph", "-f", "svg", "../../examples/ostc/nested_join.json"); code != 2 || !strings.Contains(out, "use dot or mermaid") {
		t.Errorf("bad format: %d %s", code, out)
	}
}

func TestReach(t *testing.T) {
	f := "../../examples/ostc/nested_join.json"
	out, code := run(t, "ostc", "reach", f, "A1", "Z1")
	if code != 0 || !strings.HasPrefix(out, "yes: A1 reaches Z1") {
		t.Fatalf("A1→Z1: %d %s", code, out)
	}
	out, code = run(t, "ostc", "reach", f, "A1", "P1")
	if code != 1 || !strings.HasPrefix(out, "no: every path from A1 to P1 leaves the join group") {
		t.Fatalf("A1→P1: %d %s", code, out)
	}
	out, code = run(t, "ostc", "reach", "--json", f, "A1", "J2")
	if code != 0 || !strings.Contains(out, `"path":[{"from":"A1","to":"J1","branch":"onValid","kind":"join"},{"from":"J1","to":"J2","branch":"onValid","kind":"join"}]`) {
		t.Fatalf("--json: %d %s", code, out)
	}
	if out, code := run(t, "ostc", "reach", f, "A1", "nope"); code != 2 || !strings.Contains(out, `unknown step "nope"`) {
		t.Errorf("unknown step: %d %s", code, out)
	}
}

func TestVersion(t *testing.T) {
	out, code := run(t, "version")
	if code != 0 || !strings.HasPrefix(out, "xgr dev (revision ") {
		t.Fatalf("version: %d %s", code, out)
	}
	if !strings.Contains(out, "redis schema "+redisconn.SchemaVersion+" (shares Redis with schema "+redisconn.SchemaCompatibleSince+" or later)") {
		t.Errorf("version: %s, want the redis schema", out)
	}
	out, _ = run(t, "version", "--json")
	if !strings.Contains(out, `"version":"dev"`) || !strings.Contains(out, `"redisSchema":`+redisconn.SchemaVersion) {
		t.Errorf("version --json: %s", out)
	}
	if out, code := run(t, "--log-level", "loud", "version"); code != 2 || !strings.Contains(out, "--log-level") {
		t.Errorf("bad log level: %d %s", code, out)
	}
}
