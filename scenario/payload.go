package scenario

// WakeUpKey is the payload member a session's wake-up allow list travels in.
const WakeUpKey = "__wakeUp"

// StartPayload builds a session's start payload (before placeholders are
// resolved): the plan's runtime payload, overlaid member by member by the
// step's payload; then the wake-up allow list is materialized as
// payload.__wakeUp from, in order, the payload's own __wakeUp (older plans
// keep it there), the plan's runtime.wakeUp and the step's runtime.wakeUp.
// Later sources extend earlier ones: entries of "steps" are merged by step
// id (a later entry for the same step replaces the earlier one), any other
// member ("default", …) is replaced. No allow list in any source leaves
// __wakeUp out. The inputs are not modified.
func StartPayload(plan, step map[string]any, wakeUps ...map[string]any) map[string]any {
	out := make(map[string]any, len(plan)+len(step)+1)
	for k, v := range plan {
		out[k] = v
	}
	for k, v := range step {
		out[k] = v
	}
	var wake map[string]any
	if w, ok := out[WakeUpKey].(map[string]any); ok {
		wake = mergeWakeUp(nil, w)
	}
	for _, w := range wakeUps {
		if len(w) > 0 {
			wake = mergeWakeUp(wake, w)
		}
	}
	if wake != nil {
		out[WakeUpKey] = wake
	}
	return out
}

func mergeWakeUp(dst, src map[string]any) map[string]any {
	if dst == nil {
		dst = map[string]any{}
	}
	for k, v := range src {
		if k != "steps" {
			dst[k] = v
			continue
		}
		steps, ok := v.(map[string]any)
		if !ok {
			dst[k] = v
			continue
		}
		merged := map[string]any{}
		if old, ok := dst["steps"].(map[string]any); ok {
			for s, e := range old {
				merged[s] = e
			}
		}
		for s, e := range steps {
			merged[s] = e
		}
		dst["steps"] = merged
	}
	return dst
}
