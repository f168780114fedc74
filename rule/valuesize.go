package rule

import (
	"fmt"
	"reflect"

	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
)

// The size of a value is what its text form would take, roughly: a string
// its bytes, bytes their 0x hex, a scalar 8, a big integer 80, a list or map
// its elements (keys included) plus one per element and two for the
// brackets. Shared parts count every time they appear, so a list that holds
// the same list 64 times is 64 times its size: that is what rendering,
// comparing or storing it costs.
const (
	scalarSize = 8
	bigSize    = 80
)

// sizeMemo remembers the sizes of the lists and maps one evaluation has
// measured, by identity, so that a value built from measured parts costs
// only its own elements. A nil memo measures without remembering.
type sizeMemo struct {
	sizes map[any]measured
}

// measured is a memo entry. It holds the value measured so that the
// storage its key names stays alive for the evaluation: a key of a freed
// slice or map could otherwise come back for a new one at the same
// address, with the old one's size.
type measured struct {
	v ref.Val
	n int
}

// over is the size reported for a value over the limit it was measured
// against; the walk stops there.
const over = -1

// size measures v, stopping as soon as the size passes limit (it then
// returns over). Lists and maps are remembered when they are pointers.
func (m *sizeMemo) size(v ref.Val, limit int) int {
	switch x := v.(type) {
	case types.String:
		return sizeOr(len(x), limit)
	case types.Bytes:
		return sizeOr(2*len(x)+2, limit)
	case u256, i256:
		return sizeOr(bigSize, limit)
	case traits.Lister:
		return m.container(v, limit, func(budget int) int {
			n, ok := x.Size().(types.Int)
			if !ok {
				return 0
			}
			total := 2
			for i := types.Int(0); i < n; i++ {
				s := m.size(x.Get(i), budget-total)
				if s == over {
					return over
				}
				if total += s + 1; total > budget {
					return over
				}
			}
			return total
		})
	case traits.Mapper:
		return m.container(v, limit, func(budget int) int {
			total := 2
			it := x.Iterator()
			for it.HasNext() == types.True {
				k := it.Next()
				ks := m.size(k, budget-total)
				if ks == over {
					return over
				}
				total += ks + 2
				vs := m.size(x.Get(k), budget-total)
				if vs == over {
					return over
				}
				if total += vs; total > budget {
					return over
				}
			}
			return total
		})
	}
	return sizeOr(scalarSize, limit)
}

func sizeOr(n, limit int) int {
	if n > limit {
		return over
	}
	return n
}

// container measures a list or map with walk, through the memo.
func (m *sizeMemo) container(v ref.Val, limit int, walk func(budget int) int) int {
	key, ok := memoKey(v)
	if ok && m != nil && m.sizes != nil {
		if e, hit := m.sizes[key]; hit {
			return sizeOr(e.n, limit)
		}
	}
	// A container is measured against the value cap, not the caller's
	// remaining budget, so that the size it leaves in the memo is exact
	// for any later caller.
	s := walk(MaxValueBytes)
	if ok && m != nil && s != over {
		if m.sizes == nil {
			m.sizes = map[any]measured{}
		}
		m.sizes[key] = measured{v: v, n: s}
	}
	if s == over {
		return over
	}
	return sizeOr(s, limit)
}

// storageKey identifies the Go slice or map behind a list or map: the
// values of an input are wrapped anew at every access, but share it.
type storageKey struct {
	p uintptr
	n int
	t reflect.Type
}

// concatListType is the type of "a + b" of two lists (a lazy view whose
// Value() would copy both).
var concatListType = reflect.TypeOf(types.NewRefValList(types.DefaultTypeAdapter, []ref.Val{types.Int(1)}).
	Add(types.NewRefValList(types.DefaultTypeAdapter, []ref.Val{types.Int(2)})))

// memoKey is the identity of a list or map: the storage behind it, or the
// value itself when it is a pointer. Mutable lists and maps (a
// comprehension's accumulator) have none: their size changes.
func memoKey(v ref.Val) (any, bool) {
	switch v.(type) {
	case traits.MutableLister, traits.MutableMapper:
		return nil, false
	}
	t := reflect.TypeOf(v)
	if t.Kind() != reflect.Pointer {
		return nil, false
	}
	if t != concatListType {
		switch rv := reflect.ValueOf(v.Value()); rv.Kind() {
		case reflect.Slice:
			return storageKey{p: rv.Pointer(), n: rv.Len(), t: rv.Type()}, true
		case reflect.Map:
			return storageKey{p: rv.Pointer(), n: -1, t: rv.Type()}, true
		}
	}
	return v, true
}

// sizedActivation carries an evaluation's size memo to the decorated
// nodes, which find it through their frame's activation chain.
type sizedActivation struct {
	interpreter.Activation
	memo sizeMemo
}

