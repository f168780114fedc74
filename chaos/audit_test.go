package chaos

import (
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// healthy is a finished nested-join-like session 7: A1 (7:1) spawned G1
// (7:3) and H1 (7:4) with a join target J1 (7:2, any, kill); G1 delivered,
// the join closed and killed H1 before it ran, J1 ran.
func healthy() (joinstore.SessionMeta, []map[string]string, []joinstore.HistoryEntry) {
	meta := joinstore.SessionMeta{RootPid: 7, Status: joinstore.SessionFinished, Live: 0, FinishedAt: time.UnixMilli(1000)}
	procs := []map[string]string{
		{"pid": "7:1", "parentPid": "", "resumeStep": "A1", "status": "done"},
		{"pid": "7:2", "parentPid": "7:1", "resumeStep": "J1", "status": "done", "target": "1", "closed": "1", "k": "1",
			"expect": `["G1","H1"]`, "inbox": `{"G1":{"g":1,"_from":"7:3"}}`},
		{"pid": "7:3", "parentPid": "7:1", "resumeStep": "G1", "status": "done"},
		{"pid": "7:4", "parentPid": "7:1", "resumeStep": "H1", "status": "aborted", "abortReason": "join-kill"},
	}
	hist := []joinstore.HistoryEntry{
		{Pid: "7:1", Step: "A1", Status: "done", At: "100", Worker: "r0.0", Children: []string{"7:2", "7:3", "7:4"}},
		{Pid: "7:3", Step: "G1", Status: "done", At: "400", Worker: "r1.0"},
		{Event: joinstore.EventWoken, Pid: "7:4", Step: "H1", At: "450", By: "op"},
		{Pid: "7:2", Step: "J1", Status: "done", At: "900", Worker: "r1.0"},
	}
	return meta, procs, hist
}

func proc(procs []map[string]string, pid string) map[string]string {
	for _, p := range procs {
		if p["pid"] == pid {
			return p
		}
	}
	panic(pid)
}

// records are the processes of stored records' fields.
func records(t *testing.T, fields []map[string]string) []joinstore.Process {
	t.Helper()
	out := make([]joinstore.Process, len(fields))
	for i, f := range fields {
		p, err := joinstore.ParseProcess(f)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = p
	}
	return out
}

func TestAuditSession(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(meta *joinstore.SessionMeta, procs *[]map[string]string, hist *[]joinstore.HistoryEntry)
		want   []string
	}{
		{"healthy", func(*joinstore.SessionMeta, *[]map[string]string, *[]joinstore.HistoryEntry) {}, nil},
		{"process committed twice", func(_ *joinstore.SessionMeta, _ *[]map[string]string, h *[]joinstore.HistoryEntry) {
			*h = append(*h, joinstore.HistoryEntry{Pid: "7:3", Step: "G1", Status: "done", At: "500", Worker: "r2.0"})
		}, []string{KindDoubleCommit}},
		{"join target committed twice", func(_ *joinstore.SessionMeta, _ *[]map[string]string, h *[]joinstore.HistoryEntry) {
			*h = append(*h, joinstore.HistoryEntry{Pid: "7:2", Step: "J1", Status: "done", At: "950", Worker: "r2.0"})
		}, []string{KindTargetCommittedTwice}},
		{"parent committed twice with the same children", func(_ *joinstore.SessionMeta, _ *[]map[string]string, h *[]joinstore.HistoryEntry) {
			*h = append(*h, (*h)[0])
		}, []string{KindDoubleCommit, KindChildTwice, KindChildTwice, KindChildTwice}},
		{"second join target of one parent, created by no commit", func(_ *joinstore.SessionMeta, p *[]map[string]string, _ *[]joinstore.HistoryEntry) {
			*p = append(*p, map[string]string{"pid": "7:5", "parentPid": "7:1", "resumeStep": "J1", "status": "aborted", "target": "1", "closed": "1", "k": "1", "expect": `["G1","H1"]`, "inbox": "{}"})
		}, []string{KindOrphan, KindTargetTwice}},
		{"stuck process", func(m *joinstore.SessionMeta, p *[]map[string]string, _ *[]joinstore.HistoryEntry) {
			m.Status, m.Live = joinstore.SessionLive, 1
			proc(*p, "7:4")["status"] = "waiting"
		}, []string{KindNotFinished, KindLiveProcess}},
		{"live counter off", func(m *joinstore.SessionMeta, _ *[]map[string]string, _ *[]joinstore.HistoryEntry) {
			m.Live = -1
		}, []string{KindLiveCount}},
		{"join target ran before its join closed", func(_ *joinstore.SessionMeta, p *[]map[string]string, _ *[]joinstore.HistoryEntry) {
			proc(*p, "7:2")["closed"] = "0"
		}, []string{KindTargetEarly}},
		{"join target ran without k deliveries", func(_ *joinstore.SessionMeta, p *[]map[string]string, _ *[]joinstore.HistoryEntry) {
			proc(*p, "7:2")["inbox"] = `{"Z9":{}}`
		}, []string{KindTargetEarly}},
		{"child record missing", func(_ *joinstore.SessionMeta, p *[]map[string]string, _ *[]joinstore.HistoryEntry) {
			*p = (*p)[:3]
		}, []string{KindMissing}},
		{"root record missing", func(_ *joinstore.SessionMeta, p *[]map[string]string, _ *[]joinstore.HistoryEntry) {
			*p = (*p)[1:]
		}, []string{KindMissing, KindMissing}},
		{"child with another parent", func(_ *joinstore.SessionMeta, p *[]map[string]string, _ *[]joinstore.HistoryEntry) {
			proc(*p, "7:3")["parentPid"] = "7:2"
		}, []string{KindParent}},
		{"record status differs from its commit", func(_ *joinstore.SessionMeta, p *[]map[string]string, _ *[]joinstore.HistoryEntry) {
			proc(*p, "7:3")["status"] = "aborted"
		}, []string{KindStatus}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			meta, procs, hist := healthy()
			c.mutate(&meta, &procs, &hist)
			a := AuditSession("0xaa:7", meta, records(t, procs), hist)
			var got []string
			for _, f := range a.Findings {
				got = append(got, f.Kind)
			}
			sort.Strings(got)
			want := append([]string(nil), c.want...)
			sort.Strings(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("kinds %v, want %v; findings:\n%v", got, want, a.Findings)
			}
		})
	}
	meta, procs, hist := healthy()
	a := AuditSession("0xaa:7", meta, records(t, procs), hist)
	if a.Commits != 3 || !a.Finished || a.Processes != 4 || a.FinishedAt != time.UnixMilli(1000) {
		t.Errorf("healthy audit %+v", a)
	}
}

