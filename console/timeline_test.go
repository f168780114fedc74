package console

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
)

func TestTimelineStepDurationsAndOutputs(t *testing.T) {
	meta := joinstore.SessionMeta{RootPid: 1, CreatedAt: time.UnixMilli(500), StartStep: "A1", OstcID: "o"}
	big := `{"s":"x` + strings.Repeat("é", OutputCap) + `"}` // odd prefix: the cap falls inside a rune
	procs := []joinstore.Process{{Pid: "1:1", ResumeStep: "A1", ResumePlain: json.RawMessage(`{"n":1}`)},
		{Pid: "1:2", ResumeStep: "B1", ResumePlain: json.RawMessage(`{"n":1,"out":18446744073709551617}`)},
		{Pid: "1:3", ResumeStep: "C1", ResumePlain: json.RawMessage(big)},
		{Pid: "1:4", ResumeStep: "J1", ResumePlain: json.RawMessage(`{"merged":1}`), Join: &joinstore.JoinTarget{}}}
	history := []joinstore.HistoryEntry{
		{Pid: "1:1", Step: "A1", Status: "done", Valid: "1", At: "1000", Worker: "r1", Children: []string{"1:4", "1:2"}},
		{Pid: "1:1", Step: "A1", Status: "done", Valid: "1", At: "2000", Worker: "r1", Children: []string{"1:3"}},
		{Pid: "1:2", Step: "B1", Status: "aborted", AbortReason: "boom", At: "2500", Worker: "r2"},
	}
	ms := func(n int64) time.Time { return time.UnixMilli(n) }
	local := []reactor.Event{{At: ms(900), Type: reactor.EvClaimed, Pid: "1:1"}, {At: ms(1960), Type: reactor.EvClaimed, Pid: "1:1"}}
	var got []string
	for _, e := range Timeline(meta, procs, history, local) {
		if e.Type != "executed" && e.Type != "aborted" {
			continue
		}
		d := "-"
		if e.DurationMs != nil {
			d = fmt.Sprint(*e.DurationMs)
		}
		got = append(got, fmt.Sprintf("%s %s %s %s %v %v", e.Type, e.Pid, e.Worker, d, len(e.Output) <= OutputCap && utf8.ValidString(e.Output) && strings.HasPrefix(big, e.Output), e.OutputCut))
		if e.At == 1000 && e.Output != `{"n":1,"out":18446744073709551617}` {
			t.Errorf("output of the first commit: %s", e.Output)
		}
	}
	want := []string{"executed 1:1 r1 100 false false", "executed 1:1 r1 40 true true", "aborted 1:2 r2 - true false"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("timeline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The session page's timeline shows, for every executed step, the replica
// that ran it, how long it ran (at least the 40 ms the scripted step
// sleeps) and the payload it handed on, as stored.
func TestTimelineStepsInBrowser(t *testing.T) {
	env := newBrowserEnv(t, false)
	r := env.finished[0]
	var entries []Entry
	env.getJSON(fmt.Sprintf("/ui/api/timeline?owner=%s&root=%d", r.Owner, r.RootPid), &entries)
	executed := 0
	for _, e := range entries {
		if e.Type == "executed" {
			executed++
		}
	}
	if executed < 4 {
		t.Fatalf("%d executed steps in a finished minimal join", executed)
	}
	env.open(fmt.Sprintf("#/session/%s/%d", r.Owner, r.RootPid))
	env.wait("the timeline", `document.querySelectorAll('table.timeline tr[data-type="executed"]').length === `+fmt.Sprint(executed))
	env.shot("timeline")
	type row struct{ Pid, Worker, Took, Output string }
	rows := eval[[]row](env, `[...document.querySelectorAll('table.timeline tr[data-type="executed"]')].map(tr => ({
	  Pid: tr.dataset.pid, Worker: tr.querySelector('[data-col="worker"]').textContent,
	  Took: tr.querySelector('[data-col="took"]').textContent,
	  Output: (tr.querySelector('[data-col="output"]') || {}).textContent || '' }))`)
	procs, err := env.store.Processes(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	plain := map[string]string{}
	for _, p := range procs {
		plain[p.Pid] = string(p.ResumePlain)
	}
	outputs := 0
	for i, rw := range rows {
		if rw.Worker != browserReplica {
			t.Errorf("executed %s: replica %q, want %s", rw.Pid, rw.Worker, browserReplica)
		}
		var ms int
		if _, err := fmt.Sscanf(rw.Took, "%d ms", &ms); err != nil || ms < 40 || ms > 30000 {
			t.Errorf("executed %s took %q: want the 40 ms step and its commit", rw.Pid, rw.Took)
		}
		var e Entry
		for _, x := range entries {
			if x.Type == "executed" && x.Pid == rw.Pid {
				e = x
			}
		}
		if rw.Output != e.Output {
			t.Errorf("row %d (%s): output %q, the API says %q", i, rw.Pid, rw.Output, e.Output)
		}
		if rw.Output != "" {
			outputs++
			if !strings.Contains(rw.Output, `"checked":true`) {
				t.Errorf("executed %s handed on %s: want the step's output checked=true in it", rw.Pid, rw.Output)
			}
		}
	}
	// A1 spawns G1 and H1, J1 spawns Z1: two steps hand a payload on, and
	// it is the payload of the child they made.
	if outputs != 2 {
		t.Errorf("%d executed steps show a payload handed on, want 2 (A1 and J1)", outputs)
	}
	for _, e := range entries {
		if e.Output != "" {
			found := false
			for _, p := range plain {
				found = found || p == e.Output
			}
			if !found {
				t.Errorf("output of %s is no child's stored payload: %s", e.Pid, e.Output)
			}
		}
	}
	env.onlyHere()
}

// A committed step's entry carries the gas its proc_steps entry recorded
// (validation gas plus its transactions' gas used); entries written
// before gas was kept have none.
func TestTimelineStepGas(t *testing.T) {
	meta := joinstore.SessionMeta{RootPid: 1, CreatedAt: time.UnixMilli(500), StartStep: "A1"}
	history := []joinstore.HistoryEntry{
		{Event: joinstore.EventCommit, Pid: "1:1", Step: "A1", Status: "done", Valid: "1", At: "1000", Gas: "23450"},
		{Event: joinstore.EventCommit, Pid: "1:2", Step: "A1", Status: "aborted", AbortReason: "gas budget", At: "2000", Gas: "45000"},
		{Event: joinstore.EventCommit, Pid: "1:3", Step: "A1", Status: "done", Valid: "0", At: "3000"},
	}
	var got []uint64
	for _, e := range Timeline(meta, nil, history, nil) {
		if e.Type == "executed" || e.Type == "aborted" {
			got = append(got, e.Gas)
		}
	}
	if fmt.Sprint(got) != "[23450 45000 0]" {
		t.Fatalf("gas of the timeline's steps: %v", got)
	}
}
