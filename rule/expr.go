package rule

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
)

// Expr is a compiled expression. It is immutable and safe for concurrent use.
type Expr struct {
	// Source is the expression as written.
	Source string
	// CEL is the source after placeholder rewriting, as compiled.
	CEL string
	// Keys are the environment keys the expression reads (placeholders and
	// raw identifiers, comprehension variables excluded), sorted.
	Keys []string
	// Nodes is the size of the checked AST.
	Nodes int

	bigLiteral string // set for digits-only literals of 16+ digits (guide §8.4)
	// ident is set when the expression is one environment key ("[Key]"):
	// Eval-or-Render then passes the value through as it is, exactly.
	ident string
	// loops is set when the expression has a comprehension: the only
	// place cel-go checks for interruption, and where one construction can
	// run many times (so sizes are remembered per evaluation).
	loops bool
	prg   cel.Program
}

// ExprError is a hard error of an expression: it does not compile, breaks an
// evaluator cap, or fails at run time for reasons other than missing keys.
type ExprError struct {
	Source string
	Err    error
}

func (e *ExprError) Error() string {
	src := e.Source
	if len(src) > 80 {
		src = src[:77] + "..."
	}
	return fmt.Sprintf("expression %q: %v", src, e.Err)
}

func (e *ExprError) Unwrap() error { return e.Err }

// typeIdents are CEL type names an identifier may denote; they are never
// environment keys.
var typeIdents = map[string]bool{
	"bool": true, "bytes": true, "double": true, "duration": true, "dyn": true, "int": true,
	"list": true, "map": true, "null_type": true, "string": true, "timestamp": true,
	"type": true, "uint": true,
}

// compiler compiles expressions against the helper environment and caches
// the programs by source text.
type compiler struct {
	base     *cel.Env
	maxLen   int // MaxExprLen
	maxNodes int // MaxASTNodes
	mu       sync.RWMutex
	cache    map[string]*compiled
}

type compiled struct {
	expr *Expr
	err  error
}

// maxCachedExprs bounds the program cache; when full, half of it is dropped.
const maxCachedExprs = 4096

var (
	defaultCompilerOnce sync.Once
	defaultCompilerVal  *compiler
)

func defaultCompiler() *compiler {
	defaultCompilerOnce.Do(func() { defaultCompilerVal = newCompiler(MaxExprLen, MaxASTNodes) })
	return defaultCompilerVal
}

// newCompiler builds the helper environment; the caps are parameters only
// so that tests can reach the node cap, which 1024 bytes of CEL cannot.
func newCompiler(maxLen, maxNodes int) *compiler {
	opts := append([]cel.EnvOption{
		cel.CrossTypeNumericComparisons(true),
		cel.EagerlyValidateDeclarations(true),
	}, helperLibrary()...)
	opts = append(opts, numericLibrary()...)
	env, err := cel.NewEnv(opts...)
	if err != nil {
		panic("rule: building the CEL environment: " + err.Error())
	}
	return &compiler{base: env, maxLen: maxLen, maxNodes: maxNodes, cache: map[string]*compiled{}}
}

// CompileExpr compiles one expression (placeholders rewritten, caps
// enforced). Programs are cached by source text, so compiling the same
// expression again is a map lookup.
func CompileExpr(src string) (*Expr, error) { return defaultCompiler().compile(src) }

func (c *compiler) compile(src string) (*Expr, error) {
	c.mu.RLock()
	hit, ok := c.cache[src]
	c.mu.RUnlock()
	if ok {
		return hit.expr, hit.err
	}
	e, err := c.build(src)
	c.mu.Lock()
	if len(c.cache) >= maxCachedExprs {
		n := 0
		for k := range c.cache {
			delete(c.cache, k)
			if n++; n >= maxCachedExprs/2 {
				break
			}
		}
	}
	c.cache[src] = &compiled{expr: e, err: err}
	c.mu.Unlock()
	return e, err
}

