package rule

import (
	"context"
	"encoding/json"
	"math"
	"math/big"
	"strings"
	"testing"
)

// The attack strings of the chaos run that found placeholders inserted
// unescaped.
const (
	attackTraversal = "../../admin/drop"
	attackFragment  = "a#b"
	attackParam     = "x&admin=1"
	attackJSON      = `"},"admin":true,"x":{"`
	attackHeader    = "\r\nX-Evil: 1"
)

func mustURLTemplate(t *testing.T, src string) *CallTemplate {
	t.Helper()
	tp, bad := ParseTemplate(src)
	if bad != "" {
		t.Fatalf("ParseTemplate(%q): malformed %q", src, bad)
	}
	c, err := newURLTemplate(tp)
	if err != nil {
		t.Fatalf("newURLTemplate(%q): %v", src, err)
	}
	return c
}

func mustBodyTemplate(t *testing.T, src string) *CallTemplate {
	t.Helper()
	tp, bad := ParseTemplate(src)
	if bad != "" {
		t.Fatalf("ParseTemplate(%q): malformed %q", src, bad)
	}
	c, err := newBodyTemplate(tp, "", false)
	if err != nil {
		t.Fatalf("newBodyTemplate(%q): %v", src, err)
	}
	return c
}

func TestRenderURLPath(t *testing.T) {
	const tmpl = "https://api.example.net/quote/[T]"
	for _, c := range []struct{ value, want string }{
		{"XGR", "https://api.example.net/quote/XGR"},
		{"XGR/" + attackTraversal, "https://api.example.net/quote/XGR%2F..%2F..%2Fadmin%2Fdrop"},
		{attackTraversal, "https://api.example.net/quote/..%2F..%2Fadmin%2Fdrop"},
		{attackFragment, "https://api.example.net/quote/a%23b"},
		{attackParam, "https://api.example.net/quote/x&admin=1"}, // & and = are data in a path segment
		{"a?admin=1", "https://api.example.net/quote/a%3Fadmin=1"},
		{attackJSON, "https://api.example.net/quote/%22%7D%2C%22admin%22:true%2C%22x%22:%7B%22"},
		{attackHeader, "https://api.example.net/quote/%0D%0AX-Evil:%201"},
		{"50%", "https://api.example.net/quote/50%25"},
		{"...", "https://api.example.net/quote/..."},
		{"", "https://api.example.net/quote/"},
	} {
		got, miss, err := mustURLTemplate(t, tmpl).Render(map[string]any{"T": c.value})
		if err != nil || miss != nil || got != c.want {
			t.Errorf("T=%q: %q, %v, %v; want %q", c.value, got, miss, err, c.want)
		}
	}
	// Several placeholders, literal text around them, non-string values.
	c := mustURLTemplate(t, "https://api.example.net/v2/[Base]-[Quote]/spot/[N]")
	got, _, err := c.Render(map[string]any{"Base": "BTC", "Quote": "a/b", "N": json.Number("12345678901234567890123")})
	if want := "https://api.example.net/v2/BTC-a%2Fb/spot/12345678901234567890123"; err != nil || got != want {
		t.Errorf("%q, %v; want %q", got, err, want)
	}
	// A value may not make a dot segment, alone or with the literal text.
	for tmpl, env := range map[string]map[string]any{
		"https://h/quote/[T]":        {"T": ".."},
		"https://h/quote/[T]/spot":   {"T": "."},
		"https://h/quote/.[T]?x=1":   {"T": "."},
		"https://h/quote/[A][B]#top": {"A": ".", "B": "."},
	} {
		if got, _, err := mustURLTemplate(t, tmpl).Render(env); err == nil || !strings.Contains(err.Error(), "may not be \".\" or \"..\"") {
			t.Errorf("%s %v: %q, %v; want a dot-segment refusal", tmpl, env, got, err)
		}
	}
	// The template's own dot segments are its business.
	if got, _, err := mustURLTemplate(t, "https://h/a/../[T]").Render(map[string]any{"T": "b"}); err != nil || got != "https://h/a/../b" {
		t.Errorf("literal dot segment: %q, %v", got, err)
	}
}

