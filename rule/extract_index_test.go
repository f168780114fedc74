package rule

import (
	"strings"
	"testing"
)

// API guide §6 ("Writing value expressions"): "Array index via double
// brackets: resp.tags[[0]]" and "Special keys (dashes, spaces, unicode,
// etc.) via escaped string key: resp[[\"key-with-dash\"]]"; its example
// §10.1 writes resp.abmessungen[[\"höhe_cm\"]] inside a JSON string. Each
// form extracts the value it names, not the default.
func TestExtractDoubleBracketIndex(t *testing.T) {
	doc := mustParse(t, []byte(`{
  "payload": {"I": {"type": "int64", "default": 1}},
  "apiCalls": [{"name": "q", "method": "GET", "urlTemplate": "https://api.example.net/p", "contentType": "json",
    "extractMap": {
      "Tag":    {"type": "string", "value": "resp.tags[[0]]", "default": "none"},
      "Dash":   {"type": "string", "value": "resp[[\"key-with-dash\"]]", "default": "none"},
      "Hoehe":  {"type": "double", "value": "resp.abmessungen[[\"höhe_cm\"]]", "default": 12.5},
      "Printed":{"type": "string", "value": "resp[[\\\"key-with-dash\\\"]]", "default": "none"},
      "ByKey":  {"type": "string", "value": "resp.tags[[[I]]]", "default": "none"},
      "Nested": {"type": "int64",  "value": "resp.m[[\"a-b\"]].list[[1]]", "default": 0}
    }}],
  "rules": []
}`))
	if len(doc.Warnings) != 0 {
		t.Errorf("warnings: %v", doc.Warnings)
	}
	body := `{"tags": ["red", "green"], "key-with-dash": "dashed", "abmessungen": {"höhe_cm": 30.5},
	          "m": {"a-b": {"list": [7, 8]}}}`
	r := eval(t, doc, map[string]any{}, Sources{API: StaticAPI{"q": {Status: 200, Body: []byte(body)}}})
	want := map[string]any{"Tag": "red", "Dash": "dashed", "Hoehe": 30.5, "Printed": "dashed", "ByKey": "green", "Nested": int64(8)}
	for k, v := range want {
		if r.Extracted[k] != v {
			t.Errorf("%s = %#v, want %#v", k, r.Extracted[k], v)
		}
	}
	if len(r.Calls) != 1 || len(r.Calls[0].Defaulted) != 0 {
		t.Errorf("defaulted: %+v", r.Calls)
	}
}

// The escape is read only in index position, where CEL could never index by
// a list literal: list literals, nested lists and a list index keep their
// meaning.
func TestDoubleBracketKeepsValidCEL(t *testing.T) {
	for src, want := range map[string]string{
		`[[1, 2], [3]] == [[1, 2], [3]]`: `[[1, 2], [3]] == [[1, 2], [3]]`,
		`[[A]]`:                          `[A]`,
		`x[[1, 2][0]]`:                   `x[[1, 2][0]]`,
		`resp.tags[[0]] + "x"`:           `resp.tags[0] + "x"`,
		`resp[[\"a b\"]]`:                `resp["a b"]`,
		`Names[Idx]`:                     `Names[Idx]`,
		`"[[0]]" == s[[0]]`:              `"[[0]]" == s[0]`,
	} {
		got, bad := rewriteExpr(src)
		if got != want || bad != "" {
			t.Errorf("%s: %q (malformed %q), want %q", src, got, bad, want)
		}
	}
	if _, bad := rewriteExpr(`resp[my-key]`); !strings.Contains(bad, "my-key") {
		t.Errorf("a malformed placeholder in index position is still reported: %q", bad)
	}
}
