package rule

import (
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// WriteResult prints an evaluation for a reader: the outcome (the branch
// and its state, a typed rule that held, or the hard error evalErr), the
// output and waitSec, then what each stage did (extracted values, API
// calls, contract reads, rules), why the step is invalid, the wake-ups
// and execution the branch asks for, what is not performed and the
// timings. label names the document (its file). r may be nil when evalErr
// is set.
func WriteResult(w io.Writer, label string, r *Result, evalErr error) {
	switch {
	case evalErr != nil:
		fmt.Fprintf(w, "%s: ABORTED (hard error): %v\n", label, evalErr)
	case r.Action != nil:
		fmt.Fprintf(w, "%s: %s (rules[%d] holds): no branch, no output\n", label, r.Action.Type, r.Action.Rule)
	default:
		state := "valid"
		if !r.Valid {
			state = "invalid"
		}
		if r.MetaOnly {
			state += ", meta-only"
		}
		fmt.Fprintf(w, "%s: %s (%s)\n", label, r.Branch, state)
		out, _ := json.MarshalIndent(r.Output, "  ", "  ")
		fmt.Fprintf(w, "output:\n  %s\n", out)
		fmt.Fprintf(w, "waitSec: %d\n", r.WaitSec)
	}
	if r == nil {
		return
	}
	writeExtracted(w, r.Extracted)
	if len(r.Calls) > 0 {
		fmt.Fprintln(w, "api calls:")
		for _, c := range r.Calls {
			line := fmt.Sprintf("  %s %s %s", c.Name, c.Method, c.URL)
			if c.Status != 0 {
				line += fmt.Sprintf(" -> %d", c.Status)
			}
			if c.Error != "" {
				line += " FAILED: " + c.Error
			}
			line += fmt.Sprintf(" (%s)", c.Duration)
			fmt.Fprintln(w, line+keyLists(c.Defaulted, c.SoftInvalid))
		}
	}
	if len(r.Reads) > 0 {
		fmt.Fprintln(w, "contract reads:")
		for _, rd := range r.Reads {
			line := fmt.Sprintf("  [%d] %s %s", rd.Index, rd.To, rd.Function)
			if rd.Error != "" {
				line += " FAILED: " + rd.Error
			}
			fmt.Fprintln(w, line+keyLists(rd.Defaulted, rd.SoftInvalid))
		}
	}
	if len(r.Rules) > 0 {
		fmt.Fprintln(w, "rules:")
		for _, rr := range r.Rules {
			switch {
			case rr.Skipped:
				fmt.Fprintf(w, "  [%d] %s skipped\n", rr.Index, rr.Type)
			case len(rr.Missing) > 0:
				fmt.Fprintf(w, "  [%d] %s %v (missing %s)\n", rr.Index, rr.Type, rr.Result, strings.Join(rr.Missing, ", "))
			default:
				fmt.Fprintf(w, "  [%d] %s %v\n", rr.Index, rr.Type, rr.Result)
			}
		}
	}
	if len(r.Reasons) > 0 {
		fmt.Fprintln(w, "reasons:")
		for _, x := range r.Reasons {
			fmt.Fprintf(w, "  %s: %s\n", x.Code, x)
		}
	}
	for i, wu := range r.WakeUps {
		p, _ := json.Marshal(wu.Payload)
		fmt.Fprintf(w, "wake-up %d: runner %s session %d step %s payload %s\n", i, wu.Runner, wu.SessionID, wu.StepID, p)
	}
	if x := r.Execution; x != nil {
		fn := x.Function
		if fn == "" {
			fn = "(value transfer)"
		}
		fmt.Fprintf(w, "execution: %s on %s, data %s, value %s wei, gas limit %s (sent by xgr run with --executions; rule eval sends nothing)\n",
			fn, x.To.Hex(), x.Data, orZero(x.Value), gasText(x.GasLimit))
	}
	if np := r.NotPerformed.Sections(); len(np) > 0 {
		fmt.Fprintf(w, "not performed: %s\n", strings.Join(np, ", "))
	}
	t := r.Timings
	fmt.Fprintf(w, "timings: total %s (inputs %s, contractReads %s, apiCalls %s, rules %s, outcome %s)\n",
		t.Total, t.Inputs, t.ContractReads, t.APICalls, t.Rules, t.Outcome)
}

// writeExtracted prints the extracted values sorted by key.
func writeExtracted(w io.Writer, extracted map[string]any) {
	if len(extracted) == 0 {
		return
	}
	fmt.Fprintln(w, "extracted:")
	keys := make([]string, 0, len(extracted))
	for k := range extracted {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, _ := json.Marshal(extracted[k])
		fmt.Fprintf(w, "  %s = %s\n", k, v)
	}
}

// keyLists is " defaulted: a, b soft-invalid: c" for the keys a stage
// defaulted or left soft-invalid ("" when none).
func keyLists(defaulted, softInvalid []string) string {
	s := ""
	if len(defaulted) > 0 {
		s += " defaulted: " + strings.Join(defaulted, ", ")
	}
	if len(softInvalid) > 0 {
		s += " soft-invalid: " + strings.Join(softInvalid, ", ")
	}
	return s
}

func orZero(v *big.Int) string {
	if v == nil {
		return "0"
	}
	return v.String()
}

func gasText(g uint64) string {
	if g == 0 {
		return "the operator's cap"
	}
	return strconv.FormatUint(g, 10)
}