func TestRenderURLQuery(t *testing.T) {
	const tmpl = "https://api.example.net/q?sym=[S]&n=1"
	for _, c := range []struct{ value, want string }{
		{"BTC", "https://api.example.net/q?sym=BTC&n=1"},
		{attackParam, "https://api.example.net/q?sym=x%26admin%3D1&n=1"},
		{attackFragment, "https://api.example.net/q?sym=a%23b&n=1"},
		{attackTraversal, "https://api.example.net/q?sym=..%2F..%2Fadmin%2Fdrop&n=1"},
		{attackJSON, "https://api.example.net/q?sym=%22%7D%2C%22admin%22%3Atrue%2C%22x%22%3A%7B%22&n=1"},
		{attackHeader, "https://api.example.net/q?sym=%0D%0AX-Evil%3A+1&n=1"},
		{"a b+c", "https://api.example.net/q?sym=a+b%2Bc&n=1"},
	} {
		got, _, err := mustURLTemplate(t, tmpl).Render(map[string]any{"S": c.value})
		if err != nil || got != c.want {
			t.Errorf("S=%q: %q, %v; want %q", c.value, got, err, c.want)
		}
	}
	// A query key, and "?" inside the query is literal text there.
	got, _, err := mustURLTemplate(t, "https://h/p?[K]=1&next=/a?b=[V]").Render(map[string]any{"K": "a=b&c", "V": "/x?y"})
	if want := "https://h/p?a%3Db%26c=1&next=/a?b=%2Fx%3Fy"; err != nil || got != want {
		t.Errorf("%q, %v; want %q", got, err, want)
	}
}

func TestURLTemplatePlaces(t *testing.T) {
	for _, c := range []struct{ tmpl, want string }{
		{"https://h/[A]", "path"},
		{"https://h/a/b[A]c?x=1", "path"},
		{"https://h?q=[A]", "query"},
		{"https://h/p?q=[A]", "query"},
		{"https://h/p?q=1#[A]", "fragment"},
		{"https://h/p#x?q=[A]", "fragment"},
		{"https://[A]/p", "authority"},
		{"https://h:[A]/p", "authority"},
		{"https://[A]@h/p", "authority"},
		{"[A]/quote", "authority"},
		{"http[A]://h/", "authority"},
	} {
		tp, _ := ParseTemplate(c.tmpl)
		prefix := strings.Split(c.tmpl, "[A]")[0]
		if got := placeInURL(prefix); got != c.want {
			t.Errorf("%s: %s, want %s", c.tmpl, got, c.want)
		}
		_, err := newURLTemplate(tp)
		if refused := c.want == "authority" || c.want == "fragment"; refused != (err != nil) {
			t.Errorf("%s: error %v", c.tmpl, err)
		}
	}
}

