package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// The console's parsers of hostile input never panic, and what they accept
// keeps their bounds.
func FuzzParseBulk(f *testing.F) {
	f.Add([]byte(`{"action":"kill","sessions":[{"owner":"` + testOwner + `","rootPid":1}]}`))
	f.Add([]byte(`{"action":"pause","sessions":[]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, roots, p := ParseBulk(body)
		if p != nil {
			return
		}
		if !contains(BulkActions, req.Action) || len(roots) == 0 || len(roots) > MaxBulk {
			t.Fatalf("accepted %q with %d sessions", req.Action, len(roots))
		}
		seen := map[joinstore.Root]bool{}
		for _, r := range roots {
			if joinstore.CheckOwner(r.Owner) != nil || r.RootPid <= 0 || seen[r] {
				t.Fatalf("accepted session %v", r)
			}
			seen[r] = true
		}
	})
}

func FuzzParseStart(f *testing.F) {
	f.Add([]byte(`{"owner":"` + testOwner + `","rootPid":3,"step":"A1","key":"k","payload":{"n":1}}`))
	f.Add([]byte(`{"owner":"` + testOwner + `","rootPid":3,"payload":[1]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		form, root, p := ParseStart(body)
		if p != nil {
			return
		}
		if joinstore.CheckOwner(root.Owner) != nil || root.RootPid <= 0 || len(form.Step) > MaxSearch || len(form.Key) > MaxSearch {
			t.Fatalf("accepted %+v", form)
		}
	})
}

func FuzzParseQuery(f *testing.F) {
	f.Add("q=order-1&ostc=nested&from=1000&to=2000&status=live&sort=updated&order=asc&offset=5&limit=10")
	f.Add("from=2006-01-02T15:04:05Z&q=12:3")
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q, p := ParseQuery(v.Get)
		if p != nil {
			return
		}
		if q.Limit < 1 || q.Limit > MaxLimit || q.Offset < 0 || len(q.Search) > MaxSearch || len(q.Ostc) > MaxSearch ||
			(q.From > 0 && q.To > 0 && q.To < q.From) || !contains(SortKeys, q.Sort) {
			t.Fatalf("accepted %+v", q)
		}
		q.Keeps(Row{RootPid: 1, StartKey: "k", OstcID: "o", CreatedAt: 1})
	})
}

func FuzzParseInfoMemory(f *testing.F) {
	f.Add("# Memory\r\nused_memory:1048576\r\nused_memory_human:1.00M\r\nmaxmemory:0\r\n")
	f.Fuzz(func(t *testing.T, info string) {
		m := ParseInfoMemory("n", info)
		if len(m.UsedMemory) > len(info) || strings.Contains(m.Policy, "\n") {
			t.Fatalf("parsed %+v from %q", m, info)
		}
	})
}

// The pid of a step log request names one process of its session: a
// positive iteration, whatever the query holds.
func FuzzPidParam(f *testing.F) {
	for _, s := range []string{"7:3", "3", "8:3", "7:0", "-1", "+3", "07:3", "7:3:1", " 3", "99999999999999999999", strings.Repeat("1", 60)} {
		f.Add(s)
	}
	root := joinstore.Root{Owner: testOwner, RootPid: 7}
	f.Fuzz(func(t *testing.T, pid string) {
		r := &http.Request{URL: &url.URL{RawQuery: url.Values{"pid": {pid}}.Encode()}}
		iter, p := pidParam(r, root)
		if p != nil {
			return
		}
		if iter <= 0 || len(pid) > maxPidParam {
			t.Fatalf("pid %q: accepted iteration %d", pid, iter)
		}
		if want := "7:" + strconv.FormatInt(iter, 10); pid != want && pid != strconv.FormatInt(iter, 10) {
			t.Fatalf("pid %q: accepted as %s", pid, want)
		}
	})
}
