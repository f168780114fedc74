package joinstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// parseJoins reads commit_step's joins: per decided target {target,
// verdict, {pid, from, result ...}, {killed iters}, {follow-up target,
// kill ...}}.
func parseJoins(root Root, v any) ([]JoinDecided, error) {
	list, _ := v.([]any)
	if len(list) == 0 {
		return nil, nil
	}
	out := make([]JoinDecided, 0, len(list))
	for _, e := range list {
		f, _ := e.([]any)
		if len(f) != 5 {
			return nil, fmt.Errorf("session %s: a join decided by commit_step has %d fields, want 5", root, len(f))
		}
		var j JoinDecided
		j.Target = replyInt(f[0])
		j.Verdict, _ = f[1].(string)
		applied := asList(f[2])
		for i := 0; i+3 <= len(applied); i += 3 {
			j.Applied = append(j.Applied, AppliedDelivery{Pid: applied[i], From: applied[i+1], Result: applied[i+2]})
		}
		killed, _ := f[3].([]any)
		for _, x := range killed {
			j.Killed = append(j.Killed, replyInt(x))
		}
		follow, _ := f[4].([]any)
		for i := 0; i+2 <= len(follow); i += 2 {
			kill, _ := follow[i+1].(string)
			j.FollowUps = append(j.FollowUps, FollowUp{Target: replyInt(follow[i]), Kill: kill == "1"})
		}
		if j.Target == 0 {
			return nil, fmt.Errorf("session %s: a join decided by commit_step names target %v", root, f[0])
		}
		out = append(out, j)
	}
	return out, nil
}

// canonicalObject re-encodes a JSON object as Go's encoder writes the
// decoded value (numbers kept as their text, keys sorted, no space): the
// form a join's inbox pieces take, so that commit_step can merge them by
// splicing text, byte for byte as reactor.Merge and MarshalPayload would.
func canonicalObject(raw json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON object")
	}
	if m == nil {
		return nil, errors.New("not a JSON object")
	}
	return json.Marshal(m)
}

// nonNilLists gives every from node a list (an empty one for none), so that
// the script reads an array, never null.
func nonNilLists(m map[string][]string) map[string][]string {
	out := make(map[string][]string, len(m))
	for k, v := range m {
		if v == nil {
			v = []string{}
		}
		out[k] = v
	}
	return out
}