func TestRenderJSONString(t *testing.T) {
	const tmpl = `{"name": "[Name]", "admin": false}`
	for _, c := range []struct {
		value any
		want  string
	}{
		{"Alice", `{"name": "Alice", "admin": false}`},
		{attackJSON, `{"name": "\"},\"admin\":true,\"x\":{\"", "admin": false}`},
		{attackHeader, `{"name": "\r\nX-Evil: 1", "admin": false}`},
		{attackTraversal, `{"name": "../../admin/drop", "admin": false}`},
		{`a\`, `{"name": "a\\", "admin": false}`},
		{"\x00\x1f\u2028<&>", `{"name": "\u0000\u001f\u2028<&>", "admin": false}`},
		{"\xff", `{"name": "\ufffd", "admin": false}`},
		{json.Number("1.50"), `{"name": "1.50", "admin": false}`},
		{map[string]any{"b": "\"", "a": int64(1)}, `{"name": "{\"a\":1,\"b\":\"\\\"\"}", "admin": false}`},
	} {
		got, _, err := mustBodyTemplate(t, tmpl).Render(map[string]any{"Name": c.value})
		if err != nil || got != c.want {
			t.Errorf("Name=%#v: %s, %v; want %s", c.value, got, err, c.want)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(got), &doc); err != nil || len(doc) != 2 || doc["admin"] != false {
			t.Errorf("Name=%#v: the body decodes to %v, %v", c.value, doc, err)
		}
	}
	// Text around the placeholder and an escape sequence of the template's own.
	got, _, err := mustBodyTemplate(t, `{"memo": "id \"[Id]\"\n of [Name]"}`).Render(map[string]any{"Id": int64(7), "Name": attackJSON})
	if want := `{"memo": "id \"7\"\n of \"},\"admin\":true,\"x\":{\""}`; err != nil || got != want {
		t.Errorf("%s, %v; want %s", got, err, want)
	}
}

func TestRenderJSONValue(t *testing.T) {
	const tmpl = `{"amount": [Amount], "n": 1}`
	huge, _ := new(big.Int).SetString("123456789012345678901234567890123456789012345678901234567890", 10)
	u, _ := bigFromText("115792089237316195423570985008687907853269984665640564039457584007913129639935")
	for _, c := range []struct {
		value any
		want  string
	}{
		{int64(-5), "-5"},
		{uint64(math.MaxUint64), "18446744073709551615"},
		{json.Number("100000000000000000000000000000.000000000000000000001"), "100000000000000000000000000000.000000000000000000001"},
		{json.Number("+007.50e+3"), "7.50e+3"},
		{json.Number(".5"), "0.5"},
		{huge, huge.String()},
		{u256{v: u}, u.String()},
		{i256{v: new(big.Int).Neg(u)}, "-" + u.String()},
		{0.1, "0.1"},
		{1e21, "1e+21"},
		{true, "true"},
		{nil, "null"},
		{"12", `"12"`},
		{attackJSON, `"\"},\"admin\":true,\"x\":{\""`},
		{attackHeader, `"\r\nX-Evil: 1"`},
		{[]any{int64(1), "a", json.Number("2.5")}, `[1,"a",2.5]`},
		{map[string]any{"z": nil, "a": []any{}, "m": map[string]any{}}, `{"a":[],"m":{},"z":null}`},
		{[]byte{0xab, 0x01}, `"0xab01"`},
		{7, "7"},
	} {
		got, _, err := mustBodyTemplate(t, tmpl).Render(map[string]any{"Amount": c.value})
		if want := `{"amount": ` + c.want + `, "n": 1}`; err != nil || got != want {
			t.Errorf("Amount=%#v: %s, %v; want %s", c.value, got, err, want)
		}
	}
	for _, v := range []any{math.NaN(), math.Inf(1), json.Number("0x10"), struct{}{}} {
		if got, _, err := mustBodyTemplate(t, tmpl).Render(map[string]any{"Amount": v}); err == nil || !strings.Contains(err.Error(), "[Amount] stands as a whole JSON value") {
			t.Errorf("Amount=%#v: %s, %v; want a refusal", v, got, err)
		}
	}
	// A whole body, list elements, and both places in one template.
	for tmpl, want := range map[string]string{
		`[A]`:                       `{"k":"v"}`,
		`[[A], [B], "[B]"]`:         `[{"k":"v"}, "x\"y", "x\"y"]`,
		"{\"a\":\n\t[A]\n}":         "{\"a\":\n\t{\"k\":\"v\"}\n}",
		`{"list": [[B]], "s": [B]}`: `{"list": ["x\"y"], "s": "x\"y"}`,
	} {
		got, _, err := mustBodyTemplate(t, tmpl).Render(map[string]any{"A": map[string]any{"k": "v"}, "B": `x"y`})
		if err != nil || got != want {
			t.Errorf("%s: %s, %v; want %s", tmpl, got, err, want)
		}
	}
	// A missing key fails the call; the half-rendered body is not checked.
	if _, miss, err := mustBodyTemplate(t, tmpl).Render(nil); err != nil || len(miss) != 1 {
		t.Errorf("missing Amount: %v, %v", miss, err)
	}
}

func TestBodyTemplatePlaces(t *testing.T) {
	for _, c := range []struct {
		tmpl, contentType string
		templated         bool
		err               string // "" when accepted
	}{
		{`{"id":"[contractTargetId]"}`, "", false, ""}, // the API guide's example
		{`{"id":"[Id]"}`, "application/json; charset=utf-8", false, ""},
		{`{"id":"[Id]"}`, "application/vnd.api+json", false, ""},
		{`id=[Id]`, "application/x-www-form-urlencoded", false, "JSON bodies only"},
		{`<id>[Id]</id>`, "text/xml", false, "JSON bodies only"},
		{`{"id":"[Id]"}`, "[CT]", true, "Content-Type header is rendered from placeholders"},
		{`plain text`, "text/plain", false, ""}, // no placeholders: sent as written
		{`not json, no placeholders`, "", false, ""},
		{`id=[Id]`, "", false, "must be a JSON text"},
		{`{"[K]": 1}`, "", false, "[K] is in a JSON object key"},
		{`{"a[K]b" : 1}`, "", false, "[K] is in a JSON object key"},
		{`{[K]: 1}`, "", false, "must be a JSON text"},
		{`{"a": 1[A]}`, "", false, "must stand as a whole value"},
		{`{"a": -[A]}`, "", false, "must stand as a whole value"},
		{`{"a": [A].5}`, "", false, "must stand as a whole value"},
		{`{"a": [A][B]}`, "", false, "must be a JSON text"},
		{`{"a": "x"[A]}`, "", false, "must be a JSON text"},
		{`{"a": [A] , "b": 1[B]}`, "", false, "[B] outside a JSON string must stand as a whole value"},
		{`{"a": "\[A]"}`, "", false, "follows a backslash"},
		{`{"a": "\u00[A]"}`, "", false, "must be a JSON text"},
		{`{"a": "[A]"`, "", false, "must be a JSON text"},
		{`{"a": [A], }`, "", false, "must be a JSON text"},
		{`{"a": "[A]", "b": [B]}`, "", false, ""},
	} {
		tp, bad := ParseTemplate(c.tmpl)
		if bad != "" {
			t.Fatalf("%s: malformed %s", c.tmpl, bad)
		}
		_, err := newBodyTemplate(tp, c.contentType, c.templated)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s (Content-Type %q): %v; want %q", c.tmpl, c.contentType, err, c.err)
		}
	}
}