func TestTakeover(t *testing.T) {
	r := func(n int64) joinstore.Root { return joinstore.Root{Owner: "0xaa", RootPid: n} }
	hist := map[joinstore.Root][]joinstore.HistoryEntry{
		r(1): {{Pid: "1:1", At: "900", Worker: "dead"}, {Pid: "1:2", At: "1100", Worker: "dead"}, {Pid: "1:3", At: "3500", Worker: "other"}},
		r(2): {{Pid: "2:1", At: "2000", Worker: "other"}, {Event: joinstore.EventWoken, Pid: "2:2", At: "1500"}},
		r(3): {{Pid: "3:1", At: "800", Worker: "other"}},
		r(4): {{Pid: "4:1", At: "800", Worker: "dead"}},
		r(5): nil,
	}
	finished := map[joinstore.Root]time.Time{r(3): time.UnixMilli(900), r(4): time.UnixMilli(2600)}
	per, worst, missing := Takeover(Kill{Victim: "dead", At: time.UnixMilli(1000), Held: []joinstore.Root{r(1), r(2), r(3), r(4), r(5)}}, hist, finished)
	want := []time.Duration{2500 * time.Millisecond, time.Second, 1600 * time.Millisecond}
	if !reflect.DeepEqual(per, want) || worst != 2500*time.Millisecond || !reflect.DeepEqual(missing, []joinstore.Root{r(5)}) {
		t.Errorf("Takeover = %v, %v, %v; want %v, 2.5s, [r5]", per, worst, missing, want)
	}
}

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	if p := Percentile(ds, 50); p != 50*time.Millisecond {
		t.Errorf("p50 = %v", p)
	}
	if p := Percentile(ds, 99); p != 99*time.Millisecond {
		t.Errorf("p99 = %v", p)
	}
	if p := Percentile(ds[:1], 99); p != 100*time.Millisecond {
		t.Errorf("p99 of one = %v", p)
	}
	if p := Percentile(nil, 50); p != 0 {
		t.Errorf("p50 of none = %v", p)
	}
}
