package registry

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// sharedFixtures holds published XGR documents (testdata/xgr-public, see its NOTICE.md).
const sharedFixtures = "../testdata/xgr-public"

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return raw
}

func mustParse(t *testing.T, raw string) *Orchestration {
	t.Helper()
	o, err := Parse([]byte(raw))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return o
}

func problemsOf(t *testing.T, raw string) *ValidationError {
	t.Helper()
	_, err := Parse([]byte(raw))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Parse accepted a document it should reject (err=%v):\n%s", err, raw)
	}
	return ve
}

func TestExamplesAndPublicFixturesValidate(t *testing.T) {
	files, _ := filepath.Glob("../examples/ostc/*.json")
	public, _ := filepath.Glob(filepath.Join(sharedFixtures, "*", "XRC729Json", "*.json"))
	if len(files) < 8 || len(public) != 3 {
		t.Fatalf("found %d examples and %d public fixtures; want ≥8 and 3", len(files), len(public))
	}
	for _, f := range append(files, public...) {
		raw := readFile(t, f)
		o, err := Parse(raw)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if o.Hash != Hash(raw) || len(o.Steps) == 0 || o.ID == "" {
			t.Errorf("%s: hash/steps/id not set: %+v", f, o)
		}
	}
}

// The examples that complete the seed fragments (002 §4, §6.1, §13) contain
// the seeds' text verbatim, up to white space.
func TestExamplesContainSeedFragments(t *testing.T) {
	squash := regexp.MustCompile(`\s+`)
	for fragment, example := range map[string]string{
		"testdata/seed002_s6.1_branch.jsonc":  "../examples/ostc/kofn_three_sources.json",
		"testdata/seed002_s13_fragment.jsonc": "../examples/ostc/minimal_join.json",
	} {
		want := squash.ReplaceAllString(strings.TrimSpace(string(readFile(t, fragment))), "")
		got := squash.ReplaceAllString(string(readFile(t, example)), "")
		if !strings.Contains(got, want) {
			t.Errorf("%s does not contain the seed fragment %s", example, fragment)
		}
	}
}

func TestSeedExampleSemantics(t *testing.T) {
	type want struct {
		step, branch string
		target       string
		mode         Mode
		k            int
		policy       Policy
		from         string // node:when,...
	}
	cases := map[string]want{
		"order_flow_any_drain.json":         {"A1", "onValid", "J1", ModeAny, 1, PolicyDrain, "D1:valid"},
		"parallel_enrichment_all_kill.json": {"A1", "onValid", "J1", ModeAll, 2, PolicyKill, "B1:any,E1:valid"},
		"kofn_backloop_kill.json":           {"A1", "onValid", "J1", ModeKofN, 2, PolicyKill, "B1:valid,C1:valid"},
		"when_filter.json":                  {"A1", "onValid", "J1", ModeAny, 1, PolicyDrain, "B1:valid,C1:invalid"},
		"nested_join.json":                  {"J1", "onValid", "J2", ModeAll, 2, PolicyKill, "P1:valid,Q1:valid"},
		"kofn_three_sources.json":           {"A1", "onValid", "J1", ModeKofN, 2, PolicyKill, "G1:valid,H1:valid,I1:any"},
		"minimal_join.json":                 {"A1", "onValid", "J1", ModeAny, 1, PolicyKill, "G1:valid,H1:valid"},
	}
	for file, w := range cases {
		o := mustParse(t, string(readFile(t, "../examples/ostc/"+file)))
		b := o.Step(w.step).OnValid
		if w.branch != "onValid" || b == nil || b.Join == nil {
			t.Fatalf("%s: %s.%s has no join", file, w.step, w.branch)
		}
		j := b.Join
		var from []string
		for _, f := range j.From {
			from = append(from, f.Node+":"+f.When.String())
		}
		if j.Target != w.target || j.Mode != w.mode || j.K != w.k || j.Policy != w.policy || strings.Join(from, ",") != w.from {
			t.Errorf("%s: join = %+v (from %v), want %+v", file, *j, from, w)
		}
	}
}

