package console

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/xgr-sidecar/xgr/joinstore"
)

func TestParseBulk(t *testing.T) {
	ok := `{"owner":"` + testOwner + `","rootPid":3}`
	for body, want := range map[string]string{
		`{"action":"stop","sessions":[` + ok + `]}`:                                `action "stop": want one of kill, pause, resume`,
		`{"action":"kill","sessions":[]}`:                                          "sessions: 0 named, want 1 to 100",
		`{"action":"kill","sessions":[` + ok + `,{"owner":"bob","rootPid":1}]}`:    `sessions[1].owner: owner "bob": want an EVM address`,
		`{"action":"kill","sessions":[{"owner":"` + testOwner + `","rootPid":0}]}`: "sessions[0].rootPid 0: want the session's root pid",
		`[1]`: "body: json: cannot unmarshal array",
		`{"action":"kill","sessions":[` + strings.Repeat(ok+",", MaxBulk) + ok + `]}`: "sessions: 101 named, want 1 to 100",
	} {
		if _, _, p := ParseBulk([]byte(body)); p == nil || !strings.HasPrefix(p.Error, want) {
			t.Errorf("%.60s: %v, want %q", body, p, want)
		}
	}
	_, roots, p := ParseBulk([]byte(`{"action":"pause","sessions":[` + ok + `,` + strings.ToUpper(ok[:0]) + `{"owner":"0x00000000000000000000000000000000000000AA","rootPid":3}]}`))
	if p != nil || len(roots) != 1 || roots[0] != (joinstore.Root{Owner: testOwner, RootPid: 3}) {
		t.Errorf("a session named twice (two spellings): %v %v", roots, p)
	}
}