func TestRenderHeader(t *testing.T) {
	tp, _ := ParseTemplate("Bearer [Tok]")
	h := newHeaderTemplate(tp)
	for _, v := range []string{"abc", "a\tb", "ü " + attackParam + attackJSON} {
		if got, _, err := h.Render(map[string]any{"Tok": v}); err != nil || got != "Bearer "+v {
			t.Errorf("Tok=%q: %q, %v", v, got, err)
		}
	}
	for _, v := range []string{attackHeader, "a\nb", "a\rb", "a\x00b", "a\x7fb"} {
		if got, _, err := h.Render(map[string]any{"Tok": v}); err == nil || !strings.Contains(err.Error(), "[Tok] puts the control character") {
			t.Errorf("Tok=%q: %q, %v; want a refusal", v, got, err)
		}
	}
}

// Parse refuses placeholders where a value could choose the host or is
// not escaped, naming the JSON path.
func TestParseRefusesUnsafePlaceholders(t *testing.T) {
	call := func(fields string) []byte {
		return []byte(`{"payload": {}, "rules": ["true"], "apiCalls": [{"name": "c", "method": "POST", "contentType": "json",
			"extractMap": {"A": {"type": "bool", "expr": "true"}}, ` + fields + `}]}`)
	}
	for _, c := range []struct {
		fields, path, code, msg string
	}{
		{`"urlTemplate": "https://[Host]/x"`, "apiCalls[0].urlTemplate", CodeURL, "[Host] is in the scheme or host"},
		{`"urlTemplate": "[Base]/quote"`, "apiCalls[0].urlTemplate", CodeURL, "[Base] is in the scheme or host"},
		{`"urlTemplate": "https://api.example.net:[Port]/x"`, "apiCalls[0].urlTemplate", CodeURL, "[Port] is in the scheme or host"},
		{`"urlTemplate": "https://[User]@api.example.net/x"`, "apiCalls[0].urlTemplate", CodeURL, "[User] is in the scheme or host"},
		{`"urlTemplate": "https://e.org/x#[F]"`, "apiCalls[0].urlTemplate", CodeURL, "[F] is in the URL fragment"},
		{`"urlTemplate": "https://e.org/x", "bodyTemplate": "{\"[K]\": 1}"`, "apiCalls[0].bodyTemplate", CodeBody, "[K] is in a JSON object key"},
		{`"urlTemplate": "https://e.org/x", "bodyTemplate": "{\"a\": 1[A]}"`, "apiCalls[0].bodyTemplate", CodeBody, "whole value"},
		{`"urlTemplate": "https://e.org/x", "bodyTemplate": "a=[A]"`, "apiCalls[0].bodyTemplate", CodeBody, "must be a JSON text"},
		{`"urlTemplate": "https://e.org/x", "bodyTemplate": "a=[A]", "headers": {"content-type": "application/x-www-form-urlencoded"}`, "apiCalls[0].bodyTemplate", CodeBody, "JSON bodies only"},
		{`"urlTemplate": "https://e.org/x", "headers": {"X-A": "a\u0000[A]"}`, "apiCalls[0].headers.X-A", CodeHeader, "control characters"},
	} {
		ve := problemsOf(t, call(c.fields))
		p := findProblem(ve.Problems, c.path, c.code)
		if p == nil || !strings.Contains(p.Message, c.msg) {
			t.Errorf("%s: %+v; want %s %s containing %q", c.fields, ve.Problems, c.path, c.code, c.msg)
		}
	}
	// Accepted: placeholders in the path, the query, JSON strings and values, header values.
	mustParse(t, call(`"urlTemplate": "https://e.org/q/[A]?b=[B]", "bodyTemplate": "{\"a\": \"[A]\", \"b\": [B]}", "headers": {"Authorization": "Bearer [T]"}`))
	mustParse(t, call(`"urlTemplate": "https://e.org/x", "bodyTemplate": "a=b", "headers": {"Content-Type": "application/x-www-form-urlencoded"}`))
}

