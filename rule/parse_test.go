package rule

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureDir holds the published XGR example documents (testdata/xgr-public, see its NOTICE.md).
const fixtureDir = "../testdata/xgr-public"

func readFixture(t testing.TB, rel string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(fixtureDir, rel))
	if err != nil {
		t.Fatalf("fixture %s: %v", rel, err)
	}
	return raw
}

const (
	piFixture     = "IterationOfPi/XRC137Json/Iterationstep.json"
	feedFixture   = "ApiPriceFeed/XRC137Json/ApiPriceFeedStep_CoinbaseSpot.json"
	quorumFixture = "ApiPriceFeedQuorum/XRC137Json/ApiPriceFeedQuorumStep_3Sources.json"
)

// repairedPi is the IterationOfPi rule with the closing brace the published
// file lacks.
func repairedPi(t testing.TB) []byte {
	raw := readFixture(t, piFixture)
	return append(append([]byte{}, raw...), '}')
}

func mustParse(t testing.TB, raw []byte) *Document {
	t.Helper()
	d, err := Parse(raw)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return d
}

func problemsOf(t *testing.T, raw []byte) *ValidationError {
	t.Helper()
	_, err := Parse(raw)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Parse accepted the document (err %v)", err)
	}
	return ve
}

func findProblem(list []Problem, path, code string) *Problem {
	for i := range list {
		if list[i].Path == path && list[i].Code == code {
			return &list[i]
		}
	}
	return nil
}

func TestParseTruncatedFixture(t *testing.T) {
	ve := problemsOf(t, readFixture(t, piFixture))
	if len(ve.Problems) != 1 {
		t.Fatalf("problems: %v", ve.Problems)
	}
	p := ve.Problems[0]
	if p.Code != CodeSyntax || p.Line != 21 || p.Col != 4 || !strings.Contains(p.Message, "opened at 1:1 is not closed") {
		t.Errorf("truncated fixture: %+v; want a syntax problem at 21:4 naming the object opened at 1:1", p)
	}
	if !strings.HasPrefix(ve.Error(), "invalid rule document: 21:4: ") {
		t.Errorf("error text %q", ve.Error())
	}
}

func TestParseFixtures(t *testing.T) {
	pi := mustParse(t, repairedPi(t))
	if len(pi.Payload) != 3 || len(pi.Rules) != 0 || len(pi.OnValid.Payload) != 3 || pi.OnValid.WaitSec != 3600 {
		t.Errorf("IterationOfPi: %d fields, %d rules, %d outputs, wait %d", len(pi.Payload), len(pi.Rules), len(pi.OnValid.Payload), pi.OnValid.WaitSec)
	}
	if findProblem(pi.Warnings, "rules", CodeRequired) == nil {
		t.Errorf("IterationOfPi: no warning about the missing rules: %v", pi.Warnings)
	}
	for _, f := range pi.Payload {
		if f.HasDefault {
			t.Errorf("IterationOfPi field %s has a default", f.Name)
		}
	}
	kinds := map[string]Kind{}
	for _, o := range pi.OnValid.Payload {
		kinds[o.Key] = o.Value.Kind
	}
	for k, want := range map[string]Kind{"Iter": KindExpression, "Pi": KindExpression, "S": KindExpression} {
		if kinds[k] != want {
			t.Errorf("IterationOfPi output %s is a %s", k, kinds[k])
		}
	}

	feed := mustParse(t, readFixture(t, feedFixture))
	if len(feed.APICalls) != 1 || len(feed.APICalls[0].Extract) != 2 || len(feed.Rules) != 3 {
		t.Fatalf("ApiPriceFeed: %+v", feed)
	}
	x := feed.APICalls[0].Extract
	if x[0].Alias != "FetchedPrice" || x[0].Type != TypeDouble || x[0].Expr.Source != "resp.data.amount" || x[0].Default != 0.0 {
		t.Errorf("ApiPriceFeed alias 0: %+v", x[0])
	}
	if x[1].Alias != "OkApi" || x[1].Default != false {
		t.Errorf("ApiPriceFeed alias 1: %+v", x[1])
	}
	for _, o := range feed.OnInvalid.Payload {
		if o.Key == "Pair" && o.Value.Kind != KindTemplate {
			t.Errorf("Pair %q is a %s", o.Value.Source, o.Value.Kind)
		}
	}

	q := mustParse(t, readFixture(t, quorumFixture))
	if len(q.APICalls) != 3 || len(q.Payload) != 15 || len(q.Rules) != 3 {
		t.Errorf("quorum: %d calls, %d fields, %d rules", len(q.APICalls), len(q.Payload), len(q.Rules))
	}
	if len(q.Warnings) != 0 {
		t.Errorf("quorum warnings: %v", q.Warnings)
	}
}

