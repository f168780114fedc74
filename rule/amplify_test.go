package rule

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/google/cel-go/common/types"
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

// Patterns are bounded before they compile or run (the review's forms):
// a pattern that compiles to millions of instructions, and a match whose
// input times program is billions of steps, end at once as hard errors.
func TestMatchesIsBounded(t *testing.T) {
	for name, c := range map[string]struct {
		src string
		env map[string]any
	}{
		"pattern too long":     {"S.matches(P)", map[string]any{"S": "b", "P": strings.Repeat("a{1000}", 3300)}},
		"program too large":    {"S.matches(P)", map[string]any{"S": "b", "P": strings.Repeat("a{1000}", 100)}},
		"match too much work":  {"B.matches('" + strings.Repeat("[ab]{1000}", 4) + "c')", map[string]any{"B": strings.Repeat("a", 100000)}},
		"in a loop, under ||":  {"L.all(x, !S.matches(P) || true)", map[string]any{"L": make([]any, 64), "S": strings.Repeat("a", 60000), "P": strings.Repeat("[ab]{100}", 30) + "c"}},
		"literal pattern work": {"B.matches('" + strings.Repeat("[ab]{1000}", 99) + "c')", map[string]any{"B": strings.Repeat("a", 100000)}},
	} {
		t.Run(name, func(t *testing.T) {
			e, err := CompileExpr(c.src)
			if err != nil {
				if errors.Is(err, ErrExprTooComplex) || errors.Is(err, ErrValueTooLarge) {
					return
				}
				t.Fatal(err)
			}
			_, err = e.Eval(context.Background(), c.env)
			if !errors.Is(err, ErrValueTooLarge) && !errors.Is(err, ErrExprTooComplex) && !isCapError(err) {
				t.Fatalf("got %v, want a bound", err)
			}
		})
	}
	e, _ := CompileExpr("'123-456'.matches('^[0-9]+(-[0-9]+)?$') && matches('hello', '^h.*o$') && !S.matches('^x')")
	if ok, err := e.EvalBool(context.Background(), map[string]any{"S": "abc"}); err != nil || !ok {
		t.Fatalf("ordinary matches: %v %v", ok, err)
	}
}

// Work on long strings is charged by their length, so it cannot repeat
// without bound (the review measured 2–30 s for each form at cost 1).
func TestLongStringWorkIsCharged(t *testing.T) {
	l := make([]any, MaxListCap)
	b, c := strings.Repeat("b", 250_000), strings.Repeat("c", 250_000)
	for _, body := range []string{
		"dist('lev', B, C) > 0.0", "dist('hamming', B, C) > 0.0", "within('lev', B, C, 1.0)",
		"size(B) > 0", "double(B) != 0.0 || true", "bytes(B) != bytes(C)", "string(B) != ''",
		"size(B + C) > 0", "B < C", "B == C",
	} {
		e, err := CompileExpr("L.all(x, L.all(y, L.all(z, (" + body + ") || true)))")
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if _, err := e.Eval(context.Background(), map[string]any{"L": l, "B": b, "C": c}); err == nil || !isCapError(err) && !errors.Is(err, ErrValueTooLarge) {
			t.Errorf("%s in a 64³ loop: %v, want the cost limit", body, err)
		}
	}
}

// A result is refused as it is converted once it passes MaxValueBytes,
// whatever reached it: an input read as it is cannot leave an expression
// larger than the cap.
func TestResultsAreCapped(t *testing.T) {
	e, _ := CompileExpr("[R, R]")
	if _, err := e.Eval(context.Background(), map[string]any{"R": strings.Repeat("r", MaxValueBytes/2)}); !errors.Is(err, ErrValueTooLarge) {
		t.Fatalf("a result over the cap: %v", err)
	}
	e, _ = CompileExpr("R.s")
	if _, err := e.Eval(context.Background(), map[string]any{"R": map[string]any{"s": strings.Repeat("r", MaxValueBytes+1)}}); !errors.Is(err, ErrValueTooLarge) {
		t.Fatalf("an attribute read over the cap: %v", err)
	}
}

// The memo keeps what it measured alive: a freed list's address cannot
// come back for a new one with the old size.
func TestSizeMemoHoldsWhatItMeasured(t *testing.T) {
	var m sizeMemo
	v := types.DefaultTypeAdapter.NativeToValue([]any{"a", "b"})
	if n := m.size(v, MaxValueBytes); n != 2+2*(1+1) {
		t.Fatalf("size %d", n)
	}
	for k, e := range m.sizes {
		if e.v != v {
			t.Fatalf("the memo entry %v does not hold the value it measured", k)
		}
	}
	if len(m.sizes) != 1 {
		t.Fatalf("%d memo entries", len(m.sizes))
	}
}
