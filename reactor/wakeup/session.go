package wakeup

import (
	"encoding/json"
	"strings"
)

// AuthorizeSession is Authorize for a session whose allow list is given as
// the raw JSON of its start payload's `__wakeUp` value ("" for none), the
// list every process of the session carries: it decides without any
// process payload. A list that does not decode denies.
func AuthorizeSession(runner, step, list string, c Caller) Decision {
	plain, ok := listPayload(list)
	if !ok {
		return deny("the allow list does not decode: denied")
	}
	return Authorize(runner, step, plain, c)
}

// MaySomeStep reports whether c may wake processes of some step of a
// session with that allow list: c is the runner, or a step's entry or the
// default entry allows c under its scope.
func MaySomeStep(runner, list string, c Caller) bool {
	if c.Address != "" && strings.EqualFold(c.Address, runner) {
		return true
	}
	plain, ok := listPayload(list)
	if !ok {
		return false
	}
	raw, has := plain[Key]
	if !has {
		return false
	}
	al, err := Parse(raw)
	if err != nil {
		return false
	}
	if al.Default != nil && Authorize(runner, "", plain, c).Allowed {
		return true
	}
	for step := range al.Steps {
		if Authorize(runner, step, plain, c).Allowed {
			return true
		}
	}
	return false
}

// listPayload is a payload holding only the list (none for "").
func listPayload(list string) (map[string]any, bool) {
	if list == "" {
		return map[string]any{}, true
	}
	var v any
	if err := json.Unmarshal([]byte(list), &v); err != nil {
		return nil, false
	}
	return map[string]any{Key: v}, true
}