func TestBrokenJSONIsRejectedWithLineAndColumn(t *testing.T) {
	cases := []struct {
		file      string
		line, col int
		contains  string
	}{
		// The public IterationOfPi rule document is truncated: its closing brace is missing.
		{filepath.Join(sharedFixtures, "IterationOfPi/XRC137Json/Iterationstep.json"), 21, 4, "opened at 1:1 is not closed"},
		// Seed 002 §4 is JSONC: a comment stands where the join would be.
		{"testdata/seed002_s4_with_comment.jsonc", 6, 48, "comments are not allowed"},
	}
	for _, c := range cases {
		ve := problemsOf(t, string(readFile(t, c.file)))
		if len(ve.Problems) != 1 {
			t.Fatalf("%s: want one syntax problem, got %v", c.file, ve.Problems)
		}
		p := ve.Problems[0]
		if p.Code != CodeSyntax || p.Line != c.line || p.Col != c.col || !strings.Contains(p.Message, c.contains) {
			t.Errorf("%s: got %+v; want syntax at %d:%d containing %q", c.file, p, c.line, c.col, c.contains)
		}
	}
}

// doc builds a small orchestration around the given step definitions.
func doc(steps string) string {
	return `{"id":"t","structure":{` + steps + `}}`
}

const leaves = `"B1":{"rule":"${addr:B}"},"C1":{"rule":"${addr:C}"},"J1":{"rule":"${addr:J}"}`

func withJoin(join string) string {
	return doc(`"A1":{"rule":"${addr:A}","onValid":{"spawns":["B1","C1"],"join":` + join + `}},` + leaves)
}

