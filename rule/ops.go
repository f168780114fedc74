package rule

import (
	"errors"
	"math"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// Numeric operators over dynamic values.
//
// CEL dispatches a binary operator on its left operand, so "0 < [Amount]"
// with a u256 on the right would reach int's comparison and fail, and
// "42 == [Amount]" would be false. Every environment value is dyn, so the
// compiler rewrites each arithmetic, comparison and equality operator that
// has a dyn operand into one of the functions below (numericRewrite). They
// decide at run time:
//
//   - a u256 or i256 operand: exact big-integer arithmetic, ordering and
//     equality, in either operand order (bigint.go);
//   - int or uint mixed with double: the double operation (JSON does not
//     tell 2 from 2.0, so undeclared numbers of either form work alike);
//   - int mixed with uint: exact, giving uint when the result is in
//     [0, 2^64-1], else int, else an overflow error;
//   - "x in list" compares the elements with == as above;
//   - anything else: the standard CEL operator.
//
// Operators whose operands are all statically typed (literals, casts) are
// left to CEL, so their type errors are still reported at compile time.

var numericOps = map[string]string{
	operators.Add:           "@xgr_add",
	operators.Subtract:      "@xgr_sub",
	operators.Multiply:      "@xgr_mul",
	operators.Divide:        "@xgr_div",
	operators.Modulo:        "@xgr_mod",
	operators.Less:          "@xgr_lt",
	operators.LessEquals:    "@xgr_le",
	operators.Greater:       "@xgr_gt",
	operators.GreaterEquals: "@xgr_ge",
	operators.Equals:        "@xgr_eq",
	operators.NotEquals:     "@xgr_ne",
	operators.In:            "@xgr_in",
}

// opSymbols are the source spellings of the rewritten operators, for
// messages.
var opSymbols = map[string]string{
	"@xgr_add": "+", "@xgr_sub": "-", "@xgr_mul": "*", "@xgr_div": "/", "@xgr_mod": "%",
	"@xgr_lt": "<", "@xgr_le": "<=", "@xgr_gt": ">", "@xgr_ge": ">=", "@xgr_eq": "==", "@xgr_ne": "!=",
	"@xgr_in": "in",
}

// numericLibrary declares the rewritten operators.
func numericLibrary() []cel.EnvOption {
	dd := []*cel.Type{cel.DynType, cel.DynType}
	arith := func(name string) cel.EnvOption {
		op := opSymbols[name]
		return cel.Function(name, cel.Overload(name[1:]+"_dyn", dd, cel.DynType,
			cel.BinaryBinding(func(a, b ref.Val) ref.Val { return arithOp(op, a, b) })))
	}
	rel := func(name string) cel.EnvOption {
		op := opSymbols[name]
		return cel.Function(name, cel.Overload(name[1:]+"_dyn", dd, cel.BoolType,
			cel.BinaryBinding(func(a, b ref.Val) ref.Val { return relation(op, a, b) })))
	}
	return []cel.EnvOption{
		arith("@xgr_add"), arith("@xgr_sub"), arith("@xgr_mul"), arith("@xgr_div"), arith("@xgr_mod"),
		rel("@xgr_lt"), rel("@xgr_le"), rel("@xgr_gt"), rel("@xgr_ge"), rel("@xgr_eq"), rel("@xgr_ne"),
		cel.Function("@xgr_in", cel.Overload("xgr_in_dyn", dd, cel.BoolType, cel.BinaryBinding(inOp))),
	}
}

// numericRewrite is the compile step that routes operators with a dyn
// operand to the functions above. A rewritten operator yields dyn where the
// checker had typed it from the standard overloads (e.g. "1 + [A]" as int),
// so an operator over it counts as having a dyn operand: within a pass
// ("43 == 1 + [A]": children are visited first), and, for a rewritten value
// that reaches an operator through something else (a conditional, a list,
// an index), in the next pass after the AST is checked again. rewrite runs
// the passes until one changes nothing; from the fifth on, every operator
// above a rewritten one is rewritten, which settles any expression in one
// more pass.
type numericRewrite struct {
	changed   int
	ancestors bool
}

// rewrite applies numericRewrite to a checked AST until it is stable.
func rewrite(env *cel.Env, checked *cel.Ast) (*cel.Ast, error) {
	rw := &numericRewrite{}
	opt, err := cel.NewStaticOptimizer(rw)
	if err != nil {
		return nil, err
	}
	for pass := 0; ; pass++ {
		rw.changed, rw.ancestors = 0, pass >= 4
		next, iss := opt.Optimize(env, checked)
		if iss.Err() != nil {
			return nil, errors.New(oneLine(iss.Err().Error()))
		}
		checked = next
		if rw.changed == 0 {
			return checked, nil
		}
	}
}

// Optimize implements cel.ASTOptimizer: one pass.
func (rw *numericRewrite) Optimize(ctx *cel.OptimizerContext, a *celast.AST) *celast.AST {
	dyn := map[int64]bool{} // rewritten in this pass (UpdateExpr keeps a node's id)
	loose := func(e celast.Expr, elems bool) bool { return dyn[e.ID()] || looseType(a.GetType(e.ID()), elems) }
	for _, e := range celast.MatchDescendants(celast.NavigateAST(a), celast.KindMatcher(celast.CallKind)) {
		call := e.AsCall()
		name, ok := numericOps[call.FunctionName()]
		args := call.Args()
		if !ok || call.IsMemberFunction() || len(args) != 2 || !loose(args[0], false) && !loose(args[1], name == "@xgr_in") {
			continue
		}
		dyn[e.ID()] = true
		if rw.ancestors {
			for p, ok := e.Parent(); ok; p, ok = p.Parent() {
				dyn[p.ID()] = true
			}
		}
		ctx.UpdateExpr(e, ctx.NewCall(name, args...))
		rw.changed++
	}
	return a
}

// looseType reports whether a checked type leaves the operand's kind to
// run time; with elems, also a list or map whose elements' kind is left
// to run time (the right operand of "in").
func looseType(t *types.Type, elems bool) bool {
	if t == nil {
		return true
	}
	switch t.Kind() {
	case types.DynKind, types.AnyKind, types.TypeParamKind:
		return true
	case types.ListKind, types.MapKind:
		if !elems {
			return false
		}
		for _, p := range t.Parameters() {
			if looseType(p, false) {
				return true
			}
		}
	}
	return false
}

// arithOp evaluates a op b for + - * / %.
func arithOp(op string, a, b ref.Val) ref.Val {
	if isBig(a) || isBig(b) {
		return bigArith(op, a, b)
	}
	if r, ok := mixedArith(op, a, b); ok {
		return r
	}
	switch op {
	case "+":
		if x, ok := a.(traits.Adder); ok && a.Type().HasTrait(traits.AdderType) {
			return x.Add(b)
		}
	case "-":
		if x, ok := a.(traits.Subtractor); ok && a.Type().HasTrait(traits.SubtractorType) {
			return x.Subtract(b)
		}
	case "*":
		if x, ok := a.(traits.Multiplier); ok && a.Type().HasTrait(traits.MultiplierType) {
			return x.Multiply(b)
		}
	case "/":
		if x, ok := a.(traits.Divider); ok && a.Type().HasTrait(traits.DividerType) {
			return x.Divide(b)
		}
	case "%":
		if x, ok := a.(traits.Modder); ok && a.Type().HasTrait(traits.ModderType) {
			return x.Modulo(b)
		}
	}
	return types.NewErr("no such overload: %s %s %s", typeName(a), op, typeName(b))
}

// mixedArith handles int/uint with double and int with uint; ok is false
// for every other pair.
func mixedArith(op string, a, b ref.Val) (ref.Val, bool) {
	_, da := a.(types.Double)
	_, db := b.(types.Double)
	ia, ib := isInteger(a), isInteger(b)
	switch {
	case da && ib || ia && db:
		if op == "%" {
			return types.NewErr("no such overload: %s %% %s (%% takes integers)", typeName(a), typeName(b)), true
		}
		x, y := toDouble(a), toDouble(b)
		switch op {
		case "+":
			return x + y, true
		case "-":
			return x - y, true
		case "*":
			return x * y, true
		}
		return x / y, true
	case ia && ib && a.Type() != b.Type():
		x, _, _ := bigOperand(a)
		y, _, _ := bigOperand(b)
		r, errVal := bigOp(op, x, y)
		if errVal != nil {
			return errVal, true
		}
		switch {
		case r.Sign() >= 0 && r.IsUint64():
			return types.Uint(r.Uint64()), true
		case r.IsInt64():
			return types.Int(r.Int64()), true
		}
		return types.NewErr("integer overflow: %s %s %s = %s is outside [-2^63, 2^64-1]; use u256(...) or i256(...) for larger integers", x, op, y, r), true
	}
	return nil, false
}

func isInteger(v ref.Val) bool {
	switch v.(type) {
	case types.Int, types.Uint:
		return true
	}
	return false
}

func toDouble(v ref.Val) types.Double {
	switch x := v.(type) {
	case types.Int:
		return types.Double(x)
	case types.Uint:
		return types.Double(x)
	}
	return v.(types.Double)
}

// relation evaluates a op b for < <= > >= == !=.
func relation(op string, a, b ref.Val) ref.Val {
	if op == "==" || op == "!=" {
		var eq bool
		if isBig(a) || isBig(b) {
			eq = bigEqual(a, b)
		} else {
			r, ok := types.Equal(a, b).(types.Bool)
			if !ok {
				return types.NewErr("no such overload: %s %s %s", typeName(a), op, typeName(b))
			}
			eq = bool(r)
		}
		return types.Bool(eq == (op == "=="))
	}
	var c int
	if isBig(a) || isBig(b) {
		cmp, nan, errv := bigCompare(a, b)
		if errv != nil {
			return errv
		}
		if nan {
			return types.False
		}
		c = cmp
	} else {
		if isNaNVal(a) || isNaNVal(b) {
			return types.False
		}
		x, ok := a.(traits.Comparer)
		if !ok || !a.Type().HasTrait(traits.ComparerType) {
			return types.NewErr("no such overload: %s %s %s", typeName(a), op, typeName(b))
		}
		r := x.Compare(b)
		cmp, ok := r.(types.Int)
		if !ok {
			return r
		}
		c = int(cmp)
	}
	switch op {
	case "<":
		return types.Bool(c < 0)
	case "<=":
		return types.Bool(c <= 0)
	case ">":
		return types.Bool(c > 0)
	}
	return types.Bool(c >= 0)
}

func isNaNVal(v ref.Val) bool {
	d, ok := v.(types.Double)
	return ok && math.IsNaN(float64(d))
}

// inOp is "a in b": list membership by the equality of relation, map keys
// as CEL has them.
func inOp(a, b ref.Val) ref.Val {
	if l, ok := b.(traits.Lister); ok {
		it := l.Iterator()
		for it.HasNext() == types.True {
			if eq, ok := relation("==", a, it.Next()).(types.Bool); ok && bool(eq) {
				return types.True
			}
		}
		return types.False
	}
	if c, ok := b.(traits.Container); ok {
		return c.Contains(a)
	}
	return types.NewErr("no such overload: %s in %s", typeName(a), typeName(b))
}
