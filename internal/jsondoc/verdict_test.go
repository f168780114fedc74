package jsondoc

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProblemLocated(t *testing.T) {
	for _, tc := range []struct {
		p    Problem
		want string
	}{
		{Problem{Path: "a.b", Line: 2, Col: 7, Message: "bad"}, "f.json:2:7: error: a.b: bad"},
		{Problem{Path: "a.b", Message: "bad"}, "f.json: error: a.b: bad"},
		{Problem{Line: 1, Col: 1, Message: "broken"}, "f.json:1:1: error: broken"},
	} {
		if got := tc.p.Located("f.json", "error"); got != tc.want {
			t.Errorf("Located = %q, want %q", got, tc.want)
		}
	}
}

// A verdict counts a parser's verdict, an *Invalid's problems and
// warnings, any other error as one problem, and a file it cannot read.
func TestCheckFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "doc.json")
	if err := os.WriteFile(file, []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	warn := Problem{Path: "x", Code: "unknown-field", Message: "unknown"}
	ok := func([]byte) (Summary, error) {
		return Summary{Text: "2 steps", Fields: map[string]any{"steps": 2}, Warnings: []Problem{warn}}, nil
	}
	v := CheckFile(file, ok)
	if !v.OK(false) || v.OK(true) || v.Unreadable || len(v.Warnings) != 1 {
		t.Fatalf("accepted document with a warning: %+v", v)
	}
	var b strings.Builder
	v.WriteText(&b, false)
	if want := "doc.json: warning: x: unknown\n" + file + ": ok: 2 steps, 1 warnings\n"; !strings.HasSuffix(b.String(), want) {
		t.Errorf("text:\n%s\nwant suffix:\n%s", b.String(), want)
	}
	b.Reset()
	v.WriteText(&b, true)
	if !strings.Contains(b.String(), file+": INVALID under --strict (1 warnings)") {
		t.Errorf("strict text:\n%s", b.String())
	}
	j, _ := json.Marshal(v.JSON(false))
	if string(j) != `{"errors":[],"file":"`+file+`","ok":true,"steps":2,"warnings":[{"path":"x","line":0,"col":0,"code":"unknown-field","message":"unknown"}]}` {
		t.Errorf("JSON: %s", j)
	}

	inv := func([]byte) (Summary, error) {
		return Summary{}, &Invalid{Subject: "doc", Problems: []Problem{{Line: 1, Col: 2, Message: "no"}}, Warnings: []Problem{warn}}
	}
	if v := CheckFile(file, inv); v.OK(false) || len(v.Errors) != 1 || len(v.Warnings) != 1 {
		t.Errorf("rejected document: %+v", v)
	}
	other := func([]byte) (Summary, error) { return Summary{}, errors.New("too deep") }
	if v := CheckFile(file, other); len(v.Errors) != 1 || v.Errors[0].Code != "parse" || v.Errors[0].Message != "too deep" {
		t.Errorf("other error: %+v", v)
	}
	v = CheckFile(filepath.Join(dir, "missing.json"), ok)
	if !v.Unreadable || v.OK(false) || v.Errors[0].Code != "read" {
		t.Errorf("missing file: %+v", v)
	}
	j, _ = json.Marshal(v.JSON(false))
	if !strings.Contains(string(j), `"warnings":[]`) || !strings.Contains(string(j), `"ok":false`) {
		t.Errorf("missing file JSON: %s", j)
	}
}
