package evidence

import (
	"encoding/json"
	"fmt"

	"github.com/xgr-sidecar/xgr/rule"
)

// Saves splits a rule evaluation's saved values (rule.Result.Extracted)
// into the bundle's apiSaves (the extractMap aliases of doc's API calls)
// and contractSaves (the saveAs keys of its contract reads), each a JSON
// object, nil when empty. A value JSON cannot encode is kept as its text.
func Saves(doc *rule.Document, extracted map[string]any) (api, contract json.RawMessage) {
	a, c := map[string]any{}, map[string]any{}
	for _, call := range doc.APICalls {
		for _, x := range call.Extract {
			if v, ok := extracted[x.Alias]; ok {
				a[x.Alias] = v
			}
		}
	}
	for _, r := range doc.ContractReads {
		for _, s := range r.SaveAs {
			if v, ok := extracted[s.Key]; ok {
				c[s.Key] = v
			}
		}
	}
	return object(a), object(c)
}

func object(m map[string]any) json.RawMessage {
	if len(m) == 0 {
		return nil
	}
	out, err := json.Marshal(m)
	if err == nil {
		return out
	}
	s := make(map[string]any, len(m))
	for k, v := range m {
		if _, err := json.Marshal(v); err != nil {
			v = fmt.Sprint(v)
		}
		s[k] = v
	}
	out, _ = json.Marshal(s)
	return out
}
