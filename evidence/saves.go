package evidence

import (
	"encoding/json"
	"fmt"

	"github.com/xgr-sidecar/xgr/grant"
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

// PolicyOf is the bundle policy of a selected branch (rule.Result's
// NotPerformed): logExpireDays, encryptLogs and grants. A grant address
// must be written as an address; one computed by an expression or a
// template is refused with its index (resolve it first).
func PolicyOf(np rule.NotPerformed) (Policy, error) {
	var p Policy
	if np.LogExpireDays != nil {
		p.ExpireDays = *np.LogExpireDays
	}
	if np.EncryptLogs != nil {
		p.Encrypt = *np.EncryptLogs
	}
	for i, g := range np.Grants {
		if g == nil || g.Address == nil {
			return p, fmt.Errorf("grants[%d].address: missing", i)
		}
		a, err := grant.NormalizeAddress(g.Address.Source)
		if err != nil {
			return p, fmt.Errorf("grants[%d].address: %q is not an address as written (a computed grantee must be resolved first)", i, clip(g.Address.Source))
		}
		p.Grants = append(p.Grants, Reader{Address: a, Rights: g.Rights, ExpireDays: g.ExpireDays})
	}
	return p, nil
}

// RuleSeals reports whether a rule asks for its steps' logs sealed: either
// of its branches (onValid, onInvalid) says encryptLogs: true. The two
// branches see the same inputs, so an author who seals one has said those
// inputs are not for plaintext logs: every bundle of such a step is
// sealed, whichever branch is selected, after a revert flip, or when the
// step aborts (docs/runtime.md, "Sealed steps").
func RuleSeals(doc *rule.Document) bool {
	if doc == nil {
		return false
	}
	for _, b := range []*rule.Branch{doc.OnValid, doc.OnInvalid} {
		if b != nil && b.EncryptLogs != nil && *b.EncryptLogs {
			return true
		}
	}
	return false
}
