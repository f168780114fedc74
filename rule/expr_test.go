package rule

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

func TestExprKeys(t *testing.T) {
	cases := map[string][]string{
		"[A] + [B] * A":                   {"A", "B"},
		"resp.data.amount":                {"resp"},
		"[L].exists(x, x > [T])":          {"L", "T"},
		"[L].map(x, [L].map(y, x + y))":   {"L"},
		"[L].all(x, x == x)":              nil,
		"type([A]) == string":             {"A"},
		"has(resp.ok) && resp.ok == true": {"resp"},
		"{'k': [V]}['k']":                 {"V"},
		"[L].filter(x, x > 0).size() > 0": {"L"},
		"[[A],[B]]":                       {"A", "B"},
		"Names[Idx]":                      {"Idx", "Names"},
		"42":                              nil,
	}
	cases["[L].all(x, x == x)"] = []string{"L"}
	for src, want := range cases {
		e, err := CompileExpr(src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if len(want) == 0 && len(e.Keys) == 0 {
			continue
		}
		if !reflect.DeepEqual(e.Keys, want) {
			t.Errorf("%s: keys %v, want %v", src, e.Keys, want)
		}
	}
}

func TestExprCaps(t *testing.T) {
	long := "1 + " + strings.Repeat("1 + ", 255) + "1"
	if len(long) <= MaxExprLen {
		t.Fatalf("test expression is only %d bytes", len(long))
	}
	if _, err := CompileExpr(long); !errors.Is(err, ErrExprTooLong) {
		t.Errorf("over MaxExprLen: %v, want ErrExprTooLong", err)
	}
	ok := strings.Repeat("1+", (MaxExprLen-1)/2) + "1"
	if _, err := CompileExpr(ok); err != nil && errors.Is(err, ErrExprTooLong) {
		t.Errorf("%d bytes refused as too long", len(ok))
	}
	// CEL needs more than a byte per checked node (macros included), so no
	// expression within MaxExprLen reaches MaxASTNodes; lift the length cap
	// to show the node cap holds on its own.
	wide := newCompiler(1<<16, MaxASTNodes)
	ones := "[" + strings.Repeat("1,", MaxASTNodes) + "1]"
	if _, err := wide.compile(ones); !errors.Is(err, ErrExprTooComplex) {
		t.Errorf("over MaxAstNodes: %v, want ErrExprTooComplex", err)
	}
	// Exactly MaxASTNodes with every list literal within MaxListCap: an
	// outer list of 64 lists, 63 of 63 ones and one of 62 (1 + 63·64 + 63).
	inner := "[" + strings.Repeat("1,", MaxListCap-2) + "1]"
	at := "[" + strings.Repeat(inner+",", MaxListCap-1) + "[" + strings.Repeat("1,", MaxListCap-3) + "1]]"
	if e, err := wide.compile(at); err != nil || e.Nodes != MaxASTNodes {
		t.Errorf("at MaxAstNodes: %v nodes, %v", e, err)
	}
}

func TestExprListCap(t *testing.T) {
	list := make([]any, MaxListCap+1)
	for i := range list {
		list[i] = int64(i)
	}
	if _, err := normalize(map[string]any{"deep": []any{[]any{list}}}); !errors.Is(err, ErrListCapExceeded) {
		t.Errorf("nested list over cap: %v", err)
	}
	if _, err := normalize(list[:MaxListCap]); err != nil {
		t.Errorf("list at cap refused: %v", err)
	}
	deep := any(1.0)
	for i := 0; i < MaxValueDepth+2; i++ {
		deep = []any{deep}
	}
	if _, err := normalize(deep); err == nil {
		t.Error("value nested beyond MaxValueDepth accepted")
	}
}

func TestExprCostLimit(t *testing.T) {
	list := make([]any, MaxListCap)
	for i := range list {
		list[i] = int64(i)
	}
	env := map[string]any{"L": list}
	e, err := CompileExpr("[L].map(a, [L].map(b, [L].map(c, a + b + c))).size()")
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Eval(context.Background(), env)
	var ee *ExprError
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), "cost limit") || !isCapError(err) {
		t.Errorf("64^3 comprehension: %v, want a cost limit error", err)
	}
	small, _ := CompileExpr("[L].map(a, [L].map(b, a + b)).size()")
	if v, err := small.Eval(context.Background(), env); err != nil || v != int64(64) {
		t.Errorf("64^2 comprehension: %v, %v", v, err)
	}
}