func (c *compiler) build(src string) (*Expr, error) {
	fail := func(err error) (*Expr, error) { return nil, &ExprError{Source: src, Err: err} }
	if len(src) > c.maxLen {
		return fail(fmt.Errorf("%w: %d bytes; at most %d are allowed (MaxExprLen)", ErrExprTooLong, len(src), c.maxLen))
	}
	trimmed := strings.TrimSpace(src)
	if len(trimmed) >= 16 && isDigits(trimmed) {
		return &Expr{Source: src, CEL: trimmed, bigLiteral: trimmed, Nodes: 1}, nil
	}
	rewritten, bad := rewriteExpr(src)
	if bad != "" {
		return fail(fmt.Errorf("malformed placeholder %s: placeholders are [Identifier] with Identifier = [A-Za-z_][A-Za-z0-9_]*", bad))
	}
	if strings.TrimSpace(rewritten) == "" {
		return fail(errors.New("empty expression"))
	}
	parsed, iss := c.base.Parse(rewritten)
	if iss.Err() != nil {
		return fail(errors.New(oneLine(iss.Err().Error())))
	}
	keys := freeIdents(parsed.NativeRep().Expr())
	env := c.base
	if len(keys) > 0 {
		vars := make([]cel.EnvOption, len(keys))
		for i, k := range keys {
			vars[i] = cel.Variable(k, cel.DynType)
		}
		var err error
		if env, err = c.base.Extend(vars...); err != nil {
			return fail(err)
		}
	}
	checked, iss := env.Check(parsed)
	if iss.Err() != nil {
		return fail(errors.New(oneLine(iss.Err().Error())))
	}
	nodes := countNodes(checked.NativeRep().Expr())
	if nodes > c.maxNodes {
		return fail(fmt.Errorf("%w: %d AST nodes; at most %d are allowed (MaxAstNodes)", ErrExprTooComplex, nodes, c.maxNodes))
	}
	checked, err := rewrite(env, checked)
	if err != nil {
		return fail(err)
	}
	ident := ""
	if root := parsed.NativeRep().Expr(); root.Kind() == celast.IdentKind && len(keys) == 1 && keys[0] == root.AsIdent() {
		ident = keys[0]
	}
	if err := checkListLiterals(checked.NativeRep().Expr()); err != nil {
		return fail(err)
	}
	prg, err := env.Program(checked,
		cel.CustomDecoratorV2(sizeDecorator),
		cel.CostLimit(MaxEvalCost),
		cel.CostTracking(helperCost{}),
		cel.InterruptCheckFrequency(64),
	)
	if err != nil {
		return fail(err)
	}
	return &Expr{Source: src, CEL: rewritten, Keys: keys, Nodes: nodes, ident: ident, loops: hasComprehension(checked.NativeRep().Expr()), prg: prg}, nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// oneLine folds cel-go's multi-line error text (with its caret drawing)
// into one line an author can read next to a line:column.
func oneLine(s string) string {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "|") {
			continue
		}
		parts = append(parts, strings.TrimPrefix(t, "ERROR: <input>:"))
	}
	return strings.Join(parts, "; ")
}

