package jsondoc

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseTree(t *testing.T) {
	raw := "{\n  \"a\": [1, \"x\", true, null],\n  \"b\": {\"c\": -2.5e3},\n  \"a\": {}\n}"
	v, err := Parse([]byte(raw), 0)
	if err != nil {
		t.Fatal(err)
	}
	if v.Kind != Object || len(v.Members) != 3 || v.Members[2].Name != "a" {
		t.Fatalf("duplicates must be kept in order: %+v", v.Members)
	}
	if v.Get("a") != v.Members[0].Value {
		t.Errorf("Get returns the first of duplicate members")
	}
	arr := v.Get("a")
	kinds := []Kind{Number, String, Bool, Null}
	for i, it := range arr.Items {
		if it.Kind != kinds[i] {
			t.Errorf("item %d kind %v, want %v", i, it.Kind, kinds[i])
		}
	}
	if arr.Items[1].Text != "x" || !arr.Items[2].True || arr.Items[0].Text != "1" {
		t.Errorf("values: %+v", arr.Items)
	}
	c := v.Get("b").Get("c")
	if c.Text != "-2.5e3" {
		t.Errorf("number literal kept as written: %q", c.Text)
	}
	if line, col := LineCol([]byte(raw), c.Off); line != 3 || col != 14 {
		t.Errorf("c at %d:%d, want 3:14", line, col)
	}
	if p := arr.Items[3].Path(); p != "a[3]" {
		t.Errorf("path %q", p)
	}
	if p := c.Path(); p != "b.c" {
		t.Errorf("path %q", p)
	}
	if line, col := LineCol([]byte(raw), v.Members[1].NameOff); line != 3 || col != 3 {
		t.Errorf("name b at %d:%d, want 3:3", line, col)
	}
}

func TestSyntaxErrors(t *testing.T) {
	cases := []struct {
		raw       string
		line, col int
		msg       string
	}{
		{"", 1, 1, "empty document"},
		{"  \n ", 2, 2, "empty document"},
		{"{\"a\": 1", 1, 8, "object opened at 1:1 is not closed (missing \"}\")"},
		{"{\"a\": [1,\n2", 2, 2, "array opened at 1:7 is not closed (missing \"]\")"},
		{"{\"a\": 1,}", 1, 8, "invalid character ','"},
		{"{\"a\" 1}", 1, 6, "expecting ':'"},
		{"{\"a\": /* c */ 1}", 1, 7, "comments are not allowed"},
		{"[1] [2]", 1, 5, "unexpected data after the top-level value"},
		{"{\"a\": \"\xff\"}", 1, 8, "invalid UTF-8"},
		{"{\"a\": tru}", 1, 10, "in literal true"},
		{strings.Repeat("[", 65) + strings.Repeat("]", 65), 1, 65, "nesting deeper than 64 levels"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.raw), 0)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: error %v, want a SyntaxError", c.raw, err)
			continue
		}
		if se.Line != c.line || se.Col != c.col || !strings.Contains(se.Msg, c.msg) {
			t.Errorf("%q: got %d:%d %q; want %d:%d containing %q", c.raw, se.Line, se.Col, se.Msg, c.line, c.col, c.msg)
		}
	}
}

func TestPathQuoting(t *testing.T) {
	p := Path("").Key("structure").Key("a b").Index(2).Key("x")
	if p != `structure["a b"][2].x` {
		t.Errorf("path %q", p)
	}
	if Path("").String() != "(document)" {
		t.Errorf("root path")
	}
}

// FuzzParse checks that Parse never panics and agrees with encoding/json on
// what is valid JSON, within the depth limit and for valid UTF-8.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,2,{"b":null}]}`, `"x"`, `1e9`, `{"a":1,"a":2}`, "{\n\"a\": 1", `[1,]`, `{"a":"\u00e9"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := Parse(raw, 0)
		if !utf8.Valid(raw) || strings.Count(string(raw), "[")+strings.Count(string(raw), "{") > DefaultMaxDepth {
			return
		}
		if valid := json.Valid(raw); valid != (err == nil) {
			t.Fatalf("encoding/json valid=%v, Parse err=%v", valid, err)
		}
		if err == nil && v == nil {
			t.Fatal("nil value without error")
		}
	})
}
