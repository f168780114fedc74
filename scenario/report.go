package scenario

import (
	"fmt"
	"io"
	"strings"
)

// Aliases lists the signer aliases the file uses, in order of first use:
// a scenario's declared actors, then the starters of its steps, its
// placeholders ($actor.address:ALIAS) and its plans' owner and starter
// aliases and setup deployers; a plan file's owner, starter, placeholders
// and deployers, plan by plan. The runner gives them keys in this order.
func (f *File) Aliases() []string {
	var out []string
	seen := map[string]bool{}
	add := func(a string) {
		if a != "" && !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	refActors := func(v any, names map[string]string) {
		refs(v, "", func(ref Ref, _ string, err error) {
			if err == nil && ref.Kind == RefActorAddress {
				if a, ok := names[ref.Name]; ok {
					add(a)
				} else {
					add(ref.Name)
				}
			}
		})
	}
	plan := func(p *Plan, names map[string]string) {
		add(p.OwnerAlias)
		add(p.StarterAlias)
		refActors(p.Payload, names)
		refActors(p.WakeUp, names)
		for _, s := range p.Setup {
			add(s.By)
		}
	}
	for _, s := range f.Scenarios {
		for _, a := range s.Actors {
			add(s.ActorAlias[a])
		}
		for _, st := range s.Steps {
			if st.Starter != "" {
				if a, ok := s.ActorAlias[st.Starter]; ok {
					add(a)
				} else {
					add(st.Starter)
				}
			}
			refActors(st.Payload, s.ActorAlias)
			refActors(st.WakeUp, s.ActorAlias)
		}
		for _, p := range s.Plans {
			plan(p, s.ActorAlias)
		}
	}
	for _, p := range f.Plans {
		plan(p, nil)
	}
	return out
}

// WriteText prints the report for people: each step with its checks,
// expected against actual, then the totals.
func (r *Report) WriteText(w io.Writer) {
	for _, run := range r.Runs {
		WriteRunHeader(w, run)
		for _, s := range run.Steps {
			WriteStep(w, s)
		}
	}
	r.WriteTotals(w)
}

// WriteRunHeader prints the line that opens a scenario or plan run.
func WriteRunHeader(w io.Writer, run *RunReport) {
	fmt.Fprintf(w, "%s %q\n", run.Kind, run.Title)
}

// WriteTotals prints the verdict line.
func (r *Report) WriteTotals(w io.Writer) {
	verdict := "PASSED"
	if !r.Passed {
		verdict = "FAILED"
	}
	fmt.Fprintf(w, "%s: %d checks, %d passed, %d failed\n", verdict, r.Checks, r.Checks-r.Failed, r.Failed)
}

// WriteStep prints one step: a line with its verdict and detail, its error,
// its notes, and its checks (failed ones with expected, actual and where
// the expectation is in the file).
func WriteStep(w io.Writer, s *StepReport) {
	mark := "ok  "
	if s.Failed() {
		mark = "FAIL"
	}
	fmt.Fprintf(w, "  %s %s (%s)", mark, s.ID, s.Type)
	if s.Detail != "" {
		fmt.Fprintf(w, ": %s", s.Detail)
	}
	fmt.Fprintln(w)
	if s.Error != "" {
		fmt.Fprintf(w, "       error: %s\n", indent(s.Error, "              "))
	}
	for _, n := range s.Notes {
		fmt.Fprintf(w, "       note: %s\n", indent(n, "             "))
	}
	for _, c := range s.Checks {
		writeCheck(w, c, "       ")
	}
}
func writeCheck(w io.Writer, c Check, pad string) {
	mark := "pass"
	if !c.Passed {
		mark = "FAIL"
	}
	fmt.Fprintf(w, "%s%s %s", pad, mark, c.Name)
	if c.Passed {
		fmt.Fprintf(w, ": %s\n", c.Actual)
	} else {
		fmt.Fprintf(w, ": expected %s; actual %s", c.Expected, c.Actual)
		if c.Path != "" {
			fmt.Fprintf(w, "  [%s]", c.Path)
		}
		fmt.Fprintln(w)
	}
	if c.Passed {
		return
	}
	for _, d := range c.Details {
		if !d.Passed {
			writeDetail(w, d, pad+"     ")
		}
	}
}

func writeDetail(w io.Writer, d Check, pad string) {
	if len(d.Details) > 0 { // an alternative of an anyOf entry
		fmt.Fprintf(w, "%s%s: expected %s; actual %s\n", pad, d.Name, d.Expected, d.Actual)
		for _, x := range d.Details {
			if !x.Passed {
				writeDetail(w, x, pad+"  ")
			}
		}
		return
	}
	fmt.Fprintf(w, "%s%s: expected %s, actual %s\n", pad, d.Name, d.Expected, d.Actual)
}

func indent(s, pad string) string { return strings.ReplaceAll(s, "\n", "\n"+pad) }
