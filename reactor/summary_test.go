package reactor

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// targetRecord is a join target's record over from B1 (valid) and C1
// (any) with k=2, with the given stored fields on top.
func targetRecord(t *testing.T, extra map[string]string) joinstore.Process {
	t.Helper()
	p := map[string]string{"pid": "1:2", "parentPid": "1:1", "resumeStep": "J1", "joinGroupId": "0", "target": "1",
		"expect": `["B1","C1"]`, "requireWhen": `{"B1":"valid","C1":"any"}`, "k": "2", "policy": "drain",
		"inbox": "{}", "fail": "{}", "closed": "0", "status": "waiting"}
	for k, v := range extra {
		p[k] = v
	}
	return record(t, p)
}

// record is the process of a stored record's fields.
func record(t *testing.T, fields map[string]string) joinstore.Process {
	t.Helper()
	p, err := joinstore.ParseProcess(fields)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const bothDelivered = `{"C1":{"c":0.10000000000000000001,"x":2,"_from":"C1","_when":"invalid"},"B1":{"b":9007199254740993,"x":1,"_from":"B1","_when":"valid"}}`

func TestSummarizeJoin(t *testing.T) {
	merged := map[string]any{"b": json.Number("9007199254740993"), "c": json.Number("0.10000000000000000001"), "x": json.Number("2")}
	cases := []struct {
		name   string
		fields map[string]string
		want   JoinSummary
	}{
		{"open, nothing delivered", nil,
			JoinSummary{Status: JoinOpen, Got: []string{}, TargetStatus: "waiting"}},
		{"open, one of two delivered", map[string]string{"inbox": `{"B1":{"b":1,"_from":"B1","_when":"valid"}}`},
			JoinSummary{Status: JoinOpen, Got: []string{"B1"}, TargetStatus: "waiting"}},
		{"closed, target promoted", map[string]string{"inbox": bothDelivered, "closed": "1"},
			JoinSummary{Status: JoinClosed, Got: []string{"B1", "C1"}, Payload: merged, TargetStatus: "waiting"}},
		{"closed, target ran", map[string]string{"inbox": bothDelivered, "closed": "1", "status": "done", "lastEvalValid": "1"},
			JoinSummary{Status: JoinClosed, Got: []string{"B1", "C1"}, Payload: merged, TargetStatus: "done"}},
		// The case this summary exists for: the join closed, then the
		// target's own step failed. The join stays closed with its payload.
		{"closed, target step hard error", map[string]string{"inbox": bothDelivered, "closed": "1", "status": "aborted"},
			JoinSummary{Status: JoinClosed, Got: []string{"B1", "C1"}, Payload: merged, TargetStatus: "aborted", TargetReason: ReasonHardError}},
		{"closed, target step error recorded", map[string]string{"inbox": bothDelivered, "closed": "1", "status": "aborted", "abortReason": "rule reverted: out of gas"},
			JoinSummary{Status: JoinClosed, Got: []string{"B1", "C1"}, Payload: merged, TargetStatus: "aborted", TargetReason: "rule reverted: out of gas"}},
		{"closed, target killed while waiting to run", map[string]string{"inbox": bothDelivered, "closed": "1", "status": "aborted", "abortReason": "killed", "killedAt": "5"},
			JoinSummary{Status: JoinClosed, Got: []string{"B1", "C1"}, Payload: merged, TargetStatus: "aborted", TargetReason: "killed"}},
		{"closed, target killed while running", map[string]string{"inbox": bothDelivered, "closed": "1", "status": "aborted", "killedAt": "5"},
			JoinSummary{Status: JoinClosed, Got: []string{"B1", "C1"}, Payload: merged, TargetStatus: "aborted", TargetReason: "killed"}},
		{"unfulfillable", map[string]string{"inbox": `{"C1":{"c":1,"_from":"C1","_when":"valid"}}`, "fail": `{"B1":"aborted"}`, "closed": "1", "status": "aborted", "abortReason": "unfulfillable"},
			JoinSummary{Status: JoinUnfulfillable, Got: []string{"C1"}, TargetStatus: "aborted", TargetReason: "unfulfillable"}},
		{"killed before the decision", map[string]string{"closed": "1", "status": "aborted", "abortReason": "killed", "killedAt": "5"},
			JoinSummary{Status: JoinKilled, Got: []string{}, TargetStatus: "aborted", TargetReason: "killed"}},
		{"killed by the parent join", map[string]string{"inbox": `{"B1":{"b":1,"_from":"B1","_when":"valid"}}`, "closed": "1", "status": "aborted", "abortReason": "join-kill"},
			JoinSummary{Status: JoinKilled, Got: []string{"B1"}, TargetStatus: "aborted", TargetReason: "join-kill"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.want.Pid, c.want.Step, c.want.K = "1:2", "J1", 2
			got, err := SummarizeJoin(targetRecord(t, c.fields))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
	if _, err := SummarizeJoin(targetRecord(t, map[string]string{"inbox": `{"B1":5}`})); err == nil || !strings.Contains(err.Error(), "target 1:2: inbox") {
		t.Errorf("a broken inbox: %v", err)
	}
}

func TestAbortReason(t *testing.T) {
	cases := []struct {
		fields map[string]string
		want   string
	}{
		{map[string]string{"status": "done"}, ""},
		{map[string]string{"status": "waiting", "abortReason": "stale"}, ""},
		{map[string]string{"status": "aborted"}, ReasonHardError},
		{map[string]string{"status": "aborted", "abortReason": "step A1: boom"}, "step A1: boom"},
		{map[string]string{"status": "aborted", "abortReason": "gated"}, "gated"},
		{map[string]string{"status": "aborted", "killedAt": "1"}, "killed"},
	}
	for _, c := range cases {
		if got := AbortReason(record(t, c.fields)); got != c.want {
			t.Errorf("AbortReason(%v) = %q, want %q", c.fields, got, c.want)
		}
	}
}

// A join closes, then its target's own step fails with a hard error: the
// summary reports the join closed with its merged payload (numbers exact)
// and the target process aborted with its reason. An unfulfillable join
// stays reported as unfulfillable.
func TestSummaryJoinClosedThenTargetFails(t *testing.T) {
	o, err := registry.Parse([]byte(`{"id":"closed_then_fails","structure":{
  "A1":{"rule":"x","onValid":{"spawns":["B1","C1"],"join":{"joinid":"J1","mode":"all","waitonjoin":"drain","from":[{"node":"B1","when":"valid"},{"node":"C1","when":"any"}]}}},
  "B1":{"rule":"x"},"C1":{"rule":"x"},"J1":{"rule":"x","onValid":{"spawns":["Z1"]}},"Z1":{"rule":"x"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	store := joinstore.New(testenv.StartRedis(t).Client(), joinstore.Config{SessionTTL: time.Hour})
	run := func(fail string) Summary {
		t.Helper()
		ctx := context.Background()
		clock := time.UnixMilli(1_800_000_000_000)
		res, err := store.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: clock, OstcHash: o.Hash.Hex(),
			Payload: json.RawMessage(`{"big":9007199254740993}`)})
		if err != nil {
			t.Fatal(err)
		}
		exec := execFunc(func(_ context.Context, e Execution) (Result, error) {
			switch e.Step.ID {
			case fail:
				return Result{}, ErrScripted
			case "B1":
				return Result{Valid: true, Output: map[string]any{"b": json.Number("1.50"), "x": json.Number("1")}}, nil
			case "C1":
				return Result{Valid: false, Output: map[string]any{"x": json.Number("2")}}, nil
			}
			return Result{Valid: true}, nil
		})
		r := &Runner{Store: store, Orch: o, Exec: exec, Worker: "test",
			Now: func() time.Time { return clock }, Advance: func(t time.Time) { clock = t }}
		if err := r.Run(ctx, res.Root); err != nil {
			t.Fatal(err)
		}
		procs, err := store.Processes(ctx, res.Root)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := Summarize(procs)
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}

	sum := run("J1")
	if len(sum.Joins) != 1 {
		t.Fatalf("joins: %+v", sum.Joins)
	}
	j := sum.Joins[0]
	want := map[string]any{"big": json.Number("9007199254740993"), "b": json.Number("1.50"), "x": json.Number("2")}
	if j.Status != JoinClosed || !reflect.DeepEqual(j.Got, []string{"B1", "C1"}) || !reflect.DeepEqual(j.Payload, want) {
		t.Errorf("join: %+v, want closed over B1, C1 with %v", j, want)
	}
	if j.TargetStatus != "aborted" || !strings.Contains(j.TargetReason, "hard error") {
		t.Errorf("target: status %q reason %q, want aborted by a hard error", j.TargetStatus, j.TargetReason)
	}
	if b, _ := json.Marshal(j); !strings.Contains(string(b), `"payload":{"b":1.50,"big":9007199254740993,"x":2}`) {
		t.Errorf("JSON: %s", b)
	}
	for _, p := range sum.Processes {
		if p.Step == "J1" && (p.Status != "aborted" || p.Reason != j.TargetReason) {
			t.Errorf("process J1: %+v", p)
		}
		if p.Step == "Z1" {
			t.Errorf("the failed target spawned %+v", p)
		}
	}

	// B1 fails: all of {B1, C1} can no longer arrive; the join aborts at
	// once, before C1 delivers.
	sum = run("B1")
	if j := sum.Joins[0]; j.Status != JoinUnfulfillable || j.Payload != nil || j.TargetStatus != "aborted" || j.TargetReason != "unfulfillable" ||
		len(j.Got) != 0 {
		t.Errorf("unfulfillable join: %+v", j)
	}
}
