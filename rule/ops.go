package rule

import (
	"math"
	"math/big"

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
}

// opSymbols are the source spellings of the rewritten operators, for
// messages.
var opSymbols = map[string]string{
	"@xgr_add": "+", "@xgr_sub": "-", "@xgr_mul": "*", "@xgr_div": "/", "@xgr_mod": "%",
	"@xgr_lt": "<", "@xgr_le": "<=", "@xgr_gt": ">", "@xgr_ge": ">=", "@xgr_eq": "==", "@xgr_ne": "!=",
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
	}
}

// numericRewrite is the compile step that routes operators with a dyn
// operand to the functions above.
type numericRewrite struct{}

// Optimize implements cel.ASTOptimizer. Calls are visited children first.
// A rewritten operator yields dyn, while the checker had typed it (and so
// every expression around it) from the standard overloads, e.g. "1 + [A]"
// as int: the enclosing expressions of a rewritten call count as dyn too,
// so that "43 == 1 + [A]" is rewritten as well.
func (numericRewrite) Optimize(ctx *cel.OptimizerContext, a *celast.AST) *celast.AST {
	tainted := map[int64]bool{}
	loose := func(e celast.Expr) bool { return tainted[e.ID()] || looseType(a.GetType(e.ID())) }
	for _, e := range celast.MatchDescendants(celast.NavigateAST(a), celast.KindMatcher(celast.CallKind)) {
		call := e.AsCall()
		name, ok := numericOps[call.FunctionName()]
		args := call.Args()
		if !ok || call.IsMemberFunction() || len(args) != 2 || !loose(args[0]) && !loose(args[1]) {
			continue
		}
		tainted[e.ID()] = true // UpdateExpr keeps the node's id
		for p, ok := e.Parent(); ok; p, ok = p.Parent() {
			tainted[p.ID()] = true
		}
		ctx.UpdateExpr(e, ctx.NewCall(name, args...))
	}
	return a
}

// looseType reports whether a checked type leaves the operand's kind to
// run time.
func looseType(t *types.Type) bool {
	if t == nil {
		return true
	}
	switch t.Kind() {
	case types.DynKind, types.AnyKind, types.TypeParamKind:
		return true
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
		if (op == "/" || op == "%") && y.Sign() == 0 {
			if op == "/" {
				return types.NewErr("division by zero"), true
			}
			return types.NewErr("modulus by zero"), true
		}
		r := new(big.Int)
		switch op {
		case "+":
			r.Add(x, y)
		case "-":
			r.Sub(x, y)
		case "*":
			r.Mul(x, y)
		case "/":
			r.Quo(x, y)
		default:
			r.Rem(x, y)
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
