package rule

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fuzzAPI answers every call with a small JSON document, never the network.
var fuzzAPI = APICallerFunc(func(_ context.Context, req APIRequest) (APIResponse, error) {
	return APIResponse{Status: 200, Body: []byte(`{"ok":true,"price":"1.5","data":{"amount":"2"},"last":"3","bitcoin":{"usd":4},"list":[1,2,3]}`)}, nil
})

var fuzzReads = ContractReaderFunc(func(context.Context, ReadRequest) ([]any, error) {
	return []any{"1", int64(2), "0x" + "11111111111111111111111111111111111111ab"}, nil
})

// FuzzParse feeds arbitrary bytes to Parse and evaluates what it accepts.
// Neither may panic; rejections must be ValidationErrors with problems.
func FuzzParse(f *testing.F) {
	for _, seed := range [][]byte{
		[]byte(spec112), []byte(spec113),
		[]byte(`{"payload": {"Amount": {"type": "int64"}}, "rules": ["[Amount] > 0"]}`),
		[]byte(`{"payload": {}, "rules": [{"type": "abortStep", "expression": "true"}]}`),
		[]byte(`XGR1.AESGCM.AAAA`),
		[]byte(`{"payload": {"T": {"type": "uint256"}}, "rules": ["0 < [T]", "[__sessionId] > 0"],
		  "onValid": {"wakeUps": [{"runner": "[R]", "sessionId": "[S]", "stepId": "[Next]", "payload": {"t": "[T] * 2"}}]}}`),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, err := Parse(raw)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) == 0 {
				t.Fatalf("rejection without problems: %v", err)
			}
			for _, p := range ve.Problems {
				if p.Line < 0 || p.Col < 0 || p.Message == "" || p.Code == "" {
					t.Fatalf("malformed problem %+v", p)
				}
			}
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		payload := map[string]any{}
		for _, f := range d.Payload {
			payload[f.Name] = "1"
		}
		r, _ := Evaluate(ctx, d, payload, Sources{API: fuzzAPI, Reads: fuzzReads})
		if r == nil {
			t.Fatal("Evaluate returned no result")
		}
	})
}