func TestParseReportsEveryProblem(t *testing.T) {
	doc := `{
  "payload": {
    "Amount": {"type": "int65"},
    "bad key": {"type": "string"},
    "Memo": {"type": "string", "default": 5, "value": "x"},
    "Count": {"type": "uint64", "default": -1}
  },
  "apiCalls": [{"name": "q", "method": "FETCH", "urlTemplate": "ftp://x/[A]", "contentType": "xml",
    "extractMap": {"P": {"type": "double", "expr": "resp.(", "value": "x"}}}],
  "rules": ["[Amount] >", {"type": "explode", "expression": "true"}, {"expr": "x"}],
  "onValid": {"payload": {"x y": 1, "A": "[A] * * 2"}, "waitSec": -1,
    "grants": [{"address": "0x1", "rights": 9}]},
  "extra": 1
}`
	ve := problemsOf(t, []byte(doc))
	want := []struct {
		path, code string
		line       int
	}{
		{"payload.Amount.type", CodeXRCType, 3},
		{`payload["bad key"]`, CodeIdentifier, 4},
		{"payload.Memo.value", CodeForbidden, 5},
		{"payload.Count.default", CodeDefault, 6},
		{"apiCalls[0].method", CodeMethod, 8},
		{"apiCalls[0].urlTemplate", CodeURL, 8},
		{"apiCalls[0].contentType", CodeContentType, 8},
		{"apiCalls[0].extractMap.P.value", CodeValueExpr, 9},
		{"rules[0]", CodeExpression, 10},
		{"rules[1].type", CodeRuleType, 10},
		{"rules[2].expr", CodeForbidden, 10},
		{"rules[2].expression", CodeRequired, 10},
		{`onValid.payload["x y"]`, CodeIdentifier, 11},
		{"onValid.payload.A", CodeExpression, 11},
		{"onValid.waitSec", CodeRange, 11},
		{"onValid.grants[0].address", CodeAddress, 12},
		{"onValid.grants[0].rights", CodeRange, 12},
	}
	for _, w := range want {
		p := findProblem(ve.Problems, w.path, w.code)
		if p == nil {
			t.Errorf("no %s problem at %s", w.code, w.path)
			continue
		}
		if p.Line != w.line || p.Col < 1 {
			t.Errorf("%s: at %d:%d, want line %d", w.path, p.Line, p.Col, w.line)
		}
	}
	if w := findProblem(ve.Warnings, "extra", CodeUnknownField); w == nil || w.Line != 13 || w.Col != 3 {
		t.Errorf("unknown top-level field: %+v in %v", w, ve.Warnings)
	}
	if len(ve.Problems) < len(want) {
		t.Errorf("%d problems, want at least %d", len(ve.Problems), len(want))
	}
}

