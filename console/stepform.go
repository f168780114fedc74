package console

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/rule"
)

// StepForm is what the page builds a wake-by-step form from: the step's
// rule and the input fields its payload schema declares, and the
// processes waiting on the step.
type StepForm struct {
	Step string `json:"step"`
	// Rule is the step's rule reference, Origin where it was loaded from.
	Rule   string      `json:"rule"`
	Origin string      `json:"origin"`
	Fields []FormField `json:"fields"`
	// Waiting are the pids waiting on the step (not join targets).
	Waiting []string `json:"waiting"`
}

// FormField is one input of a rule's payload schema.
type FormField struct {
	Name string `json:"name"`
	// Type is the XRC type name (string, bool, uint64, decimal, …).
	Type string `json:"type"`
	// Default is the default's JSON text (a string, so that the page shows
	// every digit; absent: the field is required).
	Default  string `json:"default,omitempty"`
	Required bool   `json:"required"`
}

// FormFields lists a rule document's payload schema in document order.
func FormFields(doc *rule.Document) ([]FormField, error) {
	out := make([]FormField, 0, len(doc.Payload))
	for _, f := range doc.Payload {
		ff := FormField{Name: f.Name, Type: f.Type.String(), Required: !f.HasDefault}
		if f.HasDefault {
			raw, err := json.Marshal(f.Default)
			if err != nil {
				return nil, fmt.Errorf("payload.%s: default: %w", f.Name, err)
			}
			ff.Default = string(raw)
		}
		out = append(out, ff)
	}
	return out, nil
}

func (c *Console) handleStepForm(ctx context.Context, w http.ResponseWriter, r *http.Request, root joinstore.Root) {
	step := r.URL.Query().Get("step")
	if step == "" || len(step) > MaxSearch {
		badRequest("query step %q: want a step id of the session's orchestration (1 to %d bytes)", step, MaxSearch).write(w)
		return
	}
	if c.cfg.Source == nil || c.cfg.Rules == nil {
		(&problem{Status: http.StatusNotFound, Error: "this replica serves no orchestrations or rules: the form cannot be built (wake with a JSON payload)"}).write(w)
		return
	}
	meta, err := c.cfg.Store.SessionMeta(ctx, root)
	if err != nil {
		serverError(w, err)
		return
	}
	o, err := c.cfg.Source.Orchestration(ctx, meta.XRC729, meta.OstcID, common.HexToHash(meta.OstcHash))
	if err != nil {
		(&problem{Status: http.StatusNotFound, Error: fmt.Sprintf("orchestration %s: %v", meta.OstcID, err)}).write(w)
		return
	}
	st := o.Step(step)
	if st == nil {
		ids := make([]string, len(o.Steps))
		for i, s := range o.Steps {
			ids[i] = s.ID
		}
		badRequest("query step %q: orchestration %s has steps %s", step, o.ID, strings.Join(ids, ", ")).write(w)
		return
	}
	loaded, err := c.cfg.Rules.Load(ctx, st.Rule)
	if err != nil {
		(&problem{Status: http.StatusNotFound, Error: fmt.Sprintf("step %s: rule %s: %v", step, st.Rule, err)}).write(w)
		return
	}
	fields, err := FormFields(loaded.Doc)
	if err != nil {
		serverError(w, err)
		return
	}
	procs, err := c.cfg.Store.Processes(ctx, root)
	if err != nil {
		serverError(w, err)
		return
	}
	waiting := []string{}
	for _, p := range procs {
		if p.ResumeStep == step && p.Status == joinstore.StatusWaiting && p.Join == nil {
			waiting = append(waiting, p.Pid)
		}
	}
	writeJSON(w, http.StatusOK, StepForm{Step: step, Rule: st.Rule, Origin: loaded.Origin, Fields: fields, Waiting: waiting})
}
