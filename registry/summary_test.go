package registry

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	raw := readFile(t, "../examples/ostc/nested_join.json")
	s, err := Summarize(raw)
	if err != nil {
		t.Fatal(err)
	}
	o := mustParse(t, string(raw))
	if want := "id " + o.ID; !strings.HasPrefix(s.Text, want) || !strings.HasSuffix(s.Text, "hash "+o.Hash.Hex()) {
		t.Errorf("summary %q", s.Text)
	}
	if s.Fields["id"] != o.ID || s.Fields["steps"] != len(o.Steps) || s.Fields["hash"] != o.Hash.Hex() {
		t.Errorf("fields %v", s.Fields)
	}
	if _, err := Summarize([]byte(`{"id":`)); err == nil {
		t.Error("broken JSON summarized")
	}
}

// A document stored under an id must validate and carry that id; the
// warnings of a document that may be stored are returned.
func TestCheckStored(t *testing.T) {
	raw := readFile(t, "../examples/ostc/minimal_join.json")
	o := mustParse(t, string(raw))
	if p, w := CheckStored(raw, o.ID); len(p) != 0 || len(w) != len(o.Warnings) {
		t.Errorf("valid document: problems %v, warnings %v", p, w)
	}
	if p, _ := CheckStored(raw, "other"); len(p) != 1 || p[0].Code != "id" || p[0].Path != "id" ||
		p[0].Message != `document id "`+o.ID+`" differs from the registry ID "other"` {
		t.Errorf("other id: %v", p)
	}
	if p, w := CheckStored([]byte(`{"id":"x","structure":{"A1":{"rule":"r","onValid":{"spawns":["B9"]}}}}`), "x"); len(p) == 0 || w != nil {
		t.Errorf("invalid document: problems %v, warnings %v", p, w)
	}
}

// The JSON of an explanation lists its path as hops, and an empty list
// when there is none.
func TestExplanationJSON(t *testing.T) {
	o := mustParse(t, string(readFile(t, "../examples/ostc/nested_join.json")))
	e, err := o.Explain("A1", "Z1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(e)
	want := `{"from":"A1","to":"Z1","reachable":true,"reason":` + mustJSON(e.Reason) +
		`,"path":[{"from":"A1","to":"J1","branch":"onValid","kind":"join"},{"from":"J1","to":"J2","branch":"onValid","kind":"join"},{"from":"J2","to":"Z1","branch":"onValid","kind":"spawn"}]}`
	if string(b) != want {
		t.Errorf("JSON\n%s\nwant\n%s", b, want)
	}
	e, _ = o.Explain("Z1", "A1")
	if b, _ := json.Marshal(e); !strings.HasSuffix(string(b), `"path":[]}`) {
		t.Errorf("unreachable JSON %s", b)
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