// capDoc builds a valid document with n repetitions of one element.
func capDocs() map[string]struct {
	doc  func(n int) string
	at   int // the cap
	path string
	code string
} {
	field := func(i int) string { return fmt.Sprintf(`"F%d": {"type": "int64", "default": 0}`, i) }
	join := func(n int, f func(int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = f(i)
		}
		return strings.Join(parts, ",")
	}
	api := func(extracts int) func(int) string {
		return func(i int) string {
			return fmt.Sprintf(`{"name": "c%d", "method": "GET", "urlTemplate": "https://example.org/%d", "contentType": "json", "extractMap": {%s}}`,
				i, i, join(extracts, func(j int) string { return fmt.Sprintf(`"X%d_%d": {"type": "double", "expr": "double(resp.v)"}`, i, j) }))
		}
	}
	read := func(slots int) func(int) string {
		return func(i int) string {
			return fmt.Sprintf(`{"to": "0x1111111111111111111111111111111111111111", "function": "f()", "saveAs": {%s}}`,
				join(slots, func(j int) string {
					typ := "uint256"
					if j == 0 {
						typ = "string" // the tuple's length is derivable without return types
					}
					return fmt.Sprintf(`"%d": {"key": "R%d_%d", "type": "%s"}`, j, i, j, typ)
				}))
		}
	}
	type capCase = struct {
		doc  func(n int) string
		at   int
		path string
		code string
	}
	return map[string]capCase{
		"MaxPayloadFields": {func(n int) string { return `{"payload": {` + join(n, field) + `}, "rules": []}` }, MaxPayloadFields, "payload", CodeLimit},
		"MaxRules": {func(n int) string {
			return `{"payload": {}, "rules": [` + join(n, func(int) string { return `"true"` }) + `]}`
		}, MaxRules, "rules", CodeLimit},
		"MaxAPICalls":          {func(n int) string { return `{"payload": {}, "rules": [], "apiCalls": [` + join(n, api(1)) + `]}` }, MaxAPICalls, "apiCalls", CodeLimit},
		"MaxExtractMapEntries": {func(n int) string { return `{"payload": {}, "rules": [], "apiCalls": [` + api(n)(0) + `]}` }, MaxExtractMapEntries, "apiCalls[0].extractMap", CodeLimit},
		"MaxContractReads":     {func(n int) string { return `{"payload": {}, "rules": [], "contractReads": [` + join(n, read(1)) + `]}` }, MaxContractReads, "contractReads", CodeLimit},
		"MaxContractReadSaveAs": {func(n int) string { return `{"payload": {}, "rules": [], "contractReads": [` + read(n)(0) + `]}` },
			MaxSaveAs, "contractReads[0].saveAs", CodeLimit},
		"MaxOutcomeKeys": {func(n int) string {
			return `{"payload": {}, "rules": [], "onValid": {"payload": {` + join(n, func(i int) string { return fmt.Sprintf(`"K%d": %d`, i, i) }) + `}}}`
		}, MaxOutcomeKeys, "onValid.payload", CodeLimit},
		"MaxGrants": {func(n int) string {
			return `{"payload": {}, "rules": [], "onValid": {"grants": [` + join(n, func(int) string {
				return `{"address": "0x1111111111111111111111111111111111111111", "rights": 1}`
			}) + `]}}`
		}, MaxGrants, "onValid.grants", CodeLimit},
		"MaxExecArgs": {func(n int) string {
			return `{"payload": {}, "rules": [], "onInvalid": {"execution": {"to": "0x1111111111111111111111111111111111111111", "args": [` +
				join(n, func(int) string { return `{"type": "uint256", "value": "1"}` }) + `]}}}`
		}, MaxExecArgs, "onInvalid.execution.args", CodeLimit},
		"MaxFieldNameLen": {func(n int) string {
			return `{"payload": {"` + strings.Repeat("a", n) + `": {"type": "bool"}}, "rules": []}`
		}, MaxFieldNameLen, `payload.` + strings.Repeat("a", MaxFieldNameLen+1), CodeIdentifier},
		"MaxURLTemplateLen": {func(n int) string {
			return `{"payload": {}, "rules": [], "apiCalls": [{"name": "c", "method": "GET", "contentType": "json", "extractMap": {"A": {"type": "bool", "expr": "true"}}, "urlTemplate": "https://e.org/` +
				strings.Repeat("a", n-len("https://e.org/")) + `"}]}`
		}, MaxURLTemplateLen, "apiCalls[0].urlTemplate", CodeLimit},
		"MaxBodyTemplateLen": {func(n int) string {
			return `{"payload": {}, "rules": [], "apiCalls": [{"name": "c", "method": "POST", "contentType": "json", "extractMap": {"A": {"type": "bool", "expr": "true"}}, "urlTemplate": "https://e.org/", "bodyTemplate": "` +
				strings.Repeat("b", n) + `"}]}`
		}, MaxBodyTemplateLen, "apiCalls[0].bodyTemplate", CodeLimit},
		"MaxStringValueLen": {func(n int) string {
			return `{"payload": {}, "rules": [], "onValid": {"payload": {"Memo": "` + strings.Repeat("m", n) + `"}}}`
		}, MaxStringValueLen, "onValid.payload.Memo", CodeLimit},
		"MaxStringValueLen (default)": {func(n int) string {
			return `{"payload": {"S": {"type": "string", "default": "` + strings.Repeat("é", n) + `"}}, "rules": []}`
		}, MaxStringValueLen, "payload.S.default", CodeLimit},
		"MaxXRC137Bytes": {func(n int) string {
			pad := n - len(`{"payload": {}, "rules": []}`)
			return `{"payload": {}, "rules": []` + strings.Repeat(" ", pad) + `}`
		}, MaxDocumentBytes, "", CodeTooLarge},
	}
}