func TestValidationProblems(t *testing.T) {
	cases := []struct {
		name string
		raw  string
		code string
		path string
		msg  string
	}{
		{"not an object", `[1,2]`, CodeType, "", "expected an object"},
		{"missing id", `{"structure":{"A":{"rule":"x"}}}`, CodeRequired, "id", "missing \"id\""},
		{"missing structure", `{"id":"x"}`, CodeRequired, "structure", "missing \"structure\""},
		{"empty structure", `{"id":"x","structure":{}}`, CodeRequired, "structure", "no steps"},
		{"structure wrong type", `{"id":"x","structure":[]}`, CodeType, "structure", "found array"},
		{"missing rule", doc(`"A1":{}`), CodeRequired, "structure.A1.rule", "no \"rule\""},
		{"empty rule", doc(`"A1":{"rule":""}`), CodeRequired, "structure.A1.rule", "rule is empty"},
		{"rule wrong type", doc(`"A1":{"rule":7}`), CodeType, "structure.A1.rule", "found number"},
		{"step id with space", doc(`"A 1":{"rule":"x"}`), CodeIdentifier, `structure["A 1"]`, "outside [A-Za-z0-9_-]"},
		{"step id too long", doc(`"` + strings.Repeat("a", 65) + `":{"rule":"x"}`), CodeIdentifier, "structure." + strings.Repeat("a", 65), "at most 64"},
		{"duplicate step", doc(`"A1":{"rule":"x"},"A1":{"rule":"y"}`), CodeDuplicate, "structure.A1", "defined twice (first at 1:24)"},
		{"duplicate member", doc(`"A1":{"rule":"x","rule":"y"}`), CodeDuplicate, "structure.A1.rule", "appears twice"},
		{"unknown spawn", doc(`"A1":{"rule":"x","onValid":{"spawns":["X9"]}}`), CodeUnknownStep, "structure.A1.onValid.spawns[0]", `"X9" is not a step`},
		{"spawns wrong type", doc(`"A1":{"rule":"x","onInvalid":{"spawns":"A1"}}`), CodeType, "structure.A1.onInvalid.spawns", "expected an array"},
		{"spawn not identifier", doc(`"A1":{"rule":"x","onValid":{"spawns":["a.b"]}}`), CodeIdentifier, "structure.A1.onValid.spawns[0]", "outside"},
		{"unknown joinid", withJoin(`{"joinid":"Q","from":[{"node":"B1"}]}`), CodeUnknownStep, "structure.A1.onValid.join.joinid", `join target "Q"`},
		{"missing joinid", withJoin(`{"from":[{"node":"B1"}]}`), CodeRequired, "structure.A1.onValid.join.joinid", "no \"joinid\""},
		{"missing from", withJoin(`{"joinid":"J1"}`), CodeRequired, "structure.A1.onValid.join.from", "no \"from\""},
		{"empty from", withJoin(`{"joinid":"J1","from":[]}`), CodeRequired, "structure.A1.onValid.join.from", "at least one"},
		{"unknown from node", withJoin(`{"joinid":"J1","from":[{"node":"B1"},{"node":"Z9"}]}`), CodeUnknownStep, "structure.A1.onValid.join.from[1].node", `from target "Z9"`},
		{"from without node", withJoin(`{"joinid":"J1","from":[{"when":"valid"}]}`), CodeRequired, "structure.A1.onValid.join.from[0].node", "no \"node\""},
		{"duplicate from", withJoin(`{"joinid":"J1","from":[{"node":"B1"},{"node":"B1","when":"valid"}]}`), CodeDuplicate, "structure.A1.onValid.join.from[1].node", "listed twice (also at structure.A1.onValid.join.from[0])"},
		{"bad when", withJoin(`{"joinid":"J1","from":[{"node":"B1","when":"maybe"}]}`), CodeWhen, "structure.A1.onValid.join.from[0].when", `when "maybe" is not allowed`},
		{"bad policy", withJoin(`{"joinid":"J1","waitonjoin":"stop","from":[{"node":"B1"}]}`), CodePolicy, "structure.A1.onValid.join.waitonjoin", `"stop" is not allowed`},
		{"policy wrong type", withJoin(`{"joinid":"J1","waitonjoin":true,"from":[{"node":"B1"}]}`), CodeType, "structure.A1.onValid.join.waitonjoin", "found boolean"},
		{"bad mode", withJoin(`{"joinid":"J1","mode":"most","from":[{"node":"B1"}]}`), CodeMode, "structure.A1.onValid.join.mode", `mode "most" is not allowed`},
		{"mode wrong type", withJoin(`{"joinid":"J1","mode":2,"from":[{"node":"B1"}]}`), CodeType, "structure.A1.onValid.join.mode", "found number"},
		{"kofn without k", withJoin(`{"joinid":"J1","mode":"kofn","from":[{"node":"B1"}]}`), CodeK, "structure.A1.onValid.join.k", "needs \"k\""},
		{"k zero", withJoin(`{"joinid":"J1","mode":"kofn","k":0,"from":[{"node":"B1"}]}`), CodeK, "structure.A1.onValid.join.k", "between 1 and 1"},
		{"k above n", withJoin(`{"joinid":"J1","mode":{"k":3},"from":[{"node":"B1"},{"node":"C1"}]}`), CodeK, "structure.A1.onValid.join.mode", "k=3 is out of range; it must be between 1 and 2"},
		{"k fraction", withJoin(`{"joinid":"J1","mode":{"kofn":1.5},"from":[{"node":"B1"}]}`), CodeK, "structure.A1.onValid.join.mode.kofn", "whole number"},
		{"k negative", withJoin(`{"joinid":"J1","mode":"kofn","k":-1,"from":[{"node":"B1"}]}`), CodeK, "structure.A1.onValid.join.k", "whole number"},
		{"mode object empty", withJoin(`{"joinid":"J1","mode":{},"from":[{"node":"B1"}]}`), CodeMode, "structure.A1.onValid.join.mode", "needs \"k\" or \"kofn\""},
		{"mode object conflicting", withJoin(`{"joinid":"J1","mode":{"k":1,"kofn":2},"from":[{"node":"B1"},{"node":"C1"}]}`), CodeK, "structure.A1.onValid.join.mode.kofn", "different values"},
		{"k contradicts all", withJoin(`{"joinid":"J1","mode":"all","k":1,"from":[{"node":"B1"},{"node":"C1"}]}`), CodeK, "structure.A1.onValid.join.k", `k is 1 but mode "all" means k=2`},
		{"branch wrong type", doc(`"A1":{"rule":"x","onValid":[]}`), CodeType, "structure.A1.onValid", "expected a branch object"},
		{"join wrong type", doc(`"A1":{"rule":"x","onValid":{"join":"J1"}}`), CodeType, "structure.A1.onValid.join", "expected a join object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ve := problemsOf(t, c.raw)
			for _, p := range ve.Problems {
				if p.Code == c.code && p.Path == c.path && strings.Contains(p.Message, c.msg) {
					if p.Line == 0 && c.path != "" {
						t.Errorf("problem has no line:column: %+v", p)
					}
					return
				}
			}
			t.Errorf("no problem {%s %s %q} among:\n%v", c.code, c.path, c.msg, ve.Error())
		})
	}
}

