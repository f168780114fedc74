package rule

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

// Evaluate runs one step of doc over an input payload in the order of the
// rule document spec §6.1 (contract reads before API calls, as the
// ContractReads guide §1 and the public overview have it too, so that an
// API call's URL can use a value read from chain; spec §2 lists the two the
// other way round):
//
//  1. inputs: declared fields are cast to their types and defaults applied
//     where a field is missing or empty (null, "", [] or {}: Payload guide
//     §6); a missing or empty required input forces the step invalid
//     (rules are skipped);
//     undeclared keys pass through exactly (see normalize: integral
//     numbers as int64 / uint64 or, beyond, exact big integers); the
//     engine meta values of src.Meta are read-only keys that payload keys
//     of the same name cannot override;
//  2. contractReads in array order, each saveAs slot cast or defaulted;
//  3. apiCalls in array order, each alias cast or defaulted;
//  4. rules: all validate rules must hold; a missing key makes a rule false;
//     abortStep / cancelSession rules that hold end the step;
//  5. branch selection: onValid when valid, else onInvalid;
//  6. the branch payload, wakeUps and execution by Eval-or-Render (the
//     execution over the environment overlaid by the branch payload,
//     encoded into Result.Execution; see execution resolution below); a
//     missing key in the valid branch downgrades the step to the invalid
//     branch, in the invalid branch it leaves the step meta-only (no
//     output, no wake-ups, no execution);
//  7. waitSec of the selected branch.
//
// Execution resolution (spec §8.3): "to" must resolve to an address other
// than 0x0; each args[i] is resolved (or defaulted), cast to its XRC type
// and converted to the ABI type of parameter i of "function" (elementary
// types only, integers range-checked for their size, strings and byte
// strings at most MaxStringValueLen characters); calldata is the 4-byte
// selector and the ABI encoding; "value" must be whole wei in
// [0, 2^256-1]; gas.limit passes as written. A value that does not fit is
// a *HardError naming the field (e.g. onValid.execution.args[1]): nothing
// may be signed for such a step. Reverted applies onInvalid after the
// engine saw the onValid execution revert.
//
// Numbers stay exact: a value that is one placeholder ("[Key]") is passed
// through as it is; expressions see uint256 / int256 values (and integers
// beyond 64 bits) as exact big integers, which leave them as decimal
// strings.
//
// Soft-invalid conditions (missing keys, failed calls or reads without
// defaults) make the step invalid and are listed in Result.Reasons. Hard
// errors (a contract read whose backend gave no answer, wrapping
// ErrUnavailable; input type violations, CEL run-time errors outside API
// extraction such as big-integer overflow, evaluator caps, non-boolean
// rules, wake-up fields that resolve to malformed values, API call
// placeholder values that cannot stand where they are placed: a URL path
// segment "." or "..", a header line break, a number without a JSON form;
// a rendered template over MaxValueBytes, an output payload over
// MaxOutputBytes) return a *HardError along with the partial Result. API call templates
// escape every placeholder for its place (see CallTemplate).
//
// Evaluate does no IO except through src, reads no clock except
// src.Clock, and is safe for concurrent use on one Document.
func Evaluate(ctx context.Context, doc *Document, payload map[string]any, src Sources) (*Result, error) {
	e := &evaluation{ctx: ctx, doc: doc, src: src, env: newVars(len(payload) + len(doc.Payload) + len(src.Meta) + 8)}
	res := &Result{Output: map[string]any{}, Extracted: map[string]any{}, Reasons: []Reason{}}
	e.res = res
	start := e.now()
	defer func() { res.Timings.Total = e.since(start) }()

	t := e.now()
	forced, err := e.inputs(payload)
	res.Timings.Inputs = e.since(t)
	if err != nil {
		return res, err
	}

	t = e.now()
	for i, r := range doc.ContractReads {
		if err := e.contractRead(i, r); err != nil {
			res.Timings.ContractReads = e.since(t)
			return res, err
		}
	}
	res.Timings.ContractReads = e.since(t)

	t = e.now()
	for i, c := range doc.APICalls {
		if err := e.apiCall(i, c); err != nil {
			res.Timings.APICalls = e.since(t)
			return res, err
		}
	}
	res.Timings.APICalls = e.since(t)

	t = e.now()
	rulesHold, err := e.rules(forced)
	res.Timings.Rules = e.since(t)
	if err != nil || res.Action != nil {
		return res, err
	}

	t = e.now()
	defer func() { res.Timings.Outcome = e.since(t) }()
	valid := !forced && rulesHold && !e.soft
	if valid {
		out, wakes, call, miss, err := e.outcome(doc.OnValid, "onValid")
		if err != nil {
			return res, err
		}
		if miss == nil {
			e.finish(true, doc.OnValid, out, wakes, call)
			return res, nil
		}
		e.reason(ReasonSoftInvalid, miss.path, miss.keys, "missing "+keyList(miss.keys)+" in the valid branch "+miss.section+"; the step is downgraded to onInvalid")
	}
	if err := e.invalidBranch(); err != nil {
		return res, err
	}
	return res, nil
}