func TestParseCaps(t *testing.T) {
	for name, c := range capDocs() {
		at := c.doc(c.at)
		if _, err := Parse([]byte(at)); err != nil {
			t.Errorf("%s: a document at the cap is rejected: %v", name, err)
			continue
		}
		_, err := Parse([]byte(c.doc(c.at + 1)))
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s: a document over the cap is accepted", name)
			continue
		}
		if findProblem(ve.Problems, c.path, c.code) == nil {
			t.Errorf("%s: no %s problem at %q: %v", name, c.code, c.path, ve.Problems)
		}
	}
}

// Rule expressions meet two caps in XDaLa_Limits: the document parser's
// MaxExprLen of 2048 characters (§4) and the evaluator's MaxExprLen of 1024
// bytes (§12); §13: "The effective executable expression must satisfy both
// layers". xgr measures one thing, the bytes as written against 1024 (which
// also keeps every expression within 2048 characters), and reports one
// problem naming both caps.
func TestParseExprLenCaps(t *testing.T) {
	rule := func(body string) []byte {
		return []byte(`{"payload": {}, "rules": ["true` + body + `"]}`)
	}
	mustParse(t, rule(strings.Repeat(" ", MaxExprLen-4)))
	for name, body := range map[string]string{
		"1025 bytes":                 strings.Repeat(" ", MaxExprLen-3),
		"2049 characters":            strings.Repeat(" ", MaxRuleExprLen-3),
		"600 characters, 1200 bytes": ` && \"` + strings.Repeat("ü", 600) + `\" != \"\"`,
	} {
		ve := problemsOf(t, rule(body))
		p := findProblem(ve.Problems, "rules[0]", CodeLimit)
		if len(ve.Problems) != 1 || p == nil || !strings.Contains(p.Message, "at most 1024 are allowed") || !strings.Contains(p.Message, "2048 characters") || !strings.Contains(p.Message, "§13") {
			t.Errorf("%s: %v", name, ve.Problems)
		}
	}
	// Branch values that read as expressions meet the same cap.
	ve := problemsOf(t, []byte(`{"payload": {}, "rules": [], "onValid": {"payload": {"X": "1 + 1`+strings.Repeat(" ", MaxExprLen)+`"}}}`))
	if p := findProblem(ve.Problems, "onValid.payload.X", CodeLimit); len(ve.Problems) != 1 || p == nil || !strings.Contains(p.Message, "MaxExprLen") {
		t.Errorf("branch expression: %v", ve.Problems)
	}
}