// FuzzExpr compiles arbitrary expressions and evaluates what compiles
// against a fixed environment. Nothing may panic or run unbounded.
func FuzzExpr(f *testing.F) {
	for _, seed := range []string{
		"[Amount] > 0", "[A] + 15", "4.0*[S]", "memo: [A]", "[Base]-[Quote]",
		`quorum([[P1],[P2],[P3]], "rel", "ball", 0.01, 2)`,
		`consensus([P1, P2, P3], "rel", "medoid", 0.01, 2)`,
		`u256([Wei]) * 2 > u256("1000")`, "[L].map(x, x * 2.0)",
		"0 < u256([Wei])", "42 == 1 + i256([A])", "[A] * 1.5 + [U]",
		// Amplifying forms (security review): each level reuses one value.
		`["x"].map(a, join([a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a], '')).map(a, join([a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a], ''))[0].size()`,
		"[1].map(a, [a,a,a,a,a,a,a,a]).map(b, [b,b,b,b,b,b,b,b]).map(c, c == c)",
		"[Base, Quote].map(s, s + s + s + s).map(s, s.upperAscii() + s)",
	} {
		f.Add(seed)
	}
	env := map[string]any{
		"Amount": int64(5), "A": int64(61), "S": 0.5, "Base": "BTC", "Quote": "USD",
		"P1": 100.0, "P2": 100.5, "P3": 150.0, "Wei": "1000000000000000000000",
		"L": []any{1.0, 2.0, 3.0}, "M": map[string]any{"k": "v", "n": 1.0}, "U": uint64(7), "B": true,
		"resp": map[string]any{"data": map[string]any{"amount": "2"}, "items": []any{"a", "b"}},
	}
	f.Fuzz(func(t *testing.T, src string) {
		Classify(src)
		if tp, bad := ParseTemplate(src); bad == "" {
			tp.Render(env)
		}
		rewriteExpr(src)
		e, err := CompileExpr(src)
		if err != nil {
			var ee *ExprError
			if !errors.As(err, &ee) {
				t.Fatalf("compile error of type %T: %v", err, err)
			}
			return
		}
		if e.Nodes > MaxASTNodes || len(src) > MaxExprLen {
			t.Fatalf("caps not enforced: %d nodes, %d bytes", e.Nodes, len(src))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		v, err := e.Eval(ctx, env)
		if err == nil {
			if _, err := Cast(TypeString, v); err != nil {
				Text(v)
			}
		}
		e.EvalBool(ctx, env)
	})
}

// FuzzRender renders arbitrary API call templates with an arbitrary value
// for every placeholder and checks the escaping invariants: a URL keeps
// the template's scheme, host, path segments, query pairs and fragment; a
// JSON body stays valid JSON with the same keys; a header value never gets
// a line break.
func FuzzRender(f *testing.F) {
	for _, seed := range [][2]string{
		{"https://api.example.net/quote/[T]", "XGR/../../admin/drop"},
		{"https://api.example.net/q?sym=[S]&n=1", "x&admin=1"},
		{"https://api.example.net/v2/[Base]-[Quote]/spot?x=[Base]", "a#b"},
		{`{"name": "[Name]", "amount": [Amount], "list": [[Amount], "[Name]"]}`, `"},"admin":true,"x":{"`},
		{`{"amount": [Amount]}`, `{"nested": [1, 2.50, "x"]}`},
		{"Bearer [Token]", "\r\nX-Evil: 1"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, tmpl, value string) {
		tp, bad := ParseTemplate(tmpl)
		if bad != "" || len(tp.Keys()) == 0 {
			return
		}
		fill := func(v any) map[string]any {
			env := map[string]any{}
			for _, k := range tp.Keys() {
				env[k] = v
			}
			return env
		}
		if c, err := newURLTemplate(tp); err == nil {
			checkRenderedURL(t, c, fill("x"), fill(value))
		}
		if c, err := newBodyTemplate(tp, "", false); err == nil {
			checkRenderedBody(t, c, fill("x"), fill(value))
			dec := json.NewDecoder(strings.NewReader(value))
			dec.UseNumber()
			var v any
			if dec.Decode(&v) == nil {
				if out, _, err := c.Render(fill(v)); err == nil && !json.Valid([]byte(out)) {
					t.Fatalf("body %q with %s rendered invalid JSON %q", tmpl, value, out)
				}
			}
		}
		if strings.IndexFunc(tmpl, isControl) < 0 { // Parse refuses control characters in header values
			out, _, err := newHeaderTemplate(tp).Render(fill(value))
			if err == nil && strings.IndexFunc(out, isControl) >= 0 {
				t.Fatalf("header %q with %q rendered %q", tmpl, value, out)
			}
			if err != nil && strings.IndexFunc(value, isControl) < 0 {
				t.Fatalf("header %q refused %q: %v", tmpl, value, err)
			}
		}
	})
}

// urlShape splits a rendered URL as a client sends it.
func urlShape(s string) (path string, u *url.URL, ok bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", nil, false
	}
	path = s
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		path = s[:i]
	}
	return path, u, true
}

func checkRenderedURL(t *testing.T, c *CallTemplate, probeEnv, env map[string]any) {
	probe, _, err := c.Render(probeEnv)
	if err != nil {
		return // the literal text around the probe makes a dot segment
	}
	ppath, pu, ok := urlShape(probe)
	if !ok {
		return // Parse refuses this urlTemplate
	}
	out, _, err := c.Render(env)
	if err != nil {
		if !strings.Contains(err.Error(), `may not be "." or ".."`) {
			t.Fatalf("%q with %v: %v", c.Source, env, err)
		}
		return
	}
	path, u, ok := urlShape(out)
	if !ok {
		t.Fatalf("%q with %v rendered %q, which is not an absolute URL", c.Source, env, out)
	}
	if u.Scheme != pu.Scheme || u.Host != pu.Host || u.User.String() != pu.User.String() || u.Fragment != pu.Fragment || u.RawFragment != pu.RawFragment {
		t.Fatalf("%q with %v: %q changed the scheme, host or fragment of %q", c.Source, env, out, probe)
	}
	segs, psegs := strings.Split(path, "/"), strings.Split(ppath, "/")
	if len(segs) != len(psegs) {
		t.Fatalf("%q with %v: %q has %d path segments, the template %d", c.Source, env, out, len(segs), len(psegs))
	}
	for i, s := range segs {
		if (s == "." || s == "..") && s != psegs[i] {
			t.Fatalf("%q with %v: %q has the dot segment %q", c.Source, env, out, s)
		}
	}
	if strings.Count(u.RawQuery, "&") != strings.Count(pu.RawQuery, "&") || strings.Count(u.RawQuery, "=") != strings.Count(pu.RawQuery, "=") {
		t.Fatalf("%q with %v: query %q has other pairs than %q", c.Source, env, u.RawQuery, pu.RawQuery)
	}
}

