package scenario

import (
	"fmt"
	"io"
	"strings"
)

// WriteOutline writes what Outline says as text: the file's kind and
// title, each scenario with its plans and steps, the file's own plans and
// the actors in order of first use.
func (f *File) WriteOutline(w io.Writer) {
	fmt.Fprintf(w, "%s %q: ok\n", f.Kind, f.Title)
	plan := func(p *Plan, pad string) {
		fmt.Fprintf(w, "%splan %s: orchestration %q (%d steps), %d XRC-137 rules, %d setup contracts, owner %s, starter %s\n",
			pad, p.Key, p.OstcID, len(p.OSTC.Orchestration.Steps), len(p.Rules), len(p.Setup), p.OwnerAlias, p.StarterAlias)
	}
	for _, s := range f.Scenarios {
		fmt.Fprintf(w, "scenario %q: %d plans, %d steps\n", s.Title, len(s.Plans), len(s.Steps))
		for _, p := range s.Plans {
			plan(p, "  ")
		}
		for _, st := range s.Steps {
			fmt.Fprintf(w, "  step %s: %s\n", st.ID, st.Type)
		}
	}
	for _, p := range f.Plans {
		plan(p, "")
	}
	fmt.Fprintf(w, "actors in order of first use: %s\n", strings.Join(f.Aliases(), ", "))
}

// planOutline is what scenario validate --json says about a plan.
type planOutline struct {
	Key            string `json:"key"`
	Orchestration  string `json:"orchestration"`
	Steps          int    `json:"steps"`
	Rules          int    `json:"rules"`
	SetupContracts int    `json:"setupContracts"`
	Owner          string `json:"owner"`
	Starter        string `json:"starter"`
}

// Outline is what `xgr scenario validate --json` prints about a file:
// what would be deployed, started and checked.
func Outline(f *File) map[string]any {
	plan := func(p *Plan) planOutline {
		return planOutline{p.Key, p.OstcID, len(p.OSTC.Orchestration.Steps), len(p.Rules), len(p.Setup), p.OwnerAlias, p.StarterAlias}
	}
	type step struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	}
	type outline struct {
		Title string        `json:"title"`
		Plans []planOutline `json:"plans"`
		Steps []step        `json:"steps"`
	}
	scenarios, plans := []outline{}, []planOutline{}
	for _, s := range f.Scenarios {
		o := outline{Title: s.Title, Plans: []planOutline{}, Steps: []step{}}
		for _, p := range s.Plans {
			o.Plans = append(o.Plans, plan(p))
		}
		for _, st := range s.Steps {
			o.Steps = append(o.Steps, step{st.ID, fmt.Sprint(st.Type)})
		}
		scenarios = append(scenarios, o)
	}
	for _, p := range f.Plans {
		plans = append(plans, plan(p))
	}
	return map[string]any{"ok": true, "kind": f.Kind, "title": f.Title, "scenarios": scenarios, "plans": plans, "actors": f.Aliases()}
}