// recorder is a stub APICaller that keeps every request and answers ok.
type recorder struct{ reqs []APIRequest }

func (r *recorder) CallAPI(_ context.Context, req APIRequest) (APIResponse, error) {
	r.reqs = append(r.reqs, req)
	return APIResponse{Status: 200, Body: []byte(`{"ok": true}`)}, nil
}

const escapeDoc = `{
  "payload": {
    "Ticker": {"type": "string"},
    "Amount": {"type": "int64"},
    "Wei":    {"type": "uint256"},
    "Note":   {"type": "string", "default": "-"}
  },
  "apiCalls": [{
    "name": "q", "method": "POST", "contentType": "json",
    "urlTemplate": "https://api.example.net/quote/[Ticker]?note=[Note]&v=1",
    "bodyTemplate": "{\"ticker\": \"[Ticker]\", \"amount\": [Amount], \"wei\": [Wei], \"extra\": [Extra]}",
    "headers": {"X-Note": "n=[Note]"},
    "extractMap": {"Ok": {"type": "bool", "expr": "bool(resp.ok)", "default": false}}
  }],
  "rules": ["[Ok]"]
}`

// Through Evaluate: the request the caller receives, value by value.
func TestEvaluateEscapesAPICall(t *testing.T) {
	d := mustParse(t, []byte(escapeDoc))
	payload := func(ticker, note string) map[string]any {
		return map[string]any{"Ticker": ticker, "Note": note, "Amount": json.Number("5"),
			"Wei": "1000000000000000000000", "Extra": json.Number("123456789012345678901234567890.10")}
	}
	for _, c := range []struct {
		ticker, note, url, tickerJSON, header string
	}{
		{"XGR", "hi", "https://api.example.net/quote/XGR?note=hi&v=1", `"XGR"`, "n=hi"},
		{"XGR/" + attackTraversal, attackParam, "https://api.example.net/quote/XGR%2F..%2F..%2Fadmin%2Fdrop?note=x%26admin%3D1&v=1",
			`"XGR/../../admin/drop"`, "n=x&admin=1"},
		{attackFragment, attackFragment, "https://api.example.net/quote/a%23b?note=a%23b&v=1", `"a#b"`, "n=a#b"},
		{attackJSON, attackJSON, "https://api.example.net/quote/%22%7D%2C%22admin%22:true%2C%22x%22:%7B%22?note=%22%7D%2C%22admin%22%3Atrue%2C%22x%22%3A%7B%22&v=1",
			`"\"},\"admin\":true,\"x\":{\""`, `n="},"admin":true,"x":{"`},
	} {
		rec := &recorder{}
		r := eval(t, d, payload(c.ticker, c.note), Sources{API: rec})
		if !r.Valid || len(rec.reqs) != 1 {
			t.Fatalf("ticker %q: valid %v, %d requests, calls %+v", c.ticker, r.Valid, len(rec.reqs), r.Calls)
		}
		req := rec.reqs[0]
		body := `{"ticker": ` + c.tickerJSON + `, "amount": 5, "wei": 1000000000000000000000, "extra": 123456789012345678901234567890.10}`
		if req.URL != c.url || string(req.Body) != body || len(req.Headers) != 1 || req.Headers[0].Value != c.header || r.Calls[0].URL != c.url {
			t.Errorf("ticker %q note %q:\n url  %s\n want %s\n body %s\n want %s\n headers %v", c.ticker, c.note, req.URL, c.url, req.Body, body, req.Headers)
		}
		var fields map[string]any
		if err := json.Unmarshal(req.Body, &fields); err != nil || len(fields) != 4 || fields["ticker"] != c.ticker {
			t.Errorf("ticker %q: body fields %v, %v", c.ticker, fields, err)
		}
	}
	// Refusals are hard errors at the template's path; nothing is sent.
	for _, c := range []struct{ ticker, note, path, msg string }{
		{"..", "hi", "apiCalls[0].urlTemplate", `[Ticker] makes the URL path segment ".."`},
		{".", "hi", "apiCalls[0].urlTemplate", `[Ticker] makes the URL path segment "."`},
		{"XGR", attackHeader, "apiCalls[0].headers.X-Note", `[Note] puts the control character '\r' into the header value`},
	} {
		rec := &recorder{}
		hardError(t, d, payload(c.ticker, c.note), Sources{API: rec}, "apiCalls", c.path, c.msg)
		if len(rec.reqs) != 0 {
			t.Errorf("ticker %q note %q: %d requests were sent", c.ticker, c.note, len(rec.reqs))
		}
	}
	// A whole-value placeholder renders a double input without float noise.
	d = mustParse(t, []byte(`{"payload": {"P": {"type": "double"}}, "rules": ["[Ok]"],
	  "apiCalls": [{"name": "q", "method": "POST", "contentType": "json", "urlTemplate": "https://e.org/p",
	    "bodyTemplate": "{\"p\": [P], \"q\": \"[P]\"}", "extractMap": {"Ok": {"type": "bool", "expr": "true"}}}]}`))
	rec := &recorder{}
	eval(t, d, map[string]any{"P": json.Number("0.1")}, Sources{API: rec})
	if len(rec.reqs) != 1 || string(rec.reqs[0].Body) != `{"p": 0.1, "q": "0.1"}` {
		t.Errorf("double: %+v", rec.reqs)
	}
}

