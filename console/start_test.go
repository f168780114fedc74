package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/session"
)

func TestParseStart(t *testing.T) {
	for body, want := range map[string]string{
		`{"owner":"bob","rootPid":1}`:                                                        `owner: owner "bob": want an EVM address`,
		`{"owner":"` + testOwner + `","rootPid":0}`:                                          "rootPid 0: want the root pid of the session",
		`{"owner":"` + testOwner + `","rootPid":1,"key":"` + strings.Repeat("k", 201) + `"}`: "key: 201 bytes, want at most 200",
	} {
		if _, _, p := ParseStart([]byte(body)); p == nil || !strings.HasPrefix(p.Error, want) {
			t.Errorf("%.70s: %v, want %q", body, p, want)
		}
	}
}

// A session started from a session page: the same orchestration pinned to
// the same hash, the key and the payload given (every digit); the same key
// again names the same session; a bad payload starts nothing; a template
// on a chain registry is refused without an authority checker.
func TestStartInBrowser(t *testing.T) {
	env := newBrowserEnv(t, true)
	ctx := t.Context()
	tmpl := env.finished[0]
	tmeta, _ := env.store.SessionMeta(ctx, tmpl)
	env.open(fmt.Sprintf("#/session/%s/%d", tmpl.Owner, tmpl.RootPid))
	env.do("open the start form", chromedp.Click(chromedp.CSS("details.start summary")), chromedp.WaitVisible(chromedp.ID("st-go")))
	env.do("a bad payload", chromedp.Evaluate[chromedp.Void](`document.getElementById('st-payload').value = '[1]'`), chromedp.Click(chromedp.ID("st-go")))
	env.wait("the refusal", `document.getElementById('toast').textContent === 'the start payload must be a JSON object'`)
	env.do("fill the form", chromedp.SendKeys(chromedp.ID("st-key"), "again-1"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('st-payload').value = '{"n": 18446744073709551617}'`))
	env.shot("start-form")
	env.do("start", chromedp.Click(chromedp.ID("st-go")))
	env.wait("the new session's page", `/^#\/session\/0x[0-9a-f]{40}\/\d+$/.test(location.hash) && !location.hash.endsWith('/`+fmt.Sprint(tmpl.RootPid)+`') && document.querySelector('main').dataset.ready === '1'`,
		`document.getElementById('toast').textContent`)
	var root int64
	fmt.Sscanf(eval[string](env, `location.hash.split('/').pop()`), "%d", &root)
	started := joinstore.Root{Owner: tmpl.Owner, RootPid: root}
	meta, err := env.store.SessionMeta(ctx, started)
	if err != nil {
		t.Fatal(err)
	}
	if meta.StartKey != "again-1" || meta.OstcID != "minimal_join" || meta.OstcHash != tmeta.OstcHash || meta.StartStep != "A1" {
		t.Errorf("started session: %v (template %v)", meta, tmeta)
	}
	if p, _ := env.store.Process(ctx, started, 1); string(p.ResumePlain) != `{"n":18446744073709551617}` && string(p.ResumePlain) != `{"n": 18446744073709551617}` {
		t.Errorf("start payload: %s", p.ResumePlain)
	}
	body := fmt.Sprintf(`{"owner":%q,"rootPid":%d,"key":"again-1","payload":{"n": 18446744073709551617}}`, tmpl.Owner, tmpl.RootPid)
	code, out := do(t, http.MethodPost, env.base+"/ui/api/start", body, true)
	var again struct{ RootPid int64 }
	json.Unmarshal([]byte(out), &again)
	if code != 200 || again.RootPid != root {
		t.Errorf("the same key again: %d %s, want session %d", code, out, root)
	}
	if code, out := do(t, http.MethodPost, env.base+"/ui/api/start", body, false); code != http.StatusForbidden {
		t.Errorf("a start without the console's header: %d %s", code, out)
	}

	// A template session on a chain registry.
	mj := loadOrchestration(t, "minimal_join.json")
	res, err := session.Starter{Store: env.store, Source: reactor.NewStaticSource(mj), Trusted: true}.Start(ctx, session.Request{Owner: testOwner, Registry: "0x00000000000000000000000000000000000000bb",
		OstcID: mj.ID, Step: "A1", WakeAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	code, out = do(t, http.MethodPost, env.base+"/ui/api/start", fmt.Sprintf(`{"owner":%q,"rootPid":%d}`, testOwner, res.Root.RootPid), true)
	if code != http.StatusForbidden || !strings.Contains(out, `"kind":"authority-required"`) || !strings.Contains(out, "start through the gateway with a SessionPermit") {
		t.Errorf("a start on a chain registry without an authority checker: %d %s", code, out)
	}
	env.onlyHere()
}

// Every kind of the start use case has an HTTP status.
func TestStartStatusCoversEveryKind(t *testing.T) {
	for _, k := range session.Kinds {
		if startStatus[k] == 0 {
			t.Errorf("kind %s: no HTTP status", k)
		}
	}
}
