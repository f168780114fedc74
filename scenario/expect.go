package scenario

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// Check is one verdict of the report: what was expected, what was seen.
type Check struct {
	// Name says what is checked, e.g. "timeline request_kyc #1".
	Name string `json:"name"`
	// Path locates the expectation in the file.
	Path     string `json:"path,omitempty"`
	Passed   bool   `json:"passed"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
	// Details are the field checks a timeline entry is made of.
	Details []Check `json:"details,omitempty"`
}

// Evaluate checks a session against expectations: one check per timeline
// entry, then one for the final status and one for the final step when the
// expectations name them. It is pure.
func Evaluate(e *Expectations, o *Observed) []Check {
	var out []Check
	for _, g := range e.Timeline {
		out = append(out, evalGroup(g, o))
	}
	final := o.Final()
	finalDesc := "no process"
	if final != nil {
		finalDesc = fmt.Sprintf("%s (%s, %s)", final.Step, final.Pid, final.Status)
	}
	if len(e.FinalStatuses) > 0 {
		c := Check{Name: "final status", Path: e.FinalStatusesPath, Expected: strings.Join(e.FinalStatuses, " or "), Actual: finalDesc}
		if final != nil {
			for _, s := range e.FinalStatuses {
				c.Passed = c.Passed || final.Status == s
			}
			c.Actual = final.Status + " (" + final.Pid + " " + final.Step + ")"
		}
		out = append(out, c)
	}
	if e.FinalStep != "" {
		c := Check{Name: "final step", Path: e.FinalStepPath, Expected: e.FinalStep, Actual: finalDesc}
		if final != nil {
			c.Passed = final.Step == e.FinalStep
			c.Actual = final.Step + " (" + final.Pid + " " + final.Status + ")"
		}
		out = append(out, c)
	}
	return out
}

func evalGroup(g *Group, o *Observed) Check {
	c := Check{Name: "timeline " + g.Label, Path: g.Path, Passed: g.Mode != AnyOf}
	var exp, act []string
	for _, a := range g.Alts {
		ac := evalAlt(a, o)
		if g.Mode == AnyOf {
			c.Passed = c.Passed || ac.Passed
		} else {
			c.Passed = c.Passed && ac.Passed
		}
		exp, act = append(exp, ac.Expected), append(act, ac.Actual)
		if len(g.Alts) == 1 {
			c.Details = ac.Details
		} else {
			c.Details = append(c.Details, ac)
		}
	}
	sep := " and "
	if g.Mode == AnyOf {
		sep = " or "
	}
	c.Expected, c.Actual = strings.Join(exp, sep), strings.Join(act, "; ")
	return c
}

// evalAlt checks one alternative: existence, then (for a process that
// must exist) valid, status and the value checks.
func evalAlt(a *Alt, o *Observed) Check {
	c := Check{Name: a.label(), Path: a.Path}
	p := o.Occurrence(a.StepID, a.Occurrence)
	exist := Check{Name: "exist", Path: a.Path, Expected: strconv.FormatBool(a.Exist), Actual: strconv.FormatBool(p != nil)}
	exist.Passed = (p != nil) == a.Exist
	c.Details = append(c.Details, exist)
	var want []string
	if a.Exist {
		want = append(want, "exists")
	} else {
		want = append(want, "does not exist")
	}
	if p == nil {
		c.Actual = fmt.Sprintf("no process #%d of %s", a.Occurrence, a.StepID)
	} else {
		c.Actual = describe(p)
	}
	if a.Exist && p != nil {
		if a.Valid != nil {
			d := Check{Name: "valid", Path: a.Path, Expected: strconv.FormatBool(*a.Valid), Actual: validText(p)}
			if len(p.Reasons) > 0 {
				d.Actual += " (" + strings.Join(p.Reasons, "; ") + ")"
			}
			if p.Error != "" {
				d.Actual += " (" + p.Status + ": " + p.Error + ")"
			}
			d.Passed = p.Valid != nil && *p.Valid == *a.Valid
			c.Details = append(c.Details, d)
		}
		if a.Status != "" {
			c.Details = append(c.Details, Check{Name: "status", Path: a.Path, Expected: a.Status, Actual: p.Status, Passed: p.Status == a.Status})
		}
		c.Details = append(c.Details, evalValues("input", a.Input, p, p.Input)...)
		c.Details = append(c.Details, evalValues("api", a.API, p, p.API)...)
		c.Details = append(c.Details, evalValues("contractRead", a.Reads, p, p.Reads)...)
	}
	if a.Exist {
		if a.Valid != nil {
			want = append(want, "valid "+strconv.FormatBool(*a.Valid))
		}
		if a.Status != "" {
			want = append(want, "status "+a.Status)
		}
		if n := len(a.Input) + len(a.API) + len(a.Reads); n > 0 {
			want = append(want, fmt.Sprintf("%d value checks", n))
		}
	}
	c.Expected = a.label() + " " + strings.Join(want, ", ")
	c.Passed = true
	for _, d := range c.Details {
		c.Passed = c.Passed && d.Passed
	}
	return c
}

// describe says what a process shows: "1:2 done valid", "1:3 waiting",
// "1:1 aborted (error: …)".
func describe(p *Proc) string {
	s := p.Pid + " " + p.Status
	if p.Valid != nil || p.Executed {
		s += " " + validText(p)
	}
	if p.Error != "" {
		s += " (error: " + p.Error + ")"
	}
	return s
}

func validText(p *Proc) string {
	switch {
	case p.Valid == nil:
		return "not evaluated"
	case *p.Valid:
		return "valid"
	}
	return "invalid"
}

func evalValues(kind string, as []*Assertion, p *Proc, got map[string]any) []Check {
	var out []Check
	for _, a := range as {
		c := Check{Name: kind + " " + a.Field, Path: a.Path, Expected: a.Op + " " + show(a.Value)}
		if a.Op == OpExists || a.Op == OpMissing {
			c.Expected = a.Op
		}
		if !p.Recorded {
			c.Actual = "the step did not run (no evaluation recorded)"
			out = append(out, c)
			continue
		}
		v, present := got[a.Field]
		c.Actual = "missing"
		if present {
			c.Actual = show(v)
		}
		ok, why := Compare(a.Op, a.ValueType, a.Value, v, present)
		c.Passed = ok
		if why != "" {
			c.Actual += " (" + why + ")"
		}
		out = append(out, c)
	}
	return out
}

// show renders a value as JSON.
func show(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case *big.Int:
		return x.String()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// Value-check operators.
const (
	OpEq          = "eq"
	OpNe          = "ne"
	OpGt          = "gt"
	OpGte         = "gte"
	OpLt          = "lt"
	OpLte         = "lte"
	OpExists      = "exists"
	OpMissing     = "missing"
	OpContains    = "contains"
	OpNotContains = "notContains"
	OpStartsWith  = "startsWith"
	OpEndsWith    = "endsWith"
	OpRegex       = "regex"
)

var opNames = []string{OpEq, OpNe, OpGt, OpGte, OpLt, OpLte, OpExists, OpMissing, OpContains, OpNotContains, OpStartsWith, OpEndsWith, OpRegex}

var opAliases = map[string]string{
	"eq": OpEq, "=": OpEq, "==": OpEq, "equals": OpEq,
	"ne": OpNe, "neq": OpNe, "!=": OpNe, "<>": OpNe, "notequals": OpNe,
	"gt": OpGt, ">": OpGt, "gte": OpGte, "ge": OpGte, ">=": OpGte,
	"lt": OpLt, "<": OpLt, "lte": OpLte, "le": OpLte, "<=": OpLte,
	"exists": OpExists, "exist": OpExists, "missing": OpMissing, "notexists": OpMissing, "notexist": OpMissing,
	"contains": OpContains, "notcontains": OpNotContains,
	"startswith": OpStartsWith, "endswith": OpEndsWith, "regex": OpRegex, "matches": OpRegex,
}

// normalizeOp maps an operator as editors write it ("=", ">=", "not
// contains", "starts_with", …) to its canonical name.
func normalizeOp(op string) (string, bool) {
	k := strings.ToLower(strings.NewReplacer(" ", "", "_", "", "-", "").Replace(op))
	n, ok := opAliases[k]
	return n, ok
}

var numericTypes = map[string]bool{"int": true, "int64": true, "int256": true, "uint": true, "uint64": true, "uint256": true,
	"double": true, "decimal": true, "number": true, "float": true, "timestamp_ms": true, "duration_ms": true}

// Compare applies a value check: op against the expected value (its
// valueType tells how to read it) on the actual value (present false: the
// field is missing). Numbers compare exactly whatever their Go form
// (json.Number, float64, integers, *big.Int, decimal strings); booleans
// also from "true"/"false"; everything else by JSON equality. why explains
// a failure that is not a plain mismatch.
func Compare(op, valueType string, want, got any, present bool) (ok bool, why string) {
	switch op {
	case OpExists:
		return present, ""
	case OpMissing:
		return !present, ""
	}
	if !present {
		return false, ""
	}
	vt := strings.ToLower(valueType)
	switch op {
	case OpEq, OpNe:
		eq, why := equal(vt, want, got)
		if why != "" {
			return false, why
		}
		return eq == (op == OpEq), ""
	case OpGt, OpGte, OpLt, OpLte:
		c, ok := cmpNumbers(got, want)
		if !ok {
			return false, "not comparable as numbers"
		}
		switch op {
		case OpGt:
			return c > 0, ""
		case OpGte:
			return c >= 0, ""
		case OpLt:
			return c < 0, ""
		}
		return c <= 0, ""
	}
	gs, okG := got.(string)
	ws, okW := want.(string)
	if !okW {
		ws = show(want)
	}
	if !okG {
		return false, "not a string"
	}
	switch op {
	case OpContains:
		return strings.Contains(gs, ws), ""
	case OpNotContains:
		return !strings.Contains(gs, ws), ""
	case OpStartsWith:
		return strings.HasPrefix(gs, ws), ""
	case OpEndsWith:
		return strings.HasSuffix(gs, ws), ""
	case OpRegex:
		re, err := regexp.Compile(ws)
		if err != nil {
			return false, "bad regex: " + err.Error()
		}
		return re.MatchString(gs), ""
	}
	return false, "unknown operator " + op
}

func equal(vt string, want, got any) (bool, string) {
	if vt == "bool" || vt == "boolean" {
		a, okA := boolean(got)
		b, okB := boolean(want)
		if !okA || !okB {
			return false, "not a boolean"
		}
		return a == b, ""
	}
	if numericTypes[vt] || isNumber(want) {
		if c, ok := cmpNumbers(got, want); ok {
			return c == 0, ""
		}
		if numericTypes[vt] {
			return false, "not a number"
		}
	}
	if b, ok := want.(bool); ok {
		a, okA := boolean(got)
		return okA && a == b, ""
	}
	return reflect.DeepEqual(canonical(want), canonical(got)), ""
}

func isNumber(v any) bool {
	switch v.(type) {
	case json.Number, float64, float32, int, int64, int32, uint64, uint32, *big.Int:
		return true
	}
	return false
}

// cmpNumbers compares two numbers exactly, except that a double (a payload
// decoded into float64) is compared with the double nearest to the other
// side, so 0.1 in a file equals 0.1 in a payload.
func cmpNumbers(got, want any) (int, bool) {
	a, okA := number(got)
	b, okB := number(want)
	if !okA || !okB {
		return 0, false
	}
	_, f64 := got.(float64)
	_, f32 := got.(float32)
	if f64 || f32 {
		bf, _ := b.Float64()
		b = new(big.Rat)
		if b.SetFloat64(bf) == nil {
			return 0, false
		}
	}
	return a.Cmp(b), true
}

// number reads v as an exact rational.
func number(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case json.Number:
		return new(big.Rat).SetString(string(x))
	case string:
		return new(big.Rat).SetString(strings.TrimSpace(x))
	case float64:
		r := new(big.Rat)
		if r.SetFloat64(x) == nil {
			return nil, false
		}
		return r, true
	case float32:
		return number(float64(x))
	case int:
		return new(big.Rat).SetInt64(int64(x)), true
	case int64:
		return new(big.Rat).SetInt64(x), true
	case int32:
		return new(big.Rat).SetInt64(int64(x)), true
	case uint64:
		return new(big.Rat).SetInt(new(big.Int).SetUint64(x)), true
	case uint32:
		return new(big.Rat).SetInt64(int64(x)), true
	case *big.Int:
		if x == nil {
			return nil, false
		}
		return new(big.Rat).SetInt(x), true
	}
	return nil, false
}

func boolean(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		b, err := strconv.ParseBool(strings.TrimSpace(x))
		return b, err == nil
	}
	return false, false
}

// canonical turns a value into its JSON-decoded form (numbers as decimal
// text), so values of different Go types compare by meaning.
func canonical(v any) any {
	if r, ok := number(v); ok && isNumber(v) {
		return "#" + r.RatString()
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = canonical(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = canonical(e)
		}
		return out
	}
	return v
}