// Bulk pause, resume and kill from the list, each behind a confirmation;
// requests another origin could send, or on a read-only console, change
// nothing.
func TestBulkInBrowser(t *testing.T) {
	env := newBrowserEnv(t, true)
	ctx := context.Background()
	h := env.holding
	names := func(roots ...joinstore.Root) string {
		var parts []string
		for _, r := range roots {
			parts = append(parts, fmt.Sprintf(`{"owner":%q,"rootPid":%d}`, r.Owner, r.RootPid))
		}
		return `{"action":"kill","sessions":[` + strings.Join(parts, ",") + `]}`
	}
	post := func(body string, header bool, origin string) int {
		req, _ := http.NewRequest(http.MethodPost, env.base+"/ui/api/bulk", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if header {
			req.Header.Set(ActionHeader, "1")
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(names(h...), false, ""); code != http.StatusForbidden {
		t.Errorf("bulk kill without the console's header: %d", code)
	}
	if code := post(names(h...), true, "http://evil.example"); code != http.StatusForbidden {
		t.Errorf("bulk kill from another origin: %d", code)
	}
	if code := post(strings.Replace(names(h...), `"rootPid":`+strconv.FormatInt(h[2].RootPid, 10), `"rootPid":-1`, 1), true, ""); code != http.StatusBadRequest {
		t.Errorf("bulk kill with a bad entry: %d", code)
	}
	killed := func(r joinstore.Root) bool {
		meta, err := env.store.SessionMeta(ctx, r)
		return err == nil && !meta.KilledAt.IsZero()
	}
	for _, r := range h {
		if killed(r) {
			t.Fatalf("a refused bulk kill killed session %d", r.RootPid)
		}
	}

	rows := `[...document.querySelectorAll('table.sessions tbody tr[data-root]')]`
	env.open("#/sessions?ostc=nested")
	env.wait("the 3 waiting sessions", rows+`.length === 3`)
	pick := func(r joinstore.Root) {
		t.Helper()
		env.do("select "+strconv.FormatInt(r.RootPid, 10), chromedp.Click(chromedp.CSS(fmt.Sprintf(`input.pick[data-root="%d"]`, r.RootPid))))
	}
	confirm := func(action, question string) {
		t.Helper()
		env.do(action, chromedp.Click(chromedp.CSS(`[data-bulk="`+action+`"]`)), chromedp.WaitVisible(chromedp.ID("bulk-yes")))
		if got := eval[string](env, `document.getElementById('bulk-what').textContent`); got != question {
			t.Errorf("confirmation: %q, want %q", got, question)
		}
		if got := eval[string](env, `document.activeElement.id`); got != "bulk-yes" {
			t.Errorf("the focus is on %q, want the confirm button", got)
		}
	}
	ids := func(rs ...joinstore.Root) string {
		var s []string
		for _, r := range rs {
			s = append(s, strconv.FormatInt(r.RootPid, 10))
		}
		return strings.Join(s, ", ")
	}

	// Pause two.
	pick(h[0])
	pick(h[1])
	env.wait("2 selected", `document.getElementById('bulk-count').textContent === '2 selected'`)
	confirm("pause", "pause 2 sessions ("+ids(h[0], h[1])+")?")
	env.shot("bulk-confirm")
	env.do("confirm the pause", chromedp.Click(chromedp.ID("bulk-yes")))
	env.wait("2 paused rows", rows+`.filter(r => r.dataset.paused === '1').length === 2`)
	for _, r := range h[:2] {
		p, err := env.store.Process(ctx, r, 1)
		if meta, _ := env.store.SessionMeta(ctx, r); err != nil || !meta.Paused || !p.Paused {
			t.Errorf("session %d after the pause: meta %v, process paused %v %v", r.RootPid, meta.Paused, p.Paused, err)
		}
	}
	if meta, _ := env.store.SessionMeta(ctx, h[2]); meta.Paused {
		t.Errorf("session %d was not selected but is paused", h[2].RootPid)
	}
	if n := eval[int](env, `document.querySelectorAll('input.pick:checked').length`); n != 0 {
		t.Errorf("%d boxes still checked after the action", n)
	}

	// Resume one.
	pick(h[1])
	confirm("resume", "resume 1 session ("+ids(h[1])+")?")
	env.do("confirm the resume", chromedp.Click(chromedp.ID("bulk-yes")))
	env.wait("1 paused row", rows+`.filter(r => r.dataset.paused === '1').length === 1`)
	if p, _ := env.store.Process(ctx, h[1], 1); p.Paused {
		t.Errorf("session %d's process is still paused after the resume", h[1].RootPid)
	}

	// Kill every session of the page: Cancel first changes nothing.
	env.do("select the page", chromedp.Click(chromedp.ID("pick-all")))
	env.wait("3 selected", `document.getElementById('bulk-count').textContent === '3 selected'`)
	confirm("kill", "kill 3 sessions ("+ids(h...)+")?")
	env.do("cancel", chromedp.Click(chromedp.ID("bulk-no")))
	for _, r := range h {
		if killed(r) {
			t.Fatalf("a cancelled kill killed session %d", r.RootPid)
		}
	}
	confirm("kill", "kill 3 sessions ("+ids(h...)+")?")
	env.do("confirm the kill", chromedp.Click(chromedp.ID("bulk-yes")))
	env.wait("3 killed rows", rows+`.filter(r => r.dataset.status === 'killed').length === 3`)
	for _, r := range h {
		if !killed(r) {
			t.Errorf("session %d not killed", r.RootPid)
		}
	}
	if got := eval[string](env, `document.getElementById('toast').textContent`); !strings.HasPrefix(got, "kill: 3 of 3 sessions done") {
		t.Errorf("toast: %q", got)
	}
	for _, r := range append(env.finished, env.due...) {
		if killed(r) {
			t.Errorf("session %d was not selected but is killed", r.RootPid)
		}
	}
	env.onlyHere()
}

// A read-only console refuses bulk actions and shows no selection.
func TestBulkReadOnly(t *testing.T) {
	hs, root, store := newTestConsole(t, false)
	code, body := do(t, http.MethodPost, hs.URL+"/ui/api/bulk", `{"action":"kill","sessions":[{"owner":"`+root.Owner+`","rootPid":1}]}`, true)
	if code != http.StatusForbidden || !strings.Contains(body, "direct actions are off") {
		t.Errorf("bulk on a read-only console: %d %s", code, body)
	}
	if meta, _ := store.SessionMeta(context.Background(), root); !meta.KilledAt.IsZero() {
		t.Errorf("a refused bulk kill killed the session")
	}
}
