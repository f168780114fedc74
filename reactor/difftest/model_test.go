package difftest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
)

// orch is an orchestration the harness can generate, shrink and write back
// as an OSTC document; Steps[0] is the start step.
type orch struct {
	ID    string
	Steps []*step
}

type step struct {
	ID             string
	Valid, Invalid *branch
}

type branch struct {
	Spawns []string
	Join   *join
}

// join is a branch's join. Mode is how it is written: "any", "all",
// "kofn" (with "k"), "kobj" ({"k": K}) or "" (no mode: any, or kofn when K
// is given); Policy is "kill", "drain" or "" (drain).
type join struct {
	Target string
	Mode   string
	K      int
	Policy string
	From   []from
}

// from is one join input; When "" leaves "when" out (any).
type from struct{ Node, When string }

// outcomes are the scripted outcomes of a case: per step a list (one
// element: that outcome every time), "default" for the other steps.
type outcomes map[string][]reactor.Outcome

// clone copies the orchestration deeply.
func (o *orch) clone() *orch {
	c := &orch{ID: o.ID, Steps: make([]*step, len(o.Steps))}
	for i, s := range o.Steps {
		c.Steps[i] = &step{ID: s.ID, Valid: s.Valid.clone(), Invalid: s.Invalid.clone()}
	}
	return c
}

func (b *branch) clone() *branch {
	if b == nil {
		return nil
	}
	c := &branch{Spawns: append([]string(nil), b.Spawns...)}
	if j := b.Join; j != nil {
		c.Join = &join{Target: j.Target, Mode: j.Mode, K: j.K, Policy: j.Policy, From: append([]from(nil), j.From...)}
	}
	return c
}

func (o outcomes) clone() outcomes {
	c := make(outcomes, len(o))
	for k, v := range o {
		c[k] = append([]reactor.Outcome(nil), v...)
	}
	return c
}

// JSON writes the OSTC document, steps in order.
func (o *orch) JSON() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n  \"id\": %s,\n  \"structure\": {", quote(o.ID))
	for i, s := range o.Steps {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n    %s: {\"rule\": \"${addr:%s}\"", quote(s.ID), s.ID)
		for _, br := range []struct {
			name string
			b    *branch
		}{{"onValid", s.Valid}, {"onInvalid", s.Invalid}} {
			if br.b != nil {
				fmt.Fprintf(&b, ", %s: %s", quote(br.name), br.b.json())
			}
		}
		b.WriteString("}")
	}
	b.WriteString("\n  }\n}\n")
	return b.Bytes()
}

func (br *branch) json() string {
	var b bytes.Buffer
	b.WriteString("{")
	sep := ""
	if br.Spawns != nil {
		spawns, _ := json.Marshal(br.Spawns)
		fmt.Fprintf(&b, "\"spawns\": %s", spawns)
		sep = ", "
	}
	if j := br.Join; j != nil {
		fmt.Fprintf(&b, "%s\"join\": {\"joinid\": %s", sep, quote(j.Target))
		switch j.Mode {
		case "any", "all":
			fmt.Fprintf(&b, ", \"mode\": %q", j.Mode)
		case "kofn":
			fmt.Fprintf(&b, ", \"mode\": \"kofn\", \"k\": %d", j.K)
		case "kobj":
			fmt.Fprintf(&b, ", \"mode\": {\"k\": %d}", j.K)
		}
		if j.Policy != "" {
			fmt.Fprintf(&b, ", \"waitonjoin\": %q", j.Policy)
		}
		b.WriteString(", \"from\": [")
		for i, f := range j.From {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "{\"node\": %s", quote(f.Node))
			if f.When != "" {
				fmt.Fprintf(&b, ", \"when\": %q", f.When)
			}
			b.WriteString("}")
		}
		b.WriteString("]}")
	}
	b.WriteString("}")
	return b.String()
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// JSON writes the outcomes document ParseOutcomes reads, keys sorted.
func (o outcomes) JSON() []byte {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(",\n ")
		}
		var v []byte
		if len(o[k]) == 1 {
			v, _ = json.Marshal(o[k][0])
		} else {
			v, _ = json.Marshal(o[k])
		}
		fmt.Fprintf(&b, "%s: %s", quote(k), v)
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// fromRegistry turns a parsed orchestration into the harness's model
// (same steps, branches and joins; the text is the harness's own).
func fromRegistry(r *registry.Orchestration) *orch {
	o := &orch{ID: r.ID}
	for _, s := range r.Steps {
		o.Steps = append(o.Steps, &step{ID: s.ID, Valid: branchOf(s.OnValid), Invalid: branchOf(s.OnInvalid)})
	}
	return o
}

func branchOf(b *registry.Branch) *branch {
	if b == nil {
		return nil
	}
	out := &branch{Spawns: append([]string{}, b.Spawns...)}
	if j := b.Join; j != nil {
		mode := "kobj"
		switch {
		case j.Mode == registry.ModeAny:
			mode = "any"
		case j.Mode == registry.ModeAll:
			mode = "all"
		}
		out.Join = &join{Target: j.Target, Mode: mode, K: j.K, Policy: j.Policy.String()}
		for _, f := range j.From {
			out.Join.From = append(out.Join.From, from{Node: f.Node, When: f.When.String()})
		}
	}
	return out
}

// parseOutcomes reads an outcomes document into the model (checked by
// reactor.ParseOutcomes first).
func parseOutcomes(raw []byte) (outcomes, error) {
	if _, err := reactor.ParseOutcomes(raw); err != nil {
		return nil, err
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	out := outcomes{}
	for k, v := range doc {
		var list []reactor.Outcome
		if bytes.HasPrefix(bytes.TrimSpace(v), []byte("[")) {
			if err := unmarshalNumbers(v, &list); err != nil {
				return nil, err
			}
		} else {
			var one reactor.Outcome
			if err := unmarshalNumbers(v, &one); err != nil {
				return nil, err
			}
			list = []reactor.Outcome{one}
		}
		out[k] = list
	}
	return out, nil
}

func unmarshalNumbers(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}