// invalidBranch applies onInvalid: its payload, wake-ups and execution; a
// missing key in any of them leaves the step meta-only.
func (e *evaluation) invalidBranch() error {
	out, wakes, call, miss, err := e.outcome(e.doc.OnInvalid, "onInvalid")
	if err != nil {
		return err
	}
	if miss != nil {
		e.reason(ReasonSoftInvalid, miss.path, miss.keys, "missing "+keyList(miss.keys)+" in the invalid branch "+miss.section+"; the step is meta-only (no output, no wake-ups, no execution)")
		e.res.MetaOnly = true
		out, wakes, call = map[string]any{}, nil, nil
	}
	e.finish(false, e.doc.OnInvalid, out, wakes, call)
	return nil
}

type evaluation struct {
	ctx  context.Context
	doc  *Document
	src  Sources
	env  vars
	res  *Result
	soft bool
}

func (e *evaluation) now() time.Time {
	if e.src.Clock == nil {
		return time.Time{}
	}
	return e.src.Clock()
}

func (e *evaluation) since(t time.Time) Duration {
	if e.src.Clock == nil {
		return 0
	}
	return Duration(e.src.Clock().Sub(t))
}

func (e *evaluation) reason(code, path string, keys []string, msg string) {
	e.res.Reasons = append(e.res.Reasons, Reason{Code: code, Path: path, Keys: keys, Message: msg})
}

func (e *evaluation) finish(valid bool, b *Branch, out map[string]any, wakes []ResolvedWakeUp, call *execution.Call) {
	r := e.res
	r.Valid = valid
	r.Branch = "onInvalid"
	if valid {
		r.Branch = "onValid"
	}
	r.Output = out
	r.WakeUps = wakes
	r.WaitSec = b.WaitSec
	r.Execution = call
	r.NotPerformed = NotPerformed{Grants: b.Grants, LogExpireDays: b.LogExpireDays, EncryptLogs: b.EncryptLogs}
}

func keyList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = "[" + k + "]"
	}
	if len(q) == 1 {
		return "key " + q[0]
	}
	return "keys " + strings.Join(q, ", ")
}