func TestParseShapes(t *testing.T) {
	cases := map[string]struct {
		doc  string
		path string
		code string
	}{
		"payload missing":        {`{"rules": []}`, "payload", CodeRequired},
		"duplicate member":       {`{"payload": {}, "rules": [], "rules": []}`, "rules", CodeDuplicate},
		"not an object":          {`[1, 2]`, "", CodeType},
		"encrypted":              {`XGR1.AESGCM.abcdef`, "", CodeSyntax},
		"empty":                  {``, "", CodeSyntax},
		"comment":                {"{\"payload\": {} // no\n}", "", CodeSyntax},
		"field without type":     {`{"payload": {"A": {}}, "rules": []}`, "payload.A.type", CodeRequired},
		"address default":        {`{"payload": {"A": {"type": "address", "default": "0x12"}}}`, "payload.A.default", CodeDefault},
		"bytes32 default":        {`{"payload": {"B": {"type": "bytes32", "default": "0x00"}}}`, "payload.B.default", CodeDefault},
		"rule not bool-ish type": {`{"payload": {}, "rules": [42]}`, "rules[0]", CodeType},
		"empty rule":             {`{"payload": {}, "rules": [" "]}`, "rules[0]", CodeRequired},
		"malformed placeholder":  {`{"payload": {}, "rules": ["[my-key] > 1"]}`, "rules[0]", CodeExpression},
		"template placeholder":   {`{"payload": {}, "onValid": {"payload": {"M": "id [user-id]"}}}`, "onValid.payload.M", CodePlaceholder},
		"duplicate call name": {`{"payload": {}, "apiCalls": [
			{"name": "a", "method": "GET", "urlTemplate": "https://e.org", "contentType": "json", "extractMap": {"X": {"type": "bool", "expr": "true"}}},
			{"name": "a", "method": "GET", "urlTemplate": "https://e.org", "contentType": "json", "extractMap": {"Y": {"type": "bool", "expr": "true"}}}]}`,
			"apiCalls[1].name", CodeDuplicate},
		"extract without expr": {`{"payload": {}, "apiCalls": [{"name": "a", "method": "GET", "urlTemplate": "https://e.org", "contentType": "json", "extractMap": {"X": {"type": "bool"}}}]}`,
			"apiCalls[0].extractMap.X.expr", CodeRequired},
		"extract bad default": {`{"payload": {}, "apiCalls": [{"name": "a", "method": "GET", "urlTemplate": "https://e.org", "contentType": "json", "extractMap": {"X": {"type": "bool", "expr": "true", "default": "maybe"}}}]}`,
			"apiCalls[0].extractMap.X.default", CodeDefault},
		"header with newline": {`{"payload": {}, "apiCalls": [{"name": "a", "method": "GET", "urlTemplate": "https://e.org", "contentType": "json", "headers": {"X-A": "a\nb"}, "extractMap": {"X": {"type": "bool", "expr": "true"}}}]}`,
			"apiCalls[0].headers.X-A", CodeHeader},
		"timeout zero": {`{"payload": {}, "apiCalls": [{"name": "a", "method": "GET", "urlTemplate": "https://e.org", "contentType": "json", "timeoutMs": 0, "extractMap": {"X": {"type": "bool", "expr": "true"}}}]}`,
			"apiCalls[0].timeoutMs", CodeRange},
		"bad signature":     {`{"payload": {}, "contractReads": [{"to": "0x1111111111111111111111111111111111111111", "function": "balanceOf(adress)", "saveAs": {}}]}`, "contractReads[0].function", CodeSignature},
		"saveAs index":      {`{"payload": {}, "contractReads": [{"to": "0x1111111111111111111111111111111111111111", "function": "f()", "saveAs": {"01": {"key": "K", "type": "bool"}}}]}`, "contractReads[0].saveAs.01", CodeRange},
		"legacy save":       {`{"payload": {}, "contractReads": [{"to": "0x1111111111111111111111111111111111111111", "function": "f()", "save": "K"}]}`, "contractReads[0].save", CodeForbidden},
		"value and expr":    {`{"payload": {}, "contractReads": [{"to": "[T]", "function": "f(uint256)", "args": [{"type": "uint256", "value": "1", "expr": "1"}]}]}`, "contractReads[0].args[0].expr", CodeValueExpr},
		"too few args":      {`{"payload": {}, "contractReads": [{"to": "[T]", "function": "allowance(address,address)", "args": [{"type": "address", "value": "[A]"}]}]}`, "contractReads[0].args", CodeSignature},
		"no args":           {`{"payload": {}, "contractReads": [{"to": "[T]", "function": "balanceOf(address)(uint256)"}]}`, "contractReads[0].args", CodeSignature},
		"tuple arg count":   {`{"payload": {}, "contractReads": [{"to": "[T]", "function": "f((uint256,address),bool)", "args": []}]}`, "contractReads[0].args", CodeSignature},
		"execution args":    {`{"payload": {}, "onValid": {"execution": {"to": "[T]", "function": "notify(address,uint256)", "args": [{"type": "address", "value": "[A]"}]}}}`, "onValid.execution.args", CodeSignature},
		"literal arg type":  {`{"payload": {}, "contractReads": [{"to": "[T]", "function": "f(address)", "args": [{"type": "address", "value": 5}]}]}`, "contractReads[0].args[0].value", CodeDefault},
		"rights zero":       {`{"payload": {}, "onValid": {"grants": [{"address": "[A]", "rights": 0}]}}`, "onValid.grants[0].rights", CodeRange},
		"wakeUp session 0":  {`{"payload": {}, "onValid": {"wakeUps": [{"runner": "[R]", "sessionId": 0, "stepId": "s"}]}}`, "onValid.wakeUps[0].sessionId", CodeRange},
		"wakeUp no stepId":  {`{"payload": {}, "onValid": {"wakeUps": [{"runner": "[R]", "sessionId": "[S]"}]}}`, "onValid.wakeUps[0].stepId", CodeRequired},
		"execution no to":   {`{"payload": {}, "onValid": {"execution": {"function": "f()"}}}`, "onValid.execution.to", CodeRequired},
		"execution bad sig": {`{"payload": {}, "onValid": {"execution": {"to": "[T]", "function": "transfer(address,uint257)"}}}`, "onValid.execution.function", CodeSignature},
		"encryptLogs type":  {`{"payload": {}, "onValid": {"encryptLogs": "yes"}}`, "onValid.encryptLogs", CodeType},
	}
	for name, c := range cases {
		ve := problemsOf(t, []byte(c.doc))
		if findProblem(ve.Problems, c.path, c.code) == nil {
			t.Errorf("%s: no %s problem at %q: %v", name, c.code, c.path, ve.Problems)
		}
	}
}

