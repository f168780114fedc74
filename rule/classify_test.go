package rule

import (
	"reflect"
	"testing"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		in   string
		want Kind
		why  string
	}{
		// Rule 1: bare placeholder.
		{"[A]", KindExpression, "guide §4: \"[A]\" is an Expression"},
		{"  [A_out]  ", KindExpression, "trimmed bare placeholder"},
		// Rule 2: pure literals.
		{"true", KindExpression, "bool literal"},
		{"false", KindExpression, "bool literal"},
		{"42", KindExpression, "int literal"},
		{"-1.5e3", KindExpression, "double literal"},
		{"7u", KindExpression, "uint literal"},
		{"0x1F", KindExpression, "hex literal"},
		{"0x1111111111111111111111111111111111111111", KindTemplate, "an address is text, not a hex number"},
		{`"some literal string"`, KindExpression, "guide §2: quoted literal"},
		{`'hello'`, KindExpression, "single-quoted literal"},
		// Rule 3: strong operator tokens outside placeholders.
		{"[A] >= 60", KindExpression, "guide §4 implications"},
		{"4.0*[S]", KindExpression, "IterationOfPi"},
		{"int64([Seq]) + 1", KindExpression, "ApiPriceFeed"},
		{"([PrevPrice] == 0.0) ? 0.0 : 1.0", KindExpression, "ternary with parentheses"},
		{"[iban].startsWith(\"DE\")", KindExpression, "method call"},
		{"([A_out] + 15)", KindExpression, "guide §4: parentheses force an expression"},
		{"[a] && [b]", KindExpression, "logical operator"},
		{"!([a])", KindExpression, "negation"},
		// Rule 4: + and - only in an obvious arithmetic context.
		{"[A_out] + 15", KindExpression, "spec §8.2: evaluated as CEL"},
		{"[Iter]+1", KindExpression, "placeholder and number"},
		{"[amount] + 5", KindExpression, "output payload guide"},
		{"1 - 2", KindExpression, "spaced numbers"},
		{"[A] - [B]", KindExpression, "spaced placeholders"},
		{"[Base]-[Quote]", KindTemplate, "ApiPriceFeed pair: a hyphen between placeholders"},
		{"DE-[country]", KindTemplate, "output payload guide: mixed template"},
		{"2024-01-01", KindTemplate, "a date is not arithmetic"},
		{"[Seq] + 1 apples", KindTemplate, "prose after the numbers"},
		{"-[A]", KindTemplate, "sign without operands"},
		// Rule 5: templates.
		{"memo: [A]", KindTemplate, "guide §4 implications"},
		{"Hello [Name], amount=[Amount]", KindTemplate, "guide §2: template example (a lone '=' is text)"},
		{"ok!", KindTemplate, "a lone '!' is text"},
		{"a | b & c", KindTemplate, "single '|' and '&' are text"},
		{"[a] == 1", KindExpression, "'==' is an operator"},
		{"BTC/USD", KindExpression, "'/' is a strong token (guide rule 3); quote text that contains it"},
		{"G:inc", KindTemplate, "plain text"},
		{"coinbase", KindTemplate, "plain text"},
		{"API fetch or validation failed", KindTemplate, "prose"},
		{"", KindTemplate, "empty"},
		{"[0]", KindTemplate, "[0] is not a placeholder"},
		{"[x + 1]", KindTemplate, "brackets that are no placeholder are text, so rule 4 does not apply"},
	}
	for _, c := range cases {
		if got := Classify(c.in); got != c.want {
			t.Errorf("Classify(%q) = %s, want %s (%s)", c.in, got, c.want, c.why)
		}
	}
}

func TestRewriteExpr(t *testing.T) {
	cases := []struct{ in, want, bad string }{
		{"[A] + 1", "A + 1", ""},
		{"[AmountA]", "AmountA", ""},
		{"[[A],[B],[C]]", "[A,B,C]", ""},
		{"quorum([[FetchedCoinbase],[FetchedBitstamp]], \"rel\", 0.01, 2)", "quorum([FetchedCoinbase,FetchedBitstamp], \"rel\", 0.01, 2)", ""},
		{"Names[0]", "Names[0]", ""},
		{"resp.items[0]", "resp.items[0]", ""},
		{"[Names][Idx]", "Names[Idx]", ""},
		{"x[\"key\"]", "x[\"key\"]", ""},
		{"[x + 1]", "[x + 1]", ""},
		{"[X] in [List]", "X in List", ""},
		{"[A] == \"[A]\"", "A == \"[A]\"", ""},
		{"[A] == '[B]'", "A == '[B]'", ""},
		{`"esc \" [A]" + [B]`, `"esc \" [A]" + B`, ""},
		{"[my-key] > 1", "[my-key] > 1", "[my-key]"},
		{"[_x1]", "_x1", ""},
		{"[1x]", "[1x]", ""},
		{"[true, [A]]", "[true, A]", ""},
		{"[null]", "[null]", ""},
	}
	for _, c := range cases {
		got, bad := rewriteExpr(c.in)
		if got != c.want || bad != c.bad {
			t.Errorf("rewriteExpr(%q) = %q, %q; want %q, %q", c.in, got, bad, c.want, c.bad)
		}
	}
}

func TestTemplateRender(t *testing.T) {
	env := map[string]any{"Name": "Alice", "Amount": int64(12), "Base": "BTC", "Quote": "USD", "P": 0.5, "L": []any{1.0, "x"}, "Ok": true}
	cases := []struct {
		in, want string
		missing  []string
	}{
		{"Hello [Name], amount [Amount]", "Hello Alice, amount 12", nil},
		{"[Base]-[Quote]", "BTC-USD", nil},
		{"https://api.example.net/quote/[Base]", "https://api.example.net/quote/BTC", nil},
		{"p=[P] ok=[Ok] l=[L]", "p=0.5 ok=true l=[1,\"x\"]", nil},
		{"no placeholders", "no placeholders", nil},
		{"[Nope] and [Nope] and [Other]", " and  and ", []string{"Nope", "Other"}},
		{"[0] stays", "[0] stays", nil},
	}
	for _, c := range cases {
		tp, bad := ParseTemplate(c.in)
		if bad != "" {
			t.Fatalf("ParseTemplate(%q): malformed %q", c.in, bad)
		}
		got, miss, err := tp.Render(env)
		if err != nil || got != c.want || !reflect.DeepEqual(miss, c.missing) {
			t.Errorf("Render(%q) = %q, %v; want %q, %v", c.in, got, miss, c.want, c.missing)
		}
	}
	for _, in := range []string{"x [my-key] y", "[a.b]", "[user-id]"} {
		if _, bad := ParseTemplate(in); bad == "" {
			t.Errorf("ParseTemplate(%q) accepted a malformed placeholder", in)
		}
	}
}