// memoOf finds the evaluation's memo from a node's frame; nil when the
// evaluation was not started by evalVal (sizes are then measured without
// a memo, still bounded).
func memoOf(a interpreter.Activation) *sizeMemo {
	for i := 0; a != nil && i < 256; i++ {
		switch t := a.(type) {
		case *sizedActivation:
			return &t.memo
		case interface{ Unwrap() interpreter.Activation }:
			a = t.Unwrap()
		default:
			a = a.Parent()
		}
	}
	return nil
}

// errValueTooLarge is the error value of a node whose result is over
// MaxValueBytes.
func errValueTooLarge(what string) ref.Val {
	return types.WrapErr(fmt.Errorf("%w: %s would be larger than %d bytes, the most an expression may build (MaxValueBytes)",
		ErrValueTooLarge, what, MaxValueBytes))
}

// checkSize refuses a node's result over MaxValueBytes. Scalars are O(1);
// lists and maps are measured once per evaluation (memo).
func checkSize(frame *interpreter.ExecutionFrame, v ref.Val) ref.Val {
	switch x := v.(type) {
	case types.String:
		if len(x) > MaxValueBytes {
			return errValueTooLarge("a string")
		}
	case types.Bytes:
		if 2*len(x)+2 > MaxValueBytes {
			return errValueTooLarge("a bytes value")
		}
	case traits.Lister, traits.Mapper:
		if memoOf(frame).size(v, MaxValueBytes) == over {
			return errValueTooLarge("a list or map")
		}
	}
	return v
}

// sizeDecorator wraps the nodes that build values — list and map literals
// and calls — so that no value over MaxValueBytes leaves them.
// Comprehensions build their results through calls ("+" on the
// accumulator), so they are covered without being wrapped (cel-go marks
// them interruptible by their own type, after this decorator). Attributes
// (inputs, selections of them) and constants hold no more than the inputs,
// which the payload cap bounds. The wrappers keep the interfaces the
// planner and the cost tracker inspect.
func sizeDecorator(i interpreter.InterpretableV2) (interpreter.InterpretableV2, error) {
	switch n := i.(type) {
	case interpreter.InterpretableAttribute, interpreter.InterpretableConst:
		return i, nil
	case interpreter.InterpretableConstructor:
		return &sizedConstructor{n}, nil
	case interpreter.InterpretableCall:
		return &sizedCall{n}, nil
	}
	return i, nil
}

type sizedConstructor struct {
	interpreter.InterpretableConstructor
}

func (s *sizedConstructor) Exec(f *interpreter.ExecutionFrame) ref.Val {
	return checkSize(f, s.InterpretableConstructor.Exec(f))
}

func (s *sizedConstructor) Eval(a interpreter.Activation) ref.Val {
	return s.Exec(interpreter.AsFrame(a))
}

type sizedCall struct{ interpreter.InterpretableCall }

func (s *sizedCall) Exec(f *interpreter.ExecutionFrame) ref.Val {
	switch fn := s.Function(); fn {
	case overloads.Matches:
		// Bounded before the pattern compiles or runs (matches.go).
		if args := s.Args(); len(args) == 2 {
			return matches(args[0].Exec(f), args[1].Exec(f))
		}
	case operators.Add, "@xgr_add":
		if args := s.Args(); len(args) == 2 {
			l, r := args[0].Exec(f), args[1].Exec(f)
			if v := addCheck(l, r); v != nil {
				return v
			}
			if fn == "@xgr_add" {
				return checkSize(f, arithOp("+", l, r))
			}
			a, ok := l.(traits.Adder)
			if !ok {
				return types.MaybeNoSuchOverloadErr(l)
			}
			return checkSize(f, a.Add(r))
		}
	}
	return checkSize(f, s.InterpretableCall.Exec(f))
}

// addCheck is what "+" (CEL's, or the numeric rewrite's) must refuse
// before it builds anything: an operand that is an error or unknown (it
// is the result, as for any strict function), two strings or bytes over
// MaxValueBytes together, two lists over MaxListCap elements together.
// nil when the operation may go ahead.
func addCheck(l, r ref.Val) ref.Val {
	if types.IsUnknownOrError(l) {
		return l
	}
	if types.IsUnknownOrError(r) {
		return r
	}
	switch x := l.(type) {
	case types.String:
		if y, ok := r.(types.String); ok && len(x)+len(y) > MaxValueBytes {
			return errValueTooLarge("a string")
		}
	case types.Bytes:
		if y, ok := r.(types.Bytes); ok && 2*(len(x)+len(y))+2 > MaxValueBytes {
			return errValueTooLarge("a bytes value")
		}
	case traits.Lister:
		if y, ok := r.(traits.Lister); ok {
			n, ok1 := x.Size().(types.Int)
			m, ok2 := y.Size().(types.Int)
			if ok1 && ok2 && n+m > MaxListCap {
				return types.WrapErr(fmt.Errorf("%w: a list of %d elements; at most %d are allowed (MaxListCap)", ErrListCapExceeded, n+m, MaxListCap))
			}
		}
	}
	return nil
}

func (s *sizedCall) Eval(a interpreter.Activation) ref.Val { return s.Exec(interpreter.AsFrame(a)) }