// The public fixtures' calls render exactly as the plain text renderer
// rendered them before escaping existed: their values need no escaping.
func TestFixtureCallsRenderUnchanged(t *testing.T) {
	for _, c := range []struct {
		fixture []byte
		payload map[string]any
		urls    []string
	}{
		{repairedPi(t), map[string]any{"Iter": 0, "S": 0, "Pi": 0}, nil}, // IterationOfPi makes no calls
		{readFixture(t, feedFixture), map[string]any{}, []string{"https://api.coinbase.com/v2/prices/BTC-USD/spot"}},
		{readFixture(t, feedFixture), map[string]any{"Base": "ETH", "Quote": "EUR"}, []string{"https://api.coinbase.com/v2/prices/ETH-EUR/spot"}},
		{readFixture(t, quorumFixture), map[string]any{}, []string{
			"https://api.coinbase.com/v2/prices/BTC-USD/spot",
			"https://www.bitstamp.net/api/v2/ticker/btcusd",
			"https://api.coingecko.com/api/v3/simple/price?ids=bitcoin&vs_currencies=usd",
		}},
	} {
		d := mustParse(t, c.fixture)
		rec := &recorder{}
		if _, err := Evaluate(context.Background(), d, c.payload, Sources{API: rec}); err != nil {
			t.Fatal(err)
		}
		if len(rec.reqs) != len(c.urls) || len(d.APICalls) != len(c.urls) {
			t.Fatalf("%d requests, %d calls; want %d", len(rec.reqs), len(d.APICalls), len(c.urls))
		}
		env := map[string]any{"Base": "BTC", "Quote": "USD"}
		for k, v := range c.payload {
			env[k] = v
		}
		for i, req := range rec.reqs {
			old, _ := ParseTemplate(d.APICalls[i].URL.Source)
			plain, _, _ := old.Render(env)
			if req.URL != c.urls[i] || req.URL != plain || req.Body != nil || len(req.Headers) != 1 || req.Headers[0] != (RenderedHeader{Name: "Accept", Value: "application/json"}) {
				t.Errorf("call %d: %+v; want URL %s (plain rendering %s)", i, req, c.urls[i], plain)
			}
		}
	}
}
