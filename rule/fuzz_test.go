package rule

import (
	"context"
	"errors"
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