func TestParseWarnings(t *testing.T) {
	d := mustParse(t, []byte(`{
  "payload": {"A": {"type": "bool"}},
  "apiCalls": [{"name": "x y", "method": "get", "urlTemplate": "https://e.org", "contentType": "json",
    "extractMap": {"A": "resp.a", "B": {"type": "bool", "expr": "true", "save": false}}}],
  "contractReads": [{"to": "0x1111111111111111111111111111111111111111", "function": "f()"}],
  "rules": [],
  "onValid": {"waitMs": 5}
}`))
	for _, w := range []struct{ path, code string }{
		{"apiCalls[0].name", CodeIdentifier},
		{"apiCalls[0].extractMap.A", CodeStringForm},
		{"apiCalls[0].extractMap.A", CodeDuplicate},
		{"contractReads[0].saveAs", CodeRequired},
		{"onValid.waitMs", CodeUnknownField},
	} {
		if findProblem(d.Warnings, w.path, w.code) == nil {
			t.Errorf("no %s warning at %s: %v", w.code, w.path, d.Warnings)
		}
	}
	if d.APICalls[0].Method != "GET" || d.APICalls[0].Extract[1].Save {
		t.Errorf("call: %+v", d.APICalls[0])
	}
}

// The spec's §11.3 example: execution, grants and encryptLogs are parsed
// and kept; the document's own quoting is fixed ("[Balance] != \"0\"").
const spec113 = `{
  "payload": {
    "Owner": { "type": "address" },
    "Auditor": { "type": "address" }
  },
  "contractReads": [
    {
      "to": "0x1111111111111111111111111111111111111111",
      "function": "balanceOf(address)(uint256)",
      "args": [ { "type": "address", "value": "[Owner]" } ],
      "saveAs": { "0": { "key": "Balance", "type": "uint256", "default": "0" } }
    }
  ],
  "rules": [ "[Balance] != \"0\"" ],
  "onValid": {
    "payload": { "memo": "has balance", "balance": "[Balance]" },
    "execution": {
      "to": "0x2222222222222222222222222222222222222222",
      "gas": { "limit": 250000 },
      "function": "notify(address,uint256)(bool)",
      "args": [
        { "type": "address", "value": "[Owner]" },
        { "type": "uint256", "value": "[Balance]" }
      ]
    },
    "grants": [ { "address": "[Auditor]", "rights": 1, "expireDays": 90 } ],
    "logExpireDays": 90,
    "encryptLogs": true
  },
  "onInvalid": { "payload": { "memo": "no balance" } }
}`

