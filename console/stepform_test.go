package console

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// Wake by step from a form built from the step rule's payload schema: the
// fields, types and defaults of XRC137_A; a value that is no number is
// refused on the page and wakes nothing; a wake with a uint64 at its
// maximum reaches the waiting process with every digit.
func TestStepWakeInBrowser(t *testing.T) {
	env := newBrowserEnv(t, true)
	r := env.holding[0]
	q := fmt.Sprintf("owner=%s&root=%d", r.Owner, r.RootPid)
	var form StepForm
	env.getJSON("/ui/api/stepform?"+q+"&step=A1", &form)
	if got := fmt.Sprint(form.Fields); got != `[{Order string "demo-order" false} {qty uint64 3 false} {unitPrice uint64 25 false}]` {
		t.Errorf("A1's form fields: %s", got)
	}
	if fmt.Sprint(form.Waiting) != fmt.Sprintf("[%d:1]", r.RootPid) {
		t.Errorf("waiting on A1: %v", form.Waiting)
	}
	code, body := do(t, http.MethodGet, env.base+"/ui/api/stepform?"+q+"&step=NOPE", "", false)
	if code != 400 || !strings.Contains(body, `query step \"NOPE\": orchestration nested_join_example has steps A1, G1, H1, J1, P1, Q1, J2, Z1`) {
		t.Errorf("unknown step: %d %s", code, body)
	}
	code, body = do(t, http.MethodPost, env.base+"/ui/api/permit", fmt.Sprintf(`{"action":"wake","owner":%q,"rootPid":%d,"step":"A1"}`, r.Owner, r.RootPid), true)
	if code != 404 && !(code == 400 && strings.Contains(body, "wakes by step are direct actions")) {
		t.Errorf("a permit for a step wake: %d %s", code, body)
	}

	env.open(fmt.Sprintf("#/session/%s/%d", r.Owner, r.RootPid))
	env.wait("the step form", `!!document.getElementById('sw-step')`)
	env.do("choose A1", chromedp.Evaluate[chromedp.Void](`const s = document.getElementById('sw-step'); s.value = 'A1'; s.dispatchEvent(new Event('change'))`))
	env.wait("A1's fields", `!!document.getElementById('sw-f-unitPrice')`)
	labels := eval[[]string](env, `[...document.querySelectorAll('#sw-fields label')].map(l => l.textContent.trim().replace(/\s+/g, ' '))`)
	if got := strings.Join(labels, " | "); got != `Order string · default "demo-order" | qty uint64 · default 3 | unitPrice uint64 · default 25` {
		t.Errorf("form labels: %s", got)
	}
	before, _ := env.store.Process(t.Context(), r, 1)
	env.do("type a bad qty", chromedp.SendKeys(chromedp.ID("sw-f-qty"), "many"), chromedp.Click(chromedp.ID("sw-wake")))
	env.wait("the refusal", `document.getElementById('toast').textContent === 'qty: "many" is not a number (uint64)'`)
	if p, _ := env.store.Process(t.Context(), r, 1); string(p.ResumePlain) != string(before.ResumePlain) {
		t.Fatalf("a refused form changed the payload: %s", p.ResumePlain)
	}
	env.shot("step-wake")
	env.do("fill the form", chromedp.Evaluate[chromedp.Void](`document.getElementById('sw-f-qty').value = '18446744073709551615'`),
		chromedp.SendKeys(chromedp.ID("sw-f-Order"), "order-77"), chromedp.Click(chromedp.ID("sw-wake")))
	env.wait("the wake's outcome", `document.getElementById('toast').className === 'show' && document.getElementById('toast').textContent.startsWith('woke ')`, `document.getElementById('toast').textContent`)
	p, err := env.store.Process(t.Context(), r, 1)
	if err != nil {
		t.Fatal(err)
	}
	plain := string(p.ResumePlain)
	if !strings.Contains(plain, `"qty":18446744073709551615`) || !strings.Contains(plain, `"Order":"order-77"`) || strings.Contains(plain, "unitPrice") {
		t.Errorf("woken payload: %s", plain)
	}
	h, _ := env.store.History(t.Context(), r)
	woken := false
	for _, e := range h {
		woken = woken || e.Event == joinstore.EventWoken && e.Pid == fmt.Sprintf("%d:1", r.RootPid) && e.By == "console operator"
	}
	if !woken {
		t.Errorf("no woken entry in the history: %+v", h)
	}
	env.onlyHere()
}
