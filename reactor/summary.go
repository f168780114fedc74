package reactor

import (
	"encoding/json"
	"sort"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// ProcessSummary is one process in a session summary.
type ProcessSummary struct {
	Pid         string `json:"pid"`
	ParentPid   string `json:"parentPid"`
	Step        string `json:"step"`
	Status      string `json:"status"`
	Valid       *bool  `json:"valid"`
	JoinGroupID string `json:"joinGroupId"`
	// Payload is resumePlain: the input of a process that has not run, the
	// next payload (input overlaid by output) of one that has.
	Payload json.RawMessage `json:"payload,omitempty"`
}

// JoinSummary is one join target in a session summary.
type JoinSummary struct {
	Pid    string `json:"pid"`
	Step   string `json:"step"`
	Status string `json:"status"` // closed, aborted or open
	K      int    `json:"k"`
	// Got lists the from steps that delivered, in from order.
	Got     []string       `json:"got"`
	Payload map[string]any `json:"payload"`
}

// Summary is the final state of a session.
type Summary struct {
	Processes []ProcessSummary `json:"processes"`
	Joins     []JoinSummary    `json:"joins"`
	// Stopped says why the run ended with work left (e.g. a step limit).
	Stopped string `json:"stopped,omitempty"`
}

// Summarize builds a session summary from proc_rt records (any order).
func Summarize(procs []map[string]string) (Summary, error) {
	s := Summary{Processes: []ProcessSummary{}, Joins: []JoinSummary{}}
	sorted := append([]map[string]string(nil), procs...)
	iter := func(p map[string]string) int64 { _, it, _ := joinstore.ParsePid(p["pid"]); return it }
	sort.Slice(sorted, func(i, j int) bool { return iter(sorted[i]) < iter(sorted[j]) })
	for _, p := range sorted {
		ps := ProcessSummary{Pid: p["pid"], ParentPid: p["parentPid"], Step: p["resumeStep"], Status: p["status"], JoinGroupID: p["joinGroupId"]}
		if plain := p["resumePlain"]; plain != "" && json.Valid([]byte(plain)) {
			ps.Payload = json.RawMessage(plain)
		}
		if v := p["lastEvalValid"]; v != "" {
			b := v == "1"
			ps.Valid = &b
		}
		s.Processes = append(s.Processes, ps)
		if p["target"] != "1" {
			continue
		}
		st, err := JoinStateOf(p)
		if err != nil {
			return s, err
		}
		js := JoinSummary{Pid: p["pid"], Step: p["resumeStep"], K: st.K, Got: []string{}, Status: "open"}
		switch {
		case p["status"] == "aborted":
			js.Status = "aborted"
		case p["closed"] == "1":
			js.Status = "closed"
		}
		for _, f := range st.From {
			if _, ok := st.Inbox[f.Node]; ok {
				js.Got = append(js.Got, f.Node)
			}
		}
		if js.Status == "closed" {
			js.Payload = Merge(st)
		}
		s.Joins = append(s.Joins, js)
	}
	return s, nil
}