func TestParseNotPerformedSections(t *testing.T) {
	d := mustParse(t, []byte(spec113))
	b := d.OnValid
	if b.Execution == nil || *b.Execution.GasLimit != 250000 || len(b.Execution.Args) != 2 || b.Execution.Function != "notify(address,uint256)(bool)" {
		t.Fatalf("execution: %+v", b.Execution)
	}
	if len(b.Grants) != 1 || b.Grants[0].Rights != RightRead || b.Grants[0].ExpireDays != 90 || *b.LogExpireDays != 90 || !*b.EncryptLogs {
		t.Errorf("grants: %+v", b)
	}
	out, err := json.Marshal(b.Execution)
	if err != nil || !strings.Contains(string(out), `"value":"[Owner]"`) {
		t.Errorf("execution JSON: %s, %v", out, err)
	}
	if d.ContractReads[0].SaveAs[0].Default != "0" || d.ContractReads[0].Args[0].Type != TypeAddress {
		t.Errorf("contract read: %+v", d.ContractReads[0])
	}
	w := mustParse(t, []byte(`{"payload": {}, "rules": [], "onValid": {"wakeUps": [{"runner": "[AuctionRunner]", "sessionId": "[AuctionSessionId]", "stepId": "main_update",
		"payload": {"Bidder": "[from]", "BidAmount": "[BidAmount]"}}]}}`))
	if wu := w.OnValid.WakeUps; len(wu) != 1 || wu[0].StepID != "main_update" || len(wu[0].Payload) != 2 {
		t.Errorf("wakeUps: %+v", wu)
	}
}

func TestParseHashIsOfExactBytes(t *testing.T) {
	a := mustParse(t, []byte(`{"payload": {}, "rules": []}`))
	b := mustParse(t, []byte(`{"payload": {},  "rules": []}`))
	if a.Hash == b.Hash {
		t.Error("different bytes, same hash")
	}
}

func TestSignatureParams(t *testing.T) {
	for sig, want := range map[string][2]int{
		"f()":                         {0, 3},
		"balanceOf(address)":          {1, 18},
		"balanceOf(address)(uint256)": {1, 18},
		"f((uint256,address)[],bool)(bool,(int8,int8))": {2, 27},
		"g(uint256[2][],bytes32,string)":                {3, 30},
	} {
		if n, end := SignatureParams(sig); n != want[0] || end != want[1] {
			t.Errorf("%s: %d params, end %d; want %v", sig, n, end, want)
		}
	}
}
