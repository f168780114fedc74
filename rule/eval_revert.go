package rule

import (
	"context"
	"errors"
	"fmt"
	"sort"
)

// ReasonExecutionReverted is the Reason code Reverted adds.
const ReasonExecutionReverted = "execution-reverted"

// Reverted is the step after the engine saw its onValid execution revert
// (spec §8.5.3: the step's validity flips to invalid and the onInvalid
// branch applies). done is the finished valid Result whose Execution
// reverted; the engine persists its Inputs and Extracted, and Reverted
// needs nothing else of it (Calls, Reads and Rules are copied when
// present). reason is the decoded revert reason ("" when the node gave
// none).
//
// It calls no API and reads no contract again: the environment is rebuilt
// from done.Inputs (cast again to their declared types), src.Meta and
// done.Extracted (cast to the type of the API alias or saveAs slot that
// produced them; an alias written with "save": false is not in Extracted
// and so is missing here). Over it the onInvalid branch's payload,
// wake-ups and execution resolve as in Evaluate: a missing key leaves the
// step meta-only, a value that does not fit is a *HardError. The Result is
// Valid false, Branch "onInvalid", with done's Reasons plus one
// ReasonExecutionReverted, and onInvalid's Output, WakeUps, WaitSec and
// Execution.
//
// There is no second flip: the engine performs onInvalid's execution at
// most once and, if it reverts too, records that outcome and goes on with
// this Result. Reverted refuses a done that is not a valid onValid result.
// src.Reads and src.API are ignored; src.Clock times the outcome.
func Reverted(ctx context.Context, doc *Document, done *Result, reason string, src Sources) (*Result, error) {
	switch {
	case doc == nil || done == nil:
		return nil, errors.New("rule: Reverted needs the document and the finished result")
	case !done.Valid || done.Branch != "onValid":
		return nil, fmt.Errorf("rule: Reverted flips a valid onValid step; this one is %s (branch %q): an invalid step's execution reverting flips nothing", validity(done.Valid), done.Branch)
	}
	src.Reads, src.API = nil, nil
	e := &evaluation{ctx: ctx, doc: doc, src: src, env: newVars(len(done.Inputs) + len(done.Extracted) + len(src.Meta) + 8)}
	res := &Result{
		Output:    map[string]any{},
		Extracted: make(map[string]any, len(done.Extracted)),
		Reasons:   append([]Reason{}, done.Reasons...),
		Calls:     done.Calls,
		Reads:     done.Reads,
		Rules:     done.Rules,
	}
	e.res = res
	start := e.now()
	defer func() { res.Timings.Outcome = e.since(start); res.Timings.Total = res.Timings.Outcome }()

	inputs := make(map[string]any, len(done.Inputs))
	for k, v := range done.Inputs {
		inputs[k] = v
	}
	forced, err := e.inputs(inputs)
	if err != nil {
		return res, err
	}
	if forced {
		return res, fmt.Errorf("rule: Reverted: the finished result lacks required inputs (%v); pass the Result whose execution reverted", res.Reasons[len(res.Reasons)-1].Keys)
	}
	res.Reasons = append([]Reason{}, done.Reasons...) // inputs() added none for a complete payload

	types := doc.extractTypes()
	keys := make([]string, 0, len(done.Extracted))
	for k := range done.Extracted {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := done.Extracted[k]
		t := types[k]
		if t == TypeInvalid {
			n, err := normalize(v)
			if err != nil {
				return res, &HardError{Stage: "outcome", Path: "extracted." + k, Err: err}
			}
			e.env.set(k, n, celValue(n, true))
			res.Extracted[k] = n
			continue
		}
		c, err := Cast(t, v)
		if err != nil {
			return res, &HardError{Stage: "outcome", Path: "extracted." + k, Err: err}
		}
		e.env.setTyped(k, t, c)
		res.Extracted[k] = c
	}

	msg := "the onValid execution reverted"
	if reason != "" {
		msg += ": " + reason
	}
	e.reason(ReasonExecutionReverted, "onValid.execution", nil, msg+"; validity flips to invalid and onInvalid applies (spec §8.5.3)")
	if err := e.invalidBranch(); err != nil {
		return res, err
	}
	return res, nil
}

func validity(v bool) string {
	if v {
		return "valid"
	}
	return "invalid"
}

// extractTypes maps every key a contract read or API call writes to its
// declared type, API aliases over saveAs keys (API calls run after the
// reads, so their value is the one left in the environment).
func (d *Document) extractTypes() map[string]Type {
	out := map[string]Type{}
	for _, r := range d.ContractReads {
		for _, s := range r.SaveAs {
			out[s.Key] = s.Type
		}
	}
	for _, c := range d.APICalls {
		for _, x := range c.Extract {
			out[x.Alias] = x.Type
		}
	}
	return out
}
