package console

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

func TestQueryKeeps(t *testing.T) {
	rows := []Row{
		{RootPid: 1, StartKey: "order-1", OstcID: "minimal_join", CreatedAt: 1000, Status: "finished"},
		{RootPid: 12, StartKey: "order-12", OstcID: "nested_join_example", CreatedAt: 2000, Status: "live"},
		{RootPid: 3, OstcID: "Nested_Join_Example", CreatedAt: 3000, Status: "live"},
	}
	for _, tc := range []struct {
		query string
		want  []int64
	}{
		{"q=12", []int64{12}},
		{"q=12:4", []int64{12}},
		{"q=order-1", []int64{1, 12}},
		{"q=order-12", []int64{12}},
		{"q=nothing", nil},
		{"ostc=NESTED", []int64{12, 3}},
		{"from=2000", []int64{12, 3}},
		{"to=2000", []int64{1, 12}},
		{"from=1970-01-01T00:00:02Z&to=1970-01-01T00:00:02Z", []int64{12}},
		{"ostc=nested&status=live&from=2500", []int64{3}},
	} {
		v, _ := url.ParseQuery(tc.query)
		q, p := ParseQuery(v.Get)
		if p != nil {
			t.Fatalf("%s: %s", tc.query, p.Error)
		}
		var got []int64
		for _, r := range rows {
			if q.Keeps(r) {
				got = append(got, r.RootPid)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s keeps %v, want %v", tc.query, got, tc.want)
		}
	}
	for query, want := range map[string]string{
		"from=yesterday":                 `query from "yesterday": want a time as unix milliseconds or RFC 3339`,
		"from=2000&to=1000":              "query to 1000 is before from 2000: want from <= to",
		"q=" + string(make([]byte, 201)): "query q: 201 bytes, want at most 200",
	} {
		v, _ := url.ParseQuery(query)
		if _, p := ParseQuery(v.Get); p == nil || len(p.Error) < len(want) || p.Error[:len(want)] != want {
			t.Errorf("%.40s: %v, want %q", query, p, want)
		}
	}
}

// The list's search form finds sessions by start key, by session id, by
// orchestration and by creation time, and combinations of them.
func TestSearchInBrowser(t *testing.T) {
	env := newBrowserEnv(t, false)
	rows := `[...document.querySelectorAll('table.sessions tbody tr[data-root]')].map(r => r.dataset.root).join(',')`
	search := func(what, setup, want string) {
		t.Helper()
		env.do("clear the form", chromedp.Evaluate[chromedp.Void](`for (const id of ['f-q', 'f-ostc', 'f-from', 'f-to']) document.getElementById(id).value = ''`))
		if setup != "" {
			env.do("fill "+what, chromedp.Evaluate[chromedp.Void](setup))
		}
		env.do("apply "+what, chromedp.Click(chromedp.CSS(`#filters button[type="submit"]`)))
		env.wait(what, rows+` === '`+want+`' && document.querySelector('main').dataset.ready === '1'`)
	}
	env.open("#/sessions")
	env.wait("the 9 sessions", `document.querySelectorAll('table.sessions tbody tr[data-root]').length === 9`)
	id := func(r int64) string { return strconv.FormatInt(r, 10) }

	// A start key, typed.
	env.do("type a start key", chromedp.SendKeys(chromedp.ID("f-q"), "order-3"), chromedp.KeyEvent("\r"))
	env.wait("the session started with order-3", rows+` === '`+id(env.finished[2].RootPid)+`'`)
	if got := eval[string](env, `document.querySelector('tr[data-root] .key').textContent`); got != "order-3" {
		t.Errorf("the row shows start key %q", got)
	}
	if h := eval[string](env, `location.hash`); !strings.Contains(h, "q=order-3") {
		t.Errorf("the search is not in the address: %s", h)
	}
	shot := env.shot
	shot("search-key")
	search("a session id", `document.getElementById('f-q').value = '`+id(env.due[1].RootPid)+`'`, id(env.due[1].RootPid))
	search("an orchestration", `document.getElementById('f-ostc').value = 'nested'`,
		id(env.holding[2].RootPid)+","+id(env.holding[1].RootPid)+","+id(env.holding[0].RootPid))
	from := `document.getElementById('f-from').value = localStamp(` + strconv.FormatInt(env.startedAt.UnixMilli(), 10) + `);`
	env.do("define localStamp", chromedp.Evaluate[chromedp.Void](`window.localStamp = (ms) => { const d = new Date(ms), p = (n) => String(n).padStart(2, '0');
	  return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + 'T' + p(d.getHours()) + ':' + p(d.getMinutes()) + ':' + p(d.getSeconds()); }`))
	search("a time range", from, id(env.due[1].RootPid)+","+id(env.due[0].RootPid))
	search("a time range before", `document.getElementById('f-to').value = localStamp(`+strconv.FormatInt(env.startedAt.UnixMilli()-1, 10)+`);
	  document.getElementById('f-ostc').value = 'minimal'`,
		id(env.finished[3].RootPid)+","+id(env.finished[2].RootPid)+","+id(env.finished[1].RootPid)+","+id(env.finished[0].RootPid))
	search("nothing", `document.getElementById('f-q').value = 'no-such-key'`, "")
	if got := eval[string](env, `document.querySelector('table.sessions caption').textContent`); got[:10] != "0 sessions" {
		t.Errorf("caption: %q", got)
	}
	env.onlyHere()
}
