package rule

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// sixteen is "join([a, a, … 16 times], ”)": one value reused 16 times.
func sixteen(v string) string {
	return "join([" + strings.TrimSuffix(strings.Repeat(v+",", 16), ",") + "], '')"
}

// amplifying expressions of the security review: each level multiplies
// what the previous one built, so that a few hundred bytes of expression
// (or a payload string) ask for gigabytes. Each must end as a hard error
// naming the cap, having allocated little.
func amplifying() map[string]string {
	chainJoin := `["x"]` + strings.Repeat(".map(a, "+sixteen("a")+")", 9) + "[0].size() > 0"
	chainPlus := `["xxxxxxxxxxxxxxxx"]` + strings.Repeat(".map(a, a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a)", 9) + "[0].size() > 0"
	payloadJoin := "[P, ''].map(a, " + sixteen("a") + ").map(b, " + sixteen("b") + ")[0].size() > 0"
	list64 := "[" + strings.TrimSuffix(strings.Repeat("a,", 64), ",") + "]"
	dag := "[1]" + strings.Repeat(".map(a, "+list64+")", 6) + ".size() > 0"
	dagEq := "[1]" + strings.Repeat(".map(a, "+list64+")", 5) + ".map(a, a == a)[0]"
	nestedJoin := sixteen(sixteen("P")) + ".size() > 0"
	return map[string]string{
		"join chain":        chainJoin,
		"plus chain":        chainPlus,
		"payload join":      payloadJoin,
		"payload upper":     "[P, ''].map(a, " + sixteen("a.upperAscii()") + ")[0].size() > 0",
		"list dag":          dag,
		"list dag equality": dagEq,
		"nested join":       nestedJoin,
		"join of dag lists": "[1]" + strings.Repeat(".map(a, "+list64+")", 3) + ".map(a, join([a,a,a,a,a,a,a,a], ''))[0].size() > 0",
	}
}

func TestAmplifyingExpressionsAreRefused(t *testing.T) {
	env := map[string]any{"P": strings.Repeat("p", 100_000)}
	for name, src := range amplifying() {
		t.Run(name, func(t *testing.T) {
			if len(src) > MaxExprLen {
				t.Fatalf("test expression is %d bytes, over MaxExprLen", len(src))
			}
			e, err := CompileExpr(src)
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err = e.EvalBool(context.Background(), env)
			runtime.ReadMemStats(&after)
			var xe *ExprError
			if !errors.As(err, &xe) {
				t.Fatalf("got %v, want a hard expression error", err)
			}
			if !errors.Is(err, ErrValueTooLarge) && !errors.Is(err, ErrListCapExceeded) && !isCapError(err) {
				t.Fatalf("got %v, want a cap (value size, list cap or cost)", err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("allocated %d MiB before refusing; the caps allow a few", alloc>>20)
			}
			t.Logf("%s: allocated %d KiB, then: %v", name, (after.TotalAlloc-before.TotalAlloc)>>10, err)
		})
	}
}

// A refused join under || costs its cap, so that refusals cannot repeat for
// free: the loop ends at the cost limit.
func TestRefusedJoinsAreCharged(t *testing.T) {
	l := make([]any, MaxListCap)
	for i := range l {
		l[i] = int64(i)
	}
	src := "L.all(x, L.all(y, L.all(z, " + sixteen("P") + " == '' || true)))"
	e, err := CompileExpr(src)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.EvalBool(context.Background(), map[string]any{"L": l, "P": strings.Repeat("p", 100_000)})
	if !isCapError(err) {
		t.Fatalf("got %v, want the cost limit", err)
	}
}

func TestValuesUpToTheCapAreBuilt(t *testing.T) {
	// Sixteen parts whose list is within the cap join into a string within
	// it; one more part is over it, and so is a string one byte over it.
	p := strings.Repeat("p", MaxValueBytes/16-2)
	e, err := CompileExpr(sixteen("P") + ".size()")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := e.Eval(context.Background(), map[string]any{"P": p}); err != nil || v != int64(16*len(p)) {
		t.Fatalf("join of 16 parts: %v, %v", v, err)
	}
	e, _ = CompileExpr(sixteen("P") + " + P")
	if _, err := e.Eval(context.Background(), map[string]any{"P": p}); !errors.Is(err, ErrValueTooLarge) {
		t.Fatalf("join + P over MaxValueBytes: %v", err)
	}
	q := strings.Repeat("q", MaxValueBytes-1)
	e, _ = CompileExpr("(Q + 'x').size()")
	if v, err := e.Eval(context.Background(), map[string]any{"Q": q}); err != nil || v != int64(MaxValueBytes) {
		t.Fatalf("a string of exactly MaxValueBytes: %v, %v", v, err)
	}
	e, _ = CompileExpr("Q + 'xy'")
	if _, err := e.Eval(context.Background(), map[string]any{"Q": q}); !errors.Is(err, ErrValueTooLarge) {
		t.Fatalf("one byte over MaxValueBytes with +: %v", err)
	}
	// Ordinary list work is untouched: a map over a capped list, list + list
	// up to the cap, comparisons of lists.
	l := make([]any, 32)
	for i := range l {
		l[i] = int64(i)
	}
	e, _ = CompileExpr("(L + L.map(x, x * 2)).size() == 64 && L.map(x, [x, x]) == L.map(y, [y, y]) && 3 in L")
	if ok, err := e.EvalBool(context.Background(), map[string]any{"L": l}); err != nil || !ok {
		t.Fatalf("ordinary list work: %v, %v", ok, err)
	}
	e, _ = CompileExpr("(L + L + [1]).size()")
	if _, err := e.Eval(context.Background(), map[string]any{"L": l}); !errors.Is(err, ErrListCapExceeded) {
		t.Fatalf("list + list over MaxListCap: %v", err)
	}
}

func TestListLiteralOverTheCap(t *testing.T) {
	src := "[" + strings.TrimSuffix(strings.Repeat("1,", MaxListCap+1), ",") + "].size() > 0"
	if _, err := CompileExpr(src); !errors.Is(err, ErrListCapExceeded) {
		t.Fatalf("list literal of %d elements: %v, want ErrListCapExceeded", MaxListCap+1, err)
	}
	src = "[" + strings.TrimSuffix(strings.Repeat("1,", MaxListCap), ",") + "].size() > 0"
	if _, err := CompileExpr(src); err != nil {
		t.Fatalf("list literal of %d elements: %v", MaxListCap, err)
	}
}