func TestEveryProblemIsReported(t *testing.T) {
	raw := doc(`"A1":{"rule":"x","onValid":{"spawns":["X1","X2"],"join":{"joinid":"X3","mode":"most","from":[{"node":"X4","when":"no"}]}}},"b c":{}`)
	ve := problemsOf(t, raw)
	codes := map[string]int{}
	for _, p := range ve.Problems {
		codes[p.Code]++
	}
	want := map[string]int{CodeUnknownStep: 4, CodeMode: 1, CodeWhen: 1, CodeIdentifier: 1, CodeRequired: 1}
	for code, n := range want {
		if codes[code] != n {
			t.Errorf("code %s: %d problems, want %d; all:\n%v", code, codes[code], n, ve.Error())
		}
	}
}

func TestLimits(t *testing.T) {
	var b strings.Builder
	for i := 0; i <= MaxSteps; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"S` + strconv.Itoa(i) + `":{"rule":"x"}`)
	}
	ve := problemsOf(t, doc(b.String()))
	if !hasCode(ve.Problems, CodeLimit, "structure") {
		t.Errorf("129 steps accepted: %v", ve.Problems)
	}

	spawns := strings.TrimSuffix(strings.Repeat(`"A1",`, MaxSpawnsPerBranch+1), ",")
	ve = problemsOf(t, doc(`"A1":{"rule":"x","onValid":{"spawns":[`+spawns+`]}}`))
	if !hasCode(ve.Problems, CodeLimit, "structure.A1.onValid.spawns") {
		t.Errorf("33 spawns accepted: %v", ve.Problems)
	}
	// Exactly at the cap is fine.
	spawns = strings.TrimSuffix(strings.Repeat(`"A1",`, MaxSpawnsPerBranch), ",")
	mustParse(t, doc(`"A1":{"rule":"x","onValid":{"spawns":[`+spawns+`]}}`))

	var steps, from strings.Builder
	for i := 0; i <= MaxJoinInputs; i++ {
		steps.WriteString(`"P` + strconv.Itoa(i) + `":{"rule":"x"},`)
		if i > 0 {
			from.WriteByte(',')
		}
		from.WriteString(`{"node":"P` + strconv.Itoa(i) + `"}`)
	}
	ve = problemsOf(t, doc(steps.String()+`"A1":{"rule":"x","onValid":{"spawns":["P0"],"join":{"joinid":"A1","from":[`+from.String()+`]}}}`))
	if !hasCode(ve.Problems, CodeLimit, "structure.A1.onValid.join.from") {
		t.Errorf("33 join inputs accepted: %v", ve.Problems)
	}

	big := `{"id":"t","structure":{"A1":{"rule":"x"}},"pad":"` + strings.Repeat("x", MaxOSTCBytes) + `"}`
	ve = problemsOf(t, big)
	if len(ve.Problems) != 1 || ve.Problems[0].Code != CodeTooLarge {
		t.Errorf("oversized document: %v", ve.Problems)
	}
}

func hasCode(ps []Problem, code, path string) bool {
	for _, p := range ps {
		if p.Code == code && p.Path == path {
			return true
		}
	}
	return false
}

func TestModeForms(t *testing.T) {
	from3 := `"from":[{"node":"B1"},{"node":"C1","when":""},{"node":"J1","when":"both"}]`
	cases := []struct {
		join string
		mode Mode
		k    int
		warn string
	}{
		{`{"joinid":"J1",` + from3 + `}`, ModeAny, 1, ""},
		{`{"joinid":"J1","mode":"any",` + from3 + `}`, ModeAny, 1, ""},
		{`{"joinid":"J1","mode":"all",` + from3 + `}`, ModeAll, 3, ""},
		{`{"joinid":"J1","mode":"kofn","k":2,` + from3 + `}`, ModeKofN, 2, ""},
		{`{"joinid":"J1","mode":{"k":2},` + from3 + `}`, ModeKofN, 2, ""},
		{`{"joinid":"J1","mode":{"kofn":3},` + from3 + `}`, ModeKofN, 3, ""},
		{`{"joinid":"J1","mode":null,` + from3 + `}`, ModeAny, 1, ""},
		{`{"joinid":"J1","k":2,` + from3 + `}`, ModeKofN, 2, CodeDefaulted},
		{`{"joinid":"J1","mode":"all","k":3,` + from3 + `}`, ModeAll, 3, CodeRedundant},
		{`{"joinid":"J1","mode":{"kofn":2},"k":2,` + from3 + `}`, ModeKofN, 2, CodeRedundant},
	}
	for _, c := range cases {
		o := mustParse(t, withJoin(c.join))
		j := o.Step("A1").OnValid.Join
		if j.Mode != c.mode || j.K != c.k {
			t.Errorf("%s: mode %v k %d, want %v %d", c.join, j.Mode, j.K, c.mode, c.k)
		}
		for _, f := range j.From {
			if f.When != WhenAny {
				t.Errorf("%s: from %s when %v, want any", c.join, f.Node, f.When)
			}
		}
		if j.Policy != PolicyDrain {
			t.Errorf("%s: default policy %v, want drain", c.join, j.Policy)
		}
		if c.warn != "" && !hasCodeAny(o.Warnings, c.warn) {
			t.Errorf("%s: want warning %s, got %v", c.join, c.warn, o.Warnings)
		}
	}
}

func hasCodeAny(ps []Problem, code string) bool {
	for _, p := range ps {
		if p.Code == code {
			return true
		}
	}
	return false
}

func TestWarnings(t *testing.T) {
	raw := `{"id":"t","name":"Flow","meta":{"v":1},"structure":{
  "A1":{"rule":"<A-Addr>","address":"0x0","onValid":{"spawns":["B1","B1"],"note":1}},
  "B1":{"rule":"0x...B","onInvalid":{"spawns":["B1"],"join":{"joinid":"A1","waitOnJoin":"kill","from":[{"node":"C9","when":"valid","label":"x"}]}}},
  "C9":{"rule":"${addr:C}"}}}`
	o := mustParse(t, raw)
	want := []struct{ code, path string }{
		{CodeUnknownField, "name"},
		{CodeUnknownField, "meta"},
		{CodeRule, "structure.A1.rule"},
		{CodeUnknownField, "structure.A1.address"},
		{CodeSpawnRepeated, "structure.A1.onValid.spawns[1]"},
		{CodeUnknownField, "structure.A1.onValid.note"},
		{CodeRule, "structure.B1.rule"},
		{CodeUnknownField, "structure.B1.onInvalid.join.waitOnJoin"},
		{CodeUnknownField, "structure.B1.onInvalid.join.from[0].label"},
		{CodeJoinScope, "structure.B1.onInvalid.join.from[0].node"},
		{CodeJoinNeverMet, "structure.B1.onInvalid.join"},
	}
	for _, w := range want {
		if !hasCode(o.Warnings, w.code, w.path) {
			t.Errorf("missing warning %s at %s; got:\n%v", w.code, w.path, o.Warnings)
		}
	}
	if o.Step("B1").OnInvalid.Join.Policy != PolicyKill {
		t.Errorf("waitOnJoin alias not honoured")
	}
	if p := o.Warnings[0]; p.Line != 1 || p.Col != 11 {
		t.Errorf("first warning at %d:%d, want 1:11", p.Line, p.Col)
	}
}

// Seed 002 §7.4's pitfall: a join over producers spawned earlier belongs to
// another group and can never close.
func TestJoinOverForeignProducersWarns(t *testing.T) {
	raw := doc(`"A1":{"rule":"x","onValid":{"spawns":["G1"],"join":{"joinid":"J1","from":[{"node":"G1"}]}}},
"G1":{"rule":"x","onValid":{"spawns":["P1","Q1"]}},
"J1":{"rule":"x","onValid":{"spawns":["Z1"],"join":{"joinid":"J2","mode":"all","from":[{"node":"P1"},{"node":"Q1"}]}}},
"P1":{"rule":"x"},"Q1":{"rule":"x"},"J2":{"rule":"x"},"Z1":{"rule":"x"}`)
	o := mustParse(t, raw)
	if !hasCode(o.Warnings, CodeJoinNeverMet, "structure.J1.onValid.join") ||
		!hasCode(o.Warnings, CodeJoinScope, "structure.J1.onValid.join.from[1].node") {
		t.Errorf("pitfall not reported: %v", o.Warnings)
	}
	if hasCode(o.Warnings, CodeJoinNeverMet, "structure.A1.onValid.join") {
		t.Errorf("satisfiable join reported unfulfillable: %v", o.Warnings)
	}
}

func TestValidationErrorMessage(t *testing.T) {
	ve := problemsOf(t, doc(`"A1":{"rule":"x","onValid":{"spawns":["Q"]}}`))
	msg := ve.Error()
	if !strings.HasPrefix(msg, "invalid orchestration: 1:") || !strings.Contains(msg, "structure.A1.onValid.spawns[0]") {
		t.Errorf("message %q lacks position or path", msg)
	}
}

// Seed 002 §6.2/§6.3 require join "mode", "waitonjoin" and each from
// entry's "when". A missing (or null) one gets its default and a warning
// that says where (path, line:col), which default applied and what is
// allowed; a join with every field has none.
func TestMissingJoinFieldsWarn(t *testing.T) {
	const complete = `"from":[{"node":"B1","when":"valid"},{"node":"C1","when":"any"}]`
	type want struct {
		path  string
		after string // the warning is located right after this text
		msg   string
	}
	modeMsg := `"mode" is missing; the orchestration spec requires it (§6.2), so xgr applies the default "any" (k=1); allowed: "any", "all", "kofn" with "k", {"k": n} or {"kofn": n}`
	policyMsg := `"waitonjoin" is missing; the orchestration spec requires it (§6.2), so xgr applies the default "drain" (producers still running when the join closes may finish); allowed: "kill", "drain"`
	whenMsg := `"when" is missing; the orchestration spec requires it (§6.3), so xgr applies the default "any" (valid and invalid outcomes both deliver); allowed: "valid", "invalid", "any"`
	cases := []struct {
		name   string
		join   string
		mode   Mode
		policy Policy
		whens  string
		want   []want
	}{
		{"every field", `{"joinid":"J1","mode":"all","waitonjoin":"kill",` + complete + `}`, ModeAll, PolicyKill, "valid,any", nil},
		{"every field, kofn object", `{"joinid":"J1","mode":{"kofn":1},"waitonjoin":"drain",` + complete + `}`, ModeKofN, PolicyDrain, "valid,any", nil},
		{"when empty means any", `{"joinid":"J1","mode":"any","waitonjoin":"kill","from":[{"node":"B1","when":""}]}`, ModeAny, PolicyKill, "any", nil},
		{"mode missing", `{"joinid":"J1","waitonjoin":"kill",` + complete + `}`, ModeAny, PolicyKill, "valid,any",
			[]want{{"structure.A1.onValid.join.mode", `"join":`, modeMsg}}},
		{"mode null", `{"joinid":"J1","mode":null,"waitonjoin":"kill",` + complete + `}`, ModeAny, PolicyKill, "valid,any",
			[]want{{"structure.A1.onValid.join.mode", `"mode":`, `"mode" is null; the orchestration spec requires it (§6.2), so xgr applies the default "any" (k=1)`}}},
		{"mode missing, k given", `{"joinid":"J1","k":2,"waitonjoin":"kill",` + complete + `}`, ModeKofN, PolicyKill, "valid,any",
			[]want{{"structure.A1.onValid.join.mode", `"join":`, `"mode" is missing; the orchestration spec requires it (§6.2), so xgr applies the default "kofn", read from the given "k"; allowed: "any", "all"`}}},
		{"waitonjoin missing", `{"joinid":"J1","mode":"all",` + complete + `}`, ModeAll, PolicyDrain, "valid,any",
			[]want{{"structure.A1.onValid.join.waitonjoin", `"join":`, policyMsg}}},
		{"waitonjoin null", `{"joinid":"J1","mode":"all","waitonjoin":null,` + complete + `}`, ModeAll, PolicyDrain, "valid,any",
			[]want{{"structure.A1.onValid.join.waitonjoin", `"waitonjoin":`, `"waitonjoin" is null;`}}},
		{"waitOnJoin null", `{"joinid":"J1","mode":"all","waitOnJoin":null,` + complete + `}`, ModeAll, PolicyDrain, "valid,any",
			[]want{{"structure.A1.onValid.join.waitOnJoin", `"waitOnJoin":`, `"waitonjoin" is null;`}}},
		{"waitOnJoin spelling is not missing", `{"joinid":"J1","mode":"all","waitOnJoin":"kill",` + complete + `}`, ModeAll, PolicyKill, "valid,any", nil},
		{"when missing", `{"joinid":"J1","mode":"any","waitonjoin":"kill","from":[{"node":"B1","when":"valid"},{"node":"C1"}]}`, ModeAny, PolicyKill, "valid,any",
			[]want{{"structure.A1.onValid.join.from[1].when", `{"node":"B1","when":"valid"},`, whenMsg}}},
		{"when null", `{"joinid":"J1","mode":"any","waitonjoin":"kill","from":[{"node":"B1","when":null}]}`, ModeAny, PolicyKill, "any",
			[]want{{"structure.A1.onValid.join.from[0].when", `"when":`, `"when" is null;`}}},
		{"all missing", `{"joinid":"J1","from":[{"node":"B1"},{"node":"C1"}]}`, ModeAny, PolicyDrain, "any,any",
			[]want{
				{"structure.A1.onValid.join.mode", `"join":`, modeMsg},
				{"structure.A1.onValid.join.waitonjoin", `"join":`, policyMsg},
				{"structure.A1.onValid.join.from[0].when", `"from":[`, whenMsg},
				{"structure.A1.onValid.join.from[1].when", `{"node":"B1"},`, whenMsg},
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := withJoin(c.join)
			o := mustParse(t, raw)
			j := o.Step("A1").OnValid.Join
			var whens []string
			for _, f := range j.From {
				whens = append(whens, f.When.String())
			}
			if j.Mode != c.mode || j.Policy != c.policy || strings.Join(whens, ",") != c.whens {
				t.Errorf("defaults: mode %v policy %v whens %v, want %v %v %s", j.Mode, j.Policy, whens, c.mode, c.policy, c.whens)
			}
			var got []Problem
			for _, p := range o.Warnings {
				if p.Code == CodeDefaulted {
					got = append(got, p)
				}
			}
			if len(got) != len(c.want) {
				t.Fatalf("%d %s warnings, want %d:\n%v", len(got), CodeDefaulted, len(c.want), got)
			}
			for i, w := range c.want {
				at := strings.Index(raw, w.after)
				if at < 0 || strings.Contains(raw[at+1:], w.after) {
					t.Fatalf("marker %q is not unique in %s", w.after, raw)
				}
				p := got[i]
				if p.Path != w.path || p.Line != 1 || p.Col != at+len(w.after)+1 || !strings.HasPrefix(p.Message, w.msg) {
					t.Errorf("warning %d: %s at %d:%d\nwant %s at 1:%d: %s…", i, p, p.Line, p.Col, w.path, at+len(w.after)+1, w.msg)
				}
			}
		})
	}
}