// Levenshtein over capped lists is the costliest helper work: it is
// charged by table cells, so repeating it stops at the cost limit early.
func TestExprCostLimitCountsLevenshtein(t *testing.T) {
	strs := func(n, length int) []any {
		l := make([]any, n)
		for i := range l {
			l[i] = strings.Repeat(fmt.Sprint(i%10), length)
		}
		return l
	}
	list := func(items []any) ref.Val { return types.DefaultTypeAdapter.NativeToValue(items) }
	capped := list(strs(MaxListCap, MaxLevenshteinLen))
	cost := func(fn string, args ...ref.Val) uint64 {
		c := helperCost{}.CallCost(fn, "", args, nil)
		if c == nil {
			t.Fatalf("%s is not charged", fn)
		}
		return *c
	}
	// 64 values: 64² for the pairwise loop, each string read 64 times
	// (64 · 64 · 256 bytes / 10), plus for lev 64²/2 tables of 256² cells
	// / 4096.
	text := uint64(64 * 64 * 256 / 10)
	if got, want := cost("quorum", capped, types.String("lev"), types.Double(0.1), types.Int(2)), uint64(64*64+1)+text+uint64(64*64/2*256*256/4096); got != want {
		t.Errorf("lev quorum cost %d, want %d", got, want)
	}
	if got, want := cost("quorum", capped, types.String("rel"), types.Double(0.1), types.Int(2)), uint64(64*64+1)+text; got != want {
		t.Errorf("rel quorum cost %d, want %d", got, want)
	}
	// dist: both strings read (384 bytes / 10) plus the lev table.
	if got, want := cost("dist", types.String("LEV"), types.String(strings.Repeat("a", 256)), types.String(strings.Repeat("b", 128))), uint64(1+384/10+256*128/4096); got != want {
		t.Errorf("lev dist cost %d, want %d", got, want)
	}
	// A number list pays the pairwise loop only.
	nums := list([]any{1.0, 2.0, 3.0})
	if got, want := cost("quorum", nums, types.String("rel"), types.Double(0.1), types.Int(2)), uint64(3*3+1); got != want {
		t.Errorf("rel quorum of numbers cost %d, want %d", got, want)
	}
	many, _ := CompileExpr(`[L].map(x, quorum([L], "lev", 0.1, 2)).size()`)
	if _, err := many.Eval(context.Background(), map[string]any{"L": strs(MaxListCap, 40)}); err == nil || !isCapError(err) {
		t.Errorf("64 lev quorums: %v, want the cost limit", err)
	}
}

func TestExprCancel(t *testing.T) {
	list := make([]any, MaxListCap)
	for i := range list {
		list[i] = int64(i)
	}
	e, _ := CompileExpr("[L].map(a, [L].map(b, a + b)).size()")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Eval(ctx, map[string]any{"L": list}); err == nil {
		t.Error("evaluation ran to the end on a cancelled context")
	}
}

func TestExprNoHostAccess(t *testing.T) {
	for _, src := range []string{`env("HOME")`, `readFile("/etc/passwd")`, `now()`, `os.getenv("HOME")`, `exec("ls")`} {
		e, err := CompileExpr(src)
		if err == nil {
			_, err = e.Eval(context.Background(), map[string]any{"os": map[string]any{}})
		}
		if err == nil {
			t.Errorf("%s compiled and ran", src)
		}
	}
}

func TestExprMissingKeys(t *testing.T) {
	e, _ := CompileExpr("[A] + [B]")
	_, err := e.Eval(context.Background(), map[string]any{"A": int64(1)})
	var mk *MissingKeysError
	if !errors.As(err, &mk) || !errors.Is(err, ErrSoftInvalid) || !reflect.DeepEqual(mk.Keys, []string{"B"}) {
		t.Errorf("missing key: %v", err)
	}
	r, _ := CompileExpr("[A] > 0")
	if _, err := r.EvalBool(context.Background(), map[string]any{}); !errors.As(err, &mk) {
		t.Errorf("rule with missing key: %v", err)
	}
	nb, _ := CompileExpr("[A] + 1")
	if _, err := nb.EvalBool(context.Background(), map[string]any{"A": int64(1)}); err == nil || !strings.Contains(err.Error(), "must evaluate to bool") {
		t.Errorf("non-bool rule: %v", err)
	}
}

func TestExprSyntaxErrors(t *testing.T) {
	for src, want := range map[string]string{
		"1 +":          "Syntax error",
		"foo(1)":       "undeclared reference to 'foo'",
		"[my-key] > 1": "malformed placeholder [my-key]",
		"   ":          "empty expression",
		"'open":        "Syntax error",
	} {
		_, err := CompileExpr(src)
		var ee *ExprError
		if !errors.As(err, &ee) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an ExprError containing %q", src, err, want)
		}
	}
}

func TestExprCacheAndConcurrency(t *testing.T) {
	a, _ := CompileExpr("[X] * 2 + 1")
	b, _ := CompileExpr("[X] * 2 + 1")
	if a != b {
		t.Error("the same source compiled twice")
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				src := fmt.Sprintf("[X] * %d + %d", g%4, i%5)
				e, err := CompileExpr(src)
				if err != nil {
					errs <- err
					return
				}
				x := int64(g*100 + i)
				v, err := e.Eval(context.Background(), map[string]any{"X": x})
				if err != nil || v != x*int64(g%4)+int64(i%5) {
					errs <- fmt.Errorf("%s with X=%d: %v, %v", src, x, v, err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