// freeIdents lists the identifiers an expression reads from its environment:
// not comprehension variables, not type names. Sorted, unique.
func freeIdents(e celast.Expr) []string {
	seen := map[string]bool{}
	var walk func(e celast.Expr, bound map[string]int)
	walk = func(e celast.Expr, bound map[string]int) {
		if e == nil {
			return
		}
		switch e.Kind() {
		case celast.IdentKind:
			n := e.AsIdent()
			if bound[n] == 0 && !typeIdents[n] {
				seen[n] = true
			}
		case celast.SelectKind:
			walk(e.AsSelect().Operand(), bound)
		case celast.CallKind:
			call := e.AsCall()
			if call.IsMemberFunction() {
				walk(call.Target(), bound)
			}
			for _, a := range call.Args() {
				walk(a, bound)
			}
		case celast.ListKind:
			for _, el := range e.AsList().Elements() {
				walk(el, bound)
			}
		case celast.MapKind:
			for _, en := range e.AsMap().Entries() {
				me := en.AsMapEntry()
				walk(me.Key(), bound)
				walk(me.Value(), bound)
			}
		case celast.StructKind:
			for _, f := range e.AsStruct().Fields() {
				walk(f.AsStructField().Value(), bound)
			}
		case celast.ComprehensionKind:
			c := e.AsComprehension()
			walk(c.IterRange(), bound)
			walk(c.AccuInit(), bound)
			inner := map[string]int{}
			for k, v := range bound {
				inner[k] = v
			}
			inner[c.IterVar()]++
			if c.HasIterVar2() {
				inner[c.IterVar2()]++
			}
			inner[c.AccuVar()]++
			walk(c.LoopCondition(), inner)
			walk(c.LoopStep(), inner)
			res := map[string]int{}
			for k, v := range bound {
				res[k] = v
			}
			res[c.AccuVar()]++
			walk(c.Result(), res)
		}
	}
	walk(e, map[string]int{})
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// countNodes counts every node of an AST, comprehension parts and map
// entries included.
func countNodes(e celast.Expr) int {
	n := 0
	celast.PostOrderVisit(e, celast.NewExprVisitor(func(celast.Expr) { n++ }))
	return n
}

// helperCost charges the helpers for their real work so that MaxEvalCost
// also bounds expressions that call them repeatedly: the list helpers pay
// n² for their pairwise loops, Levenshtein one unit per 4096 table cells.
// The charge is made after each call; a single call is bounded by
// MaxListCap and MaxLevenshteinLen.
type helperCost struct{}

func (helperCost) CallCost(function, _ string, args []ref.Val, result ref.Val) *uint64 {
	var c uint64
	switch function {
	case "join":
		// By the text it built; a refused join by the cap it hit, so that
		// refusals cannot repeat for free under || or &&.
		if r, ok := result.(types.String); ok {
			c = uint64(len(r))/10 + 1
		} else {
			c = MaxValueBytes / 10
		}
		if len(args) > 0 {
			if l, ok := args[0].(traits.Lister); ok {
				if n, ok := l.Size().(types.Int); ok && n > 0 {
					c += uint64(n)
				}
			}
		}
	case overloads.Matches:
		// By the match's work (input bytes × program size); a pattern
		// refused by its bounds by the work it would have asked for.
		if len(args) != 2 {
			return nil
		}
		insts, err := 0, error(nil)
		if p, ok := args[1].(types.String); ok {
			insts, err = checkPattern(string(p))
		}
		if err != nil {
			insts = MaxRegexInsts
		}
		c = regexCost(textLen(args[0]), max(insts, 1))
	case "lowerAscii", "upperAscii":
		if len(args) > 0 {
			if s, ok := args[0].(types.String); ok {
				c = uint64(len(s))/10 + 1
			}
		}
	case "@xgr_add", "@xgr_lt", "@xgr_le", "@xgr_gt", "@xgr_ge":
		// The numeric rewrite's operators on strings or bytes: by the
		// bytes they copy or compare (cel-go's own operators are charged
		// so; the rewritten ones were charged 1).
		if len(args) != 2 {
			return nil
		}
		c = uint64(textLen(args[0])+textLen(args[1]))/10 + 1
	case "size", "bytes", "string", "double", "int", "uint", "u256", "uint256", "i256", "int256", "int64", "uint64":
		// Sizes and conversions of strings read every byte (size counts
		// runes): by the bytes read.
		if len(args) == 0 {
			return nil
		}
		n := textLen(args[0])
		if n == 0 {
			return nil
		}
		c = uint64(n)/10 + 1
	case operators.Equals, operators.NotEquals, operators.In, "@xgr_eq", "@xgr_ne", "@xgr_in":
		// Comparing lists or maps walks them: charge what the walk costs
		// (cel-go charges their top-level length only); strings by the
		// bytes compared.
		if len(args) != 2 {
			return nil
		}
		if !isContainer(args[0]) && !isContainer(args[1]) {
			if n := min(textLen(args[0]), textLen(args[1])); n > 0 {
				c = uint64(n)/10 + 1
				break
			}
			return nil
		}
		var m *sizeMemo
		a, b := m.size(args[0], MaxValueBytes), m.size(args[1], MaxValueBytes)
		if a == over {
			a = MaxValueBytes
		}
		if b == over {
			b = MaxValueBytes
		}
		if function == operators.In || function == "@xgr_in" {
			c = uint64(b)/10 + 1
		} else {
			c = uint64(min(a, b))/10 + 1
		}
	case "quorum", "consensus", "unique", "median", "mad":
		if len(args) == 0 {
			return nil
		}
		items, errv := listOf(args[0])
		if errv != nil {
			return nil
		}
		n := uint64(len(items))
		c = n*n + 1
		// Pairwise comparisons of strings read them n times each.
		var text uint64
		for _, it := range items {
			text += uint64(textLen(it))
		}
		c += n * text / 10
		if (function == "quorum" || function == "consensus") && len(args) > 1 && isLev(args[1]) {
			l := uint64(0)
			for _, it := range items {
				l = max(l, levLen(it))
			}
			c += n * n / 2 * l * l / 4096
		}
	case "dist", "within":
		if len(args) < 3 {
			return nil
		}
		c = 1 + uint64(textLen(args[1])+textLen(args[2]))/10
		if isLev(args[0]) {
			c += levLen(args[1]) * levLen(args[2]) / 4096
		}
	default:
		return nil
	}
	charged := c
	return &charged
}

// textLen is the length of a string or bytes value (0 for others).
func textLen(v ref.Val) int {
	switch x := v.(type) {
	case types.String:
		return len(x)
	case types.Bytes:
		return len(x)
	}
	return 0
}

func isContainer(v ref.Val) bool {
	switch v.(type) {
	case traits.Lister, traits.Mapper:
		return true
	}
	return false
}

func isLev(v ref.Val) bool {
	m, errv := parseMetric(v)
	return errv == nil && m == metricLev
}

// levLen is the length the lev metric works on (0 beyond its cap).
func levLen(v ref.Val) uint64 {
	s, ok := v.(types.String)
	if !ok {
		return 0
	}
	n := uint64(utf8.RuneCountInString(string(s)))
	if n > MaxLevenshteinLen {
		return 0
	}
	return n
}

// missing returns the keys of e absent from env.
func (e *Expr) missing(env map[string]any) []string {
	var out []string
	for _, k := range e.Keys {
		if _, ok := env[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

// evalVal evaluates e against env. Missing keys give a *MissingKeysError
// (soft-invalid) without running the program; everything else that fails is
// an *ExprError (hard).
func (e *Expr) evalVal(ctx context.Context, env map[string]any) (ref.Val, error) {
	if e.bigLiteral != "" {
		return types.String(e.bigLiteral), nil
	}
	if miss := e.missing(env); len(miss) > 0 {
		return nil, &MissingKeysError{Keys: miss}
	}
	act, err := interpreter.NewActivation(env)
	if err != nil {
		return nil, &ExprError{Source: e.Source, Err: err}
	}
	// Without a comprehension nothing checks for interruption and no
	// construction repeats: no deadline, no memo (sizes are still
	// checked, each measured on its own).
	evalCtx, in := ctx, act
	if e.loops {
		var cancel context.CancelFunc
		evalCtx, cancel = context.WithTimeout(ctx, MaxEvalTime)
		defer cancel()
		in = &sizedActivation{Activation: act}
	}
	out, err := e.run(evalCtx, in)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			// The caller's time ran out (the step's timeout, a shutdown).
			err = fmt.Errorf("%w: %w", context.Cause(ctx), err)
		case evalCtx.Err() != nil:
			err = fmt.Errorf("%w: ran longer than %s (MaxEvalTime)", ErrEvalTimeout, MaxEvalTime)
		}
		return nil, &ExprError{Source: e.Source, Err: err}
	}
	if types.IsError(out) {
		return nil, &ExprError{Source: e.Source, Err: out.(*types.Err)}
	}
	return out, nil
}

// run evaluates the program; a panic of the evaluator or a helper is an
// error of this expression, never the process's end.
func (e *Expr) run(ctx context.Context, act interpreter.Activation) (out ref.Val, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("evaluation failed: %v", p)
		}
	}()
	out, _, err = e.prg.ContextEval(ctx, act)
	return out, err
}

