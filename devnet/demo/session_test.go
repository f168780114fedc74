package demo

import (
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
)

func TestJudge(t *testing.T) {
	root := joinstore.Root{Owner: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", RootPid: 7}
	finished := map[string]string{"ostcId": "flow", "status": "finished", "steps": "3", "createdAt": "1000", "finishedAt": "1312"}
	proc := func(pid, status, valid, reason, plain string) joinstore.Process {
		p, err := joinstore.ParseProcess(map[string]string{"pid": pid, "status": status, "lastEvalValid": valid, "abortReason": reason, "resumePlain": plain})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	with := func(m map[string]string, k, v string) map[string]string {
		out := map[string]string{}
		for key, val := range m {
			out[key] = val
		}
		out[k] = v
		return out
	}
	cases := []struct {
		name   string
		meta   map[string]string
		procs  []joinstore.Process
		status string
		result string
	}{
		{"all valid", finished, []joinstore.Process{
			proc("7:1", "done", "1", "", `{"result":"first"}`),
			proc("7:3", "done", "1", "", `{"result":"last"}`),
			proc("7:2", "done", "1", "", `{"result":"middle"}`),
		}, StatusOK, "last"},
		{"a join's losers are the design", finished, []joinstore.Process{
			proc("7:1", "done", "1", "", `{}`),
			proc("7:2", "aborted", "", "join-kill", `{"result":"never ran"}`),
		}, StatusOK, ""},
		// The status is the outcome the transitions tallied in the meta
		// (joinstore.OutcomeOf), whatever the processes say.
		{"an invalid end", with(finished, "invalidEnds", "1"), []joinstore.Process{
			proc("7:1", "done", "0", "", `{"result":"timed out"}`),
		}, StatusInvalid, "timed out"},
		{"an invalid step whose branch continued", finished, []joinstore.Process{
			proc("7:1", "done", "0", "", `{}`),
			proc("7:2", "done", "1", "", `{"result":"rejected"}`),
		}, StatusOK, "rejected"},
		{"a hard error wins over invalid", with(with(finished, "invalidEnds", "1"), "failed", "1"), []joinstore.Process{
			proc("7:1", "done", "0", "", `{}`),
			proc("7:2", "aborted", "", "step B1: boom", `{}`),
		}, StatusFailed, ""},
		{"an unfulfillable join", with(finished, "unfulfillable", "1"), []joinstore.Process{
			proc("7:1", "aborted", "", "unfulfillable", `{}`),
		}, StatusUnfulfillable, ""},
		{"a cancel", with(with(finished, "killedAt", "1200"), "killKind", "cancel"), []joinstore.Process{
			proc("7:1", "aborted", "", "cancelled", `{}`),
		}, StatusCancelled, ""},
		{"a killed process", with(finished, "killed", "1"), []joinstore.Process{
			proc("7:1", "aborted", "", "killed", `{}`),
		}, StatusKilled, ""},
		{"a killed session", with(with(finished, "killedAt", "1200"), "killKind", "kill"), []joinstore.Process{
			proc("7:1", "done", "1", "", `{"result":42}`),
		}, StatusKilled, "42"},
		{"live", with(finished, "status", "live"), []joinstore.Process{
			proc("7:1", "done", "1", "", `{"result":"so far"}`),
		}, StatusLive, "so far"},
	}
	for _, c := range cases {
		s, err := Judge(root, typed(t, c.meta), c.procs)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if s.Status != c.status || s.Result != c.result || s.Flow != "flow" || s.Steps != 3 || s.ID != 7 {
			t.Errorf("%s: %+v, want status %s, result %q", c.name, s, c.status, c.result)
		}
		if s.Finished() && (s.Duration != 312*time.Millisecond || !s.Ended.Equal(time.UnixMilli(1312))) {
			t.Errorf("%s: duration %s, ended %s, want 312ms, at 1312ms", c.name, s.Duration, s.Ended)
		}
		if !s.Finished() && (s.Duration != 0 || !s.Ended.IsZero()) {
			t.Errorf("%s: live, but duration %s, ended %s", c.name, s.Duration, s.Ended)
		}
	}
}

func TestJudgeRefusesBrokenRecords(t *testing.T) {
	root := joinstore.Root{Owner: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", RootPid: 7}
	for _, c := range []struct {
		meta  map[string]string
		procs []joinstore.Process
		want  string
	}{
		{map[string]string{"status": "finished", "createdAt": "1"}, nil, `finishedAt (none) is missing`},
		{map[string]string{}, []joinstore.Process{{Pid: "x"}}, `"x"`},
	} {
		if _, err := Judge(root, typed(t, c.meta), c.procs); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), root.String()) {
			t.Errorf("%v: %v, want an error naming the session and %q", c.meta, err, c.want)
		}
	}
}

// typed reads a meta hash as the store does (joinstore.ParseSessionMeta).
func typed(t *testing.T, fields map[string]string) joinstore.SessionMeta {
	t.Helper()
	m, err := joinstore.ParseSessionMeta(fields)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