func checkRenderedBody(t *testing.T, c *CallTemplate, probeEnv, env map[string]any) {
	probe, _, err := c.Render(probeEnv)
	if err != nil {
		t.Fatalf("%q with a probe: %v", c.Source, err)
	}
	out, _, err := c.Render(env)
	if err != nil {
		t.Fatalf("%q with %v: %v", c.Source, env, err)
	}
	want, err1 := jsonKeys(probe)
	got, err2 := jsonKeys(out)
	if err1 != nil || err2 != nil {
		t.Fatalf("%q rendered invalid JSON: %q (%v), %q (%v)", c.Source, probe, err1, out, err2)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%q with %v: keys %q, the template's %q", c.Source, env, got, want)
	}
}

// jsonKeys lists the object keys of a JSON text by their paths.
func jsonKeys(s string) ([]string, error) {
	if !json.Valid([]byte(s)) {
		return nil, errors.New("not valid JSON")
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, err
	}
	var keys []string
	var walk func(string, any)
	walk = func(at string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				p := at + "." + strconv.Quote(k)
				keys = append(keys, p)
				walk(p, e)
			}
		case []any:
			for i, e := range x {
				walk(at+"["+strconv.Itoa(i)+"]", e)
			}
		}
	}
	walk("", v)
	sort.Strings(keys)
	return keys, nil
}

// FuzzExecSignature parses arbitrary execution signatures. Nothing may
// panic; an accepted one has at most MaxExecArgs elementary parameters and
// encodes their zero values behind its selector.
func FuzzExecSignature(f *testing.F) {
	for _, s := range []string{"settle(uint256,address)", "f()", "notify(address,uint256)(bool)", "f(uint256[])", "f((bool,string))",
		"f(uint7)", "f(bytes33)", "f(uint,int)", "f(" + strings.Repeat("bool,", 20) + "bool)", "f(", "(", "f(uint256,", "f(function)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sig string) {
		s, err := ParseExecSignature(sig)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if len(s.Params) > MaxExecArgs {
			t.Fatalf("%q: %d params", sig, len(s.Params))
		}
		vals := make([]any, len(s.Params))
		for i, p := range s.Params {
			if p.Type.GetType() == bigIntType {
				vals[i] = new(big.Int)
			} else {
				vals[i] = reflect.Zero(p.Type.GetType()).Interface()
			}
		}
		data, err := s.encode(vals)
		if err != nil || len(data) < 4 || [4]byte(data[:4]) != s.Selector {
			t.Fatalf("%q: encode zero values: %x %v", sig, data, err)
		}
	})
}

// FuzzExecArg converts arbitrary values of every XRC type to arbitrary
// ABI parameter types. Nothing may panic; what converts must pack.
func FuzzExecArg(f *testing.F) {
	for _, c := range [][3]string{{"uint8", "uint64", "255"}, {"uint8", "uint64", "256"}, {"int16", "int64", "-32769"}, {"address", "address", "0x" + strings.Repeat("ab", 20)},
		{"bytes4", "bytes", "0xdeadbeef"}, {"bytes", "bytes", "0x0"}, {"bytes32", "bytes32", "0x" + strings.Repeat("00", 32)}, {"string", "string", "hé"},
		{"bool", "bool", "true"}, {"uint256", "decimal", "1e3"}, {"int256", "int256", "-57896044618658097711785492504343953926634992332820282019728792003956564819968"}} {
		f.Add(c[0], c[1], c[2])
	}
	f.Fuzz(func(t *testing.T, abiType, xrcType, value string) {
		sig, err := ParseExecSignature("f(" + abiType + ")")
		xt, ok := ParseType(xrcType)
		if err != nil || !ok || len(sig.Params) != 1 {
			return
		}
		c, err := Cast(xt, value)
		if err != nil {
			return
		}
		v, err := abiArg(sig.Params[0].Type, xt, c)
		if err != nil {
			if !strings.Contains(err.Error(), "does not fit ABI") {
				t.Fatalf("error without the ABI type: %v", err)
			}
			return
		}
		if _, err := sig.encode([]any{v}); err != nil {
			t.Fatalf("%s %s %q converted to %T but does not pack: %v", abiType, xrcType, value, v, err)
		}
	})
}