// inputs builds the environment from the payload and the engine meta
// values; it reports whether a required input is missing.
func (e *evaluation) inputs(payload map[string]any) (bool, error) {
	meta := e.src.Meta
	if len(meta) > 0 {
		merged := make(map[string]any, len(payload)+len(meta))
		for k, v := range payload {
			merged[k] = v
		}
		for k, v := range meta {
			merged[k] = v
		}
		payload = merged
	}
	where := func(k string) jsondoc.Path {
		if _, ok := meta[k]; ok {
			return jsondoc.Path("meta").Key(k)
		}
		return jsondoc.Path("payload").Key(k)
	}
	extra := make([]string, 0, len(payload))
	for k := range payload {
		if e.doc.fields[k] == nil {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		v, err := normalize(payload[k])
		if err != nil {
			return false, &HardError{Stage: "inputs", Path: string(where(k)), Err: err}
		}
		// Undeclared numbers are doubles in expressions (expression guide
		// §6.1), except integers a double cannot hold exactly; passed
		// through they keep their text.
		e.env.set(k, v, celValue(v, true))
	}
	var missing []string
	for _, f := range e.doc.Payload {
		v, ok := payload[f.Name]
		if !ok || isEmpty(v) {
			if f.HasDefault {
				e.env.setTyped(f.Name, f.Type, f.Default)
				continue
			}
			e.env.del(f.Name)
			missing = append(missing, f.Name)
			continue
		}
		c, err := Cast(f.Type, v)
		if err != nil {
			return false, &HardError{Stage: "inputs", Path: string(where(f.Name)), Err: err}
		}
		e.env.setTyped(f.Name, f.Type, c)
	}
	e.res.Inputs = make(map[string]any, len(e.env.out))
	for k, v := range e.env.out {
		if _, isMeta := meta[k]; !isMeta {
			e.res.Inputs[k] = v
		}
	}
	if len(missing) > 0 {
		e.reason(ReasonMissingInput, "payload", missing, "required input "+keyList(missing)+" missing or empty (null, \"\", [] or {}) and without default; rules are skipped and the step is invalid")
		return true, nil
	}
	return false, nil
}

// isEmpty tells whether a declared input counts as not given (Payload
// guide §6): null, the empty string, an empty list or an empty map. 0 and
// false are values.
func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Map:
		return rv.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// rules evaluates every rule; it reports whether all validate rules hold.
func (e *evaluation) rules(forced bool) (bool, error) {
	all := true
	for _, r := range e.doc.Rules {
		rep := RuleReport{Index: r.Index, Type: r.Type}
		if forced {
			rep.Skipped = true
			e.res.Rules = append(e.res.Rules, rep)
			continue
		}
		path := string(jsondoc.Path("rules").Index(r.Index))
		ok, err := r.Expr.EvalBool(e.ctx, e.env.cel)
		var mk *MissingKeysError
		switch {
		case errors.As(err, &mk):
			rep.Missing = mk.Keys
		case err != nil:
			e.res.Rules = append(e.res.Rules, rep)
			return false, &HardError{Stage: "rules", Path: path, Err: err}
		}
		rep.Result = ok
		e.res.Rules = append(e.res.Rules, rep)
		switch r.Type {
		case RuleValidate:
			if !ok {
				all = false
				msg := fmt.Sprintf("rule %q is false", r.Expr.Source)
				if rep.Missing != nil {
					msg = fmt.Sprintf("rule %q is false: %s missing", r.Expr.Source, keyList(rep.Missing))
				}
				e.reason(ReasonRuleFalse, path, rep.Missing, msg)
			}
		default:
			if ok && e.res.Action == nil {
				e.res.Action = &Action{Type: r.Type, Rule: r.Index}
				e.res.Valid = false
				e.res.Branch = ""
			}
		}
	}
	return all, nil
}

// missingAt is a soft-invalid value of a branch payload or wake-up.
type missingAt struct {
	path    string
	section string // "payload" or "wake-ups", for messages
	keys    []string
}

// outcome computes a branch payload and resolves its wake-ups and its
// execution; a missing key stops it with missingAt.
func (e *evaluation) outcome(b *Branch, name string) (map[string]any, []ResolvedWakeUp, *execution.Call, *missingAt, error) {
	out, miss, err := e.outputs(b.Payload, jsondoc.Path(name).Key("payload"))
	if miss != nil || err != nil {
		return nil, nil, nil, miss, err
	}
	var wakes []ResolvedWakeUp
	for i, w := range b.WakeUps {
		r, miss, err := e.wakeUp(w, jsondoc.Path(name).Key("wakeUps").Index(i))
		if miss != nil || err != nil {
			return nil, nil, nil, miss, err
		}
		wakes = append(wakes, r)
	}
	var call *execution.Call
	if b.Execution != nil {
		if call, miss, err = e.execution(b.Execution, out, jsondoc.Path(name).Key("execution")); miss != nil || err != nil {
			return nil, nil, nil, miss, err
		}
	}
	return out, wakes, call, nil, nil
}

// outputs resolves an output object (a branch or wake-up payload). Its
// size as JSON is summed key by key and refused (ErrOutputTooLarge) as
// soon as it passes MaxOutputBytes, before further keys are resolved.
func (e *evaluation) outputs(fields Outputs, base jsondoc.Path) (map[string]any, *missingAt, error) {
	out := make(map[string]any, len(fields))
	total := 2 // {}
	for _, f := range fields {
		path := string(base.Key(f.Key))
		v, miss, err := e.output(f.Value, path)
		if miss != nil || err != nil {
			return nil, miss, err
		}
		budget := MaxOutputBytes - total
		if n := outputSize(f.Key, budget) + 1 + outputSize(v, budget) + 1; n > budget {
			return nil, nil, &HardError{Stage: "outcome", Path: path, Err: fmt.Errorf(
				"%w: with this key the payload %s would be larger than %d bytes as JSON (MaxOutputBytes, the store's payload cap); the keys before it take %d",
				ErrOutputTooLarge, base, MaxOutputBytes, total)}
		} else {
			total += n
		}
		out[f.Key] = v
	}
	return out, nil, nil
}

// output resolves one value that leaves the rule.
func (e *evaluation) output(val *Value, path string) (any, *missingAt, error) {
	v, err := e.resolve(val)
	var mk *MissingKeysError
	if errors.As(err, &mk) {
		section := "payload"
		if strings.Contains(path, ".wakeUps[") {
			section = "wake-ups"
		}
		return nil, &missingAt{path: path, section: section, keys: mk.Keys}, nil
	}
	if err == nil {
		err = checkOutput(v)
	}
	if err != nil {
		return nil, nil, &HardError{Stage: "outcome", Path: path, Err: err}
	}
	return v, nil, nil
}

// resolve is Eval-or-Render: literals as written, templates rendered,
// expressions evaluated, and a value that is one placeholder passed
// through exactly as the environment holds it.
func (e *evaluation) resolve(v *Value) (any, error) {
	switch {
	case v.IsLiteral:
		return v.Literal, nil
	case v.Kind == KindTemplate:
		s, miss, err := v.Template.Render(e.env.out)
		if err != nil {
			return nil, err
		}
		if miss != nil {
			return nil, &MissingKeysError{Keys: miss}
		}
		return s, nil
	case v.Expr.ident != "":
		x, ok := e.env.out[v.Expr.ident]
		if !ok {
			return nil, &MissingKeysError{Keys: []string{v.Expr.ident}}
		}
		return copyPlain(x), nil
	}
	return v.Expr.Eval(e.ctx, e.env.cel)
}

// isCapError reports evaluator cap violations, which stay hard errors even
// where other evaluation failures fall back to defaults.
func isCapError(err error) bool {
	if errors.Is(err, ErrListCapExceeded) || errors.Is(err, ErrExprTooComplex) || errors.Is(err, ErrExprTooLong) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, ErrListCapExceeded.Error()) || strings.Contains(msg, "cost limit exceeded")
}
