package registry

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Graph export draws the orchestration as authors think of it: one node per
// step, valid edges solid green, invalid edges dashed red, join targets with a
// double border and their mode, k and policy, and a dotted edge from each
// expected producer labelled with its "when".

// joinDecl is a join together with the branch that declares it.
type joinDecl struct {
	step *Step
	b    *Branch
}

func (o *Orchestration) joinsByTarget() map[string][]joinDecl {
	out := map[string][]joinDecl{}
	for _, s := range o.Steps {
		for _, b := range s.Branches() {
			if b.Join != nil {
				out[b.Join.Target] = append(out[b.Join.Target], joinDecl{s, b})
			}
		}
	}
	return out
}

func (j *Join) summary() string {
	return fmt.Sprintf("join %s k=%d/%d %s", j.Mode, j.K, len(j.From), j.Policy)
}

func shortRule(r string) string {
	if isHexAddress(r) {
		return r[:6] + "…" + r[len(r)-4:]
	}
	return r
}

const (
	colorValid   = "#2e7d32"
	colorInvalid = "#c62828"
	colorJoin    = "#1565c0"
)

func outcomeStyle(o Outcome) (color, style string) {
	if o == OutcomeInvalid {
		return colorInvalid, "dashed"
	}
	return colorValid, "solid"
}

// WriteDOT writes the graph in Graphviz DOT.
func (o *Orchestration) WriteDOT(w io.Writer) error {
	var b strings.Builder
	joins := o.joinsByTarget()
	fmt.Fprintf(&b, "digraph %s {\n", strconv.Quote(o.ID))
	b.WriteString("  rankdir=LR;\n  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n")
	for _, s := range o.Steps {
		label := s.ID + "\n" + shortRule(s.Rule)
		attrs := ""
		if decls := joins[s.ID]; len(decls) > 0 {
			for _, d := range decls {
				label += fmt.Sprintf("\n%s (%s.%s)", d.b.Join.summary(), d.step.ID, d.b.Outcome.Field())
			}
			attrs = ", peripheries=2, color=\"" + colorJoin + "\""
		}
		fmt.Fprintf(&b, "  %s [label=%s%s];\n", strconv.Quote(s.ID), strconv.Quote(label), attrs)
	}
	for _, s := range o.Steps {
		for _, br := range s.Branches() {
			color, style := outcomeStyle(br.Outcome)
			for _, t := range br.Spawns {
				fmt.Fprintf(&b, "  %s -> %s [label=%q, color=%q, fontcolor=%q, style=%s];\n",
					strconv.Quote(s.ID), strconv.Quote(t), br.Outcome.String(), color, color, style)
			}
			if j := br.Join; j != nil {
				fmt.Fprintf(&b, "  %s -> %s [label=%q, color=%q, fontcolor=%q, style=%s, penwidth=2];\n",
					strconv.Quote(s.ID), strconv.Quote(j.Target), br.Outcome.String()+": "+j.summary(), color, color, style)
				for _, f := range j.From {
					fmt.Fprintf(&b, "  %s -> %s [label=%q, color=%q, fontcolor=%q, style=dotted, arrowhead=empty];\n",
						strconv.Quote(f.Node), strconv.Quote(j.Target), "from ("+f.When.String()+")", colorJoin, colorJoin)
				}
			}
		}
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMermaid writes the graph as a Mermaid flowchart. Steps get the node
// ids s0, s1, … so that no step id collides with Mermaid keywords.
func (o *Orchestration) WriteMermaid(w io.Writer) error {
	var b strings.Builder
	joins := o.joinsByTarget()
	node := func(id string) string { return "s" + strconv.Itoa(o.index[id]) }
	b.WriteString("flowchart LR\n")
	for _, s := range o.Steps {
		label := mermaidText(s.ID) + "<br/><small>" + mermaidText(shortRule(s.Rule)) + "</small>"
		if decls := joins[s.ID]; len(decls) > 0 {
			for _, d := range decls {
				label += "<br/>" + mermaidText(fmt.Sprintf("%s (%s.%s)", d.b.Join.summary(), d.step.ID, d.b.Outcome.Field()))
			}
			fmt.Fprintf(&b, "  %s[[\"%s\"]]\n", node(s.ID), label)
			continue
		}
		fmt.Fprintf(&b, "  %s[\"%s\"]\n", node(s.ID), label)
	}
	var styles []string
	edge := func(from, arrow, label, to, style string) {
		fmt.Fprintf(&b, "  %s %s|\"%s\"| %s\n", node(from), arrow, mermaidText(label), node(to))
		styles = append(styles, fmt.Sprintf("  linkStyle %d %s", len(styles), style))
	}
	for _, s := range o.Steps {
		for _, br := range s.Branches() {
			color, _ := outcomeStyle(br.Outcome)
			arrow := "-->"
			if br.Outcome == OutcomeInvalid {
				arrow = "-.->"
			}
			for _, t := range br.Spawns {
				edge(s.ID, arrow, br.Outcome.String(), t, "stroke:"+color+",color:"+color)
			}
			if j := br.Join; j != nil {
				join := "==>"
				if br.Outcome == OutcomeInvalid {
					join = "-.->"
				}
				edge(s.ID, join, br.Outcome.String()+": "+j.summary(), j.Target, "stroke:"+color+",stroke-width:3px")
				for _, f := range j.From {
					edge(f.Node, "-.-o", "from ("+f.When.String()+")", j.Target, "stroke:"+colorJoin+",stroke-dasharray:2 4")
				}
			}
		}
	}
	for _, s := range styles {
		b.WriteString(s)
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mermaidText escapes text for a quoted Mermaid label.
func mermaidText(s string) string {
	r := strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;")
	return r.Replace(s)
}
