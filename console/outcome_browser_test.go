package console

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/xgr-sidecar/xgr/reactor"
)

// The list shows a finished session's outcome as its badge, coloured by
// outcome (ok green, killed red), and filters by outcome; the session's
// own page shows the same badge.
func TestOutcomeBadgeAndFilterInBrowser(t *testing.T) {
	env := newBrowserEnv(t, false)
	killed := env.holding[1]
	if _, err := reactor.Kill(context.Background(), env.store, killed, time.Now()); err != nil {
		t.Fatal(err)
	}
	rows := `[...document.querySelectorAll('table.sessions tbody tr[data-root]')].map(r => r.dataset.root + '=' + r.querySelector('.pill').textContent).join(',')`
	colour := func(root int64) string {
		return eval[string](env, `getComputedStyle(document.querySelector('tr[data-root="`+strconv.FormatInt(root, 10)+`"] .pill')).color`)
	}
	env.open("#/sessions")
	env.wait("the 9 sessions", `document.querySelectorAll('table.sessions tbody tr[data-root]').length === 9`)
	ok, dead := colour(env.finished[0].RootPid), colour(killed.RootPid)
	if ok == dead || ok == "" {
		t.Errorf("ok badge colour %q, killed %q: want distinct colours", ok, dead)
	}
	if got := eval[string](env, `document.querySelector('tr[data-root="`+strconv.FormatInt(killed.RootPid, 10)+`"] .pill').className`); got != "pill s-killed" {
		t.Errorf("the killed session's badge: class %q", got)
	}
	id := func(i int) string { return strconv.FormatInt(env.finished[i].RootPid, 10) }
	env.do("filter killed", chromedp.Evaluate[chromedp.Void](`document.getElementById('f-outcome').value = 'killed'`), chromedp.Click(chromedp.CSS(`#filters button[type="submit"]`)))
	env.wait("only the killed session", rows+` === '`+strconv.FormatInt(killed.RootPid, 10)+`=killed'`)
	env.do("filter ok", chromedp.Evaluate[chromedp.Void](`document.getElementById('f-outcome').value = 'ok'`), chromedp.Click(chromedp.CSS(`#filters button[type="submit"]`)))
	env.wait("the four ok sessions", rows+` === '`+id(3)+"=ok,"+id(2)+"=ok,"+id(1)+"=ok,"+id(0)+`=ok'`)
	env.open("#/session/" + killed.Owner + "/" + strconv.FormatInt(killed.RootPid, 10))
	env.wait("the session's badge", `document.querySelector('h1 .pill') && document.querySelector('h1 .pill').textContent === 'killed'`)
	env.onlyHere()
}