// hasComprehension reports whether e has a comprehension (a macro).
func hasComprehension(e celast.Expr) bool {
	found := false
	celast.PostOrderVisit(e, celast.NewExprVisitor(func(n celast.Expr) {
		found = found || n.Kind() == celast.ComprehensionKind
	}))
	return found
}

// checkListLiterals refuses a list literal of more than MaxListCap
// elements: no list an expression sees may be longer.
func checkListLiterals(e celast.Expr) error {
	var bad error
	celast.PostOrderVisit(e, celast.NewExprVisitor(func(n celast.Expr) {
		if bad == nil && n.Kind() == celast.ListKind {
			if k := len(n.AsList().Elements()); k > MaxListCap {
				bad = fmt.Errorf("%w: a list literal of %d elements; at most %d are allowed (MaxListCap)", ErrListCapExceeded, k, MaxListCap)
			}
		}
	}))
	return bad
}

// Eval evaluates e against env (values as expressions see them: plain Go
// scalars, lists and maps, or CEL values) and returns a plain Go value
// (see fromCEL).
func (e *Expr) Eval(ctx context.Context, env map[string]any) (any, error) {
	_, out, err := e.eval(ctx, env)
	return out, err
}

// eval is Eval that also returns the CEL value.
func (e *Expr) eval(ctx context.Context, env map[string]any) (ref.Val, any, error) {
	v, err := e.evalVal(ctx, env)
	if err != nil {
		return nil, nil, err
	}
	out, err := fromCEL(v)
	if err != nil {
		return nil, nil, &ExprError{Source: e.Source, Err: err}
	}
	return v, out, nil
}

// EvalBool evaluates a rule: it must produce a bool (a hard error otherwise).
func (e *Expr) EvalBool(ctx context.Context, env map[string]any) (bool, error) {
	v, err := e.evalVal(ctx, env)
	if err != nil {
		return false, err
	}
	b, ok := v.(types.Bool)
	if !ok {
		return false, &ExprError{Source: e.Source, Err: fmt.Errorf("a rule must evaluate to bool, got %s", v.Type().TypeName())}
	}
	return bool(b), nil
}
