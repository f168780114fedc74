package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/xgr-sidecar/xgr/console"
	"github.com/xgr-sidecar/xgr/devnet"
	"github.com/xgr-sidecar/xgr/internal/toolbin"
	"github.com/xgr-sidecar/xgr/testenv"
)

// devOwner is xgr dev's registry owner (dev account 0), who owns the demo
// sessions.
const devOwner = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"

// walletJS is a minimal EIP-1193 wallet the test injects: it answers
// eth_requestAccounts with the dev account and passes eth_signTypedData_v4
// to the test (a binding), which signs with the dev key like a wallet would.
const walletJS = `(() => {
  const pending = {}; let n = 0;
  window.__xgrSigned = (id, sig, err) => { const p = pending[id]; delete pending[id]; if (err) p.reject(new Error(err)); else p.resolve(sig); };
  window.ethereum = { isXgrTestWallet: true, request: async ({ method, params }) => {
    if (method === 'eth_requestAccounts' || method === 'eth_accounts') return ['` + devOwner + `'];
    if (method === 'eth_signTypedData_v4') {
      const id = ++n;
      return new Promise((resolve, reject) => { pending[id] = { resolve, reject }; window.xgrTestSign(JSON.stringify({ id, account: params[0], data: params[1] })); });
    }
    throw new Error('test wallet: unsupported ' + method);
  } };
})();`

// TestConsoleInBrowser drives the console of a real xgr dev in headless
// Chromium: the list shows the demo sessions, the flow view of a finished
// nested-join session shows every process with its status, a kill (reached
// by keyboard) ends a waiting session and a wake with a payload resumes
// one, both with permits the page's wallet signs; the page loads nothing
// from elsewhere; screenshots go to $XGR_CONSOLE_SHOTS (default: a
// temporary folder).
func TestConsoleInBrowser(t *testing.T) {
	chromium, err := toolbin.Find("chromium")
	if err != nil {
		t.Fatal(err)
	}
	shots := os.Getenv("XGR_CONSOLE_SHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	// The first four A1 executions go on at once; later sessions' A1
	// children wait an hour: those sessions wait for a kill or a wake.
	outcomes := writeFile(t, "outcomes.json", `{"default":{"result":"valid"},
  "A1":[{"result":"valid"},{"result":"valid"},{"result":"valid"},{"result":"valid"},{"result":"valid","waitSec":3600}]}`)
	addr := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	rpcAddr := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- runApp(ctx, newApp(&out, io.Discard), []string{"xgr", "--log-level", "warn", "dev", "--ostc-dir", "../../examples/ostc",
			"--orders", "8", "--every", "20ms", "--outcomes", outcomes, "--listen", addr, "--rpc-listen", rpcAddr})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("xgr dev: %v", err)
		}
	}()
	base := "http://" + addr
	// The eight sessions the demo orders triggered: four finish, four wait.
	var list console.List
	waitFor(t, 60*time.Second, "8 demo sessions, 4 finished and 4 waiting", &out, func() bool {
		list = console.List{}
		if tryJSON(base+"/ui/api/sessions?limit=100", &list) != nil {
			return false // not serving yet
		}
		fin, live := 0, 0
		for _, r := range list.Rows {
			switch r.Status {
			case "finished":
				fin++
			case "live":
				live++
			}
		}
		return list.Total == 8 && fin == 4 && live == 4
	})
	var finished, waiting []console.Row
	for _, r := range list.Rows {
		if r.Status == "finished" {
			finished = append(finished, r)
		} else {
			waiting = append(waiting, r)
		}
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(1400, 1000), chromedp.Flag("disable-dev-shm-usage", true))
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()
	bctx, tcancel := context.WithTimeout(bctx, 3*time.Minute)
	defer tcancel()

	keys, err := devnet.DevKeys(1)
	if err != nil {
		t.Fatal(err)
	}
	key := keys[0]
	var mu sync.Mutex
	var requests []string
	var signed int
	if err := chromedp.Listen(bctx, func(ev any) {
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			mu.Lock()
			requests = append(requests, e.Request.URL)
			mu.Unlock()
		case *runtime.EventBindingCalled:
			if e.Name != "xgrTestSign" {
				return
			}
			go func() {
				id, sig, serr := signTyped(key, e.Payload)
				mu.Lock()
				signed++
				mu.Unlock()
				js := fmt.Sprintf("window.__xgrSigned(%d, %q, %q)", id, sig, serr)
				if _, err := chromedp.Run(bctx, chromedp.Evaluate[chromedp.Void](js)); err != nil {
					t.Errorf("hand the signature to the page: %v", err)
				}
			}()
		}
	}); err != nil {
		t.Fatalf("start chromium %s: %v", chromium, err)
	}
	do := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatalf("%s: %v\nxgr dev:\n%s", what, err, out.String())
		}
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ready := chromedp.WaitVisible(chromedp.CSS(`main[data-ready="1"]`))
	call := func(what string, f func(ctx context.Context) error) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			if err := f(ctx); err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
			return nil
		})
	}
	do("open the console",
		call("network.enable", func(ctx context.Context) error {
			_, err := chromedp.Call(ctx, network.Enable, network.EnableParams{})
			return err
		}),
		call("add the signing binding", func(ctx context.Context) error {
			_, err := chromedp.Call(ctx, runtime.AddBinding, runtime.AddBindingParams{Name: "xgrTestSign"})
			return err
		}),
		call("inject the wallet", func(ctx context.Context) error {
			_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: walletJS})
			return err
		}),
		chromedp.Navigate(base+"/ui/#/sessions"), ready)

	// The list shows the demo sessions.
	waitBrowser(t, bctx, "the list's 8 rows", `document.querySelectorAll('table.sessions tbody tr[data-root]').length === 8`)
	shot("sessions")

	// The flow view of a finished nested-join session: every process, with its status.
	f := finished[0]
	var detail console.Detail
	getJSON(t, fmt.Sprintf("%s/ui/api/session?owner=%s&root=%d", base, f.Owner, f.RootPid), &detail)
	do("open a finished session", chromedp.Navigate(fmt.Sprintf("%s/ui/#/session/%s/%d", base, f.Owner, f.RootPid)), ready,
		chromedp.WaitVisible(chromedp.CSS(`svg.graph g.node`)))
	nodes := evalJS[[]map[string]string](t, bctx, `[...document.querySelectorAll('svg.graph g.node')].map(g => ({pid: g.dataset.id, status: g.dataset.status, label: g.querySelector('.n-label').textContent, text: g.textContent}))`)
	want := map[string]string{}
	steps := map[string]bool{}
	for _, p := range detail.Processes {
		want[p.Pid] = p.Status
		steps[p.ResumeStep] = true
	}
	if len(nodes) != len(detail.Processes) || len(nodes) < 7 {
		t.Fatalf("flow view: %d nodes, the session has %d processes: %v", len(nodes), len(detail.Processes), nodes)
	}
	for _, s := range []string{"A1", "G1", "H1", "J1", "P1", "Q1", "J2", "Z1"} {
		if !steps[s] {
			t.Errorf("finished nested join has no %s process: %v", s, detail.Processes)
		}
	}
	for _, n := range nodes {
		if want[n["pid"]] != n["status"] {
			t.Errorf("node %s (%s): status %q, the store says %q", n["pid"], n["label"], n["status"], want[n["pid"]])
		}
		switch n["label"] {
		case "A1", "J1", "P1", "Q1", "J2", "Z1":
			if n["status"] != "done" {
				t.Errorf("node %s %s: status %q, want done", n["pid"], n["label"], n["status"])
			}
		}
		if strings.HasPrefix(n["label"], "J") && !strings.Contains(n["text"], "closed") {
			t.Errorf("join target %s %s: %q does not say the join closed", n["pid"], n["label"], n["text"])
		}
	}
	shot("flow-finished")

	// Every action of a waiting session's page is reachable by Tab, and a
	// kill from the keyboard ends the session.
	k := waiting[0]
	do("open a waiting session", chromedp.Navigate(fmt.Sprintf("%s/ui/#/session/%s/%d", base, k.Owner, k.RootPid)), ready,
		chromedp.WaitVisible(chromedp.ID("kill")))
	const actions = `[...document.querySelectorAll('a[href], button, textarea, select')].filter(e => e.getClientRects().length > 0)`
	evalJS[bool](t, bctx, `window.__seen = new Set(); document.addEventListener('focusin', e => window.__seen.add(e.target)); document.activeElement.blur(); true`)
	count := evalJS[int](t, bctx, actions+`.length`)
	for i := 0; i < count+5; i++ {
		do("tab", chromedp.KeyEvent(kb.Tab))
	}
	if unreached := evalJS[[]string](t, bctx, actions+`.filter(e => !window.__seen.has(e)).map(e => e.outerHTML.slice(0, 80))`); len(unreached) > 0 {
		t.Errorf("actions Tab does not reach: %v", unreached)
	}
	focusByTab(t, bctx, "kill", count+5)
	do("press Enter on kill", chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.ID("kill-yes")))
	if focused := evalJS[string](t, bctx, `document.activeElement.id`); focused != "kill-yes" {
		t.Fatalf("after Enter on kill the focus is on %q, want the confirm button", focused)
	}
	do("confirm the kill", chromedp.KeyEvent(kb.Enter))
	waitBrowser(t, bctx, "the killed session's status", `!!document.querySelector('#s-head .pill.s-killed') && document.getElementById('live-count').textContent === '0'`)
	var killed console.Detail
	getJSON(t, fmt.Sprintf("%s/ui/api/session?owner=%s&root=%d", base, k.Owner, k.RootPid), &killed)
	if killed.Session["status"] != "finished" || killed.Session["killedAt"] == "" {
		t.Errorf("after the kill: session %v", killed.Session)
	}
	shot("killed")

	// A wake with a payload resumes a waiting session; the payload keeps every digit.
	wk := waiting[1]
	var wd console.Detail
	getJSON(t, fmt.Sprintf("%s/ui/api/session?owner=%s&root=%d", base, wk.Owner, wk.RootPid), &wd)
	var g1 string
	for _, p := range wd.Processes {
		if p.ResumeStep == "G1" && p.Status == "waiting" {
			g1 = p.Pid
		}
	}
	if g1 == "" {
		t.Fatalf("session %d has no waiting G1: %v", wk.RootPid, wd.Processes)
	}
	const payload = `{"approved": true, "amount": 18446744073709551617, "price": 0.1000000000000000055511151231257827}`
	do("open the waiting process", chromedp.Navigate(fmt.Sprintf("%s/ui/#/session/%s/%d/%s", base, wk.Owner, wk.RootPid, g1)), ready,
		chromedp.WaitVisible(chromedp.ID("wake-payload")), chromedp.SetValue(chromedp.ID("wake-payload"), payload))
	shot("wake-form")
	focusByTab(t, bctx, "wake", 200)
	do("press Enter on wake", chromedp.KeyEvent(kb.Enter))
	// G1 runs at once and closes J1 (any, kill: H1 is killed); J1 itself was
	// created with A1's hour of waiting, so the session goes on waiting.
	waitFor(t, 30*time.Second, "the woken process to run", &out, func() bool {
		getJSON(t, fmt.Sprintf("%s/ui/api/session?owner=%s&root=%d", base, wk.Owner, wk.RootPid), &wd)
		for _, p := range wd.Processes {
			if p.Pid == g1 {
				return p.Status == "done"
			}
		}
		return false
	})
	for _, j := range wd.Joins {
		if j.Step == "J1" && (j.Status != "closed" || len(j.Got) != 1 || j.Got[0] != "G1") {
			t.Errorf("after the wake, join J1: %+v, want closed with G1", j)
		}
	}
	waitBrowser(t, bctx, "the woken process done", `!!document.querySelector('svg.graph g.node[data-id="`+g1+`"][data-status="done"]') && document.getElementById('payload').textContent.includes('18446744073709551617')`)
	shown := evalJS[string](t, bctx, `document.getElementById('payload').textContent`)
	for _, digits := range []string{"18446744073709551617", "0.1000000000000000055511151231257827", `"approved": true`} {
		if !strings.Contains(shown, digits) {
			t.Errorf("the woken process's payload lacks %s:\n%s", digits, shown)
		}
	}
	shot("flow-woken")

	// A large payload renders a bounded part at a time, a legacy value
	// nested 9000 deep included (the pretty-printer this replaced wrote
	// 162 M characters for it): levels below two start collapsed, a
	// container shows 100 children and a render at most 20000 characters,
	// the rest on expand or "show more".
	evalJS[bool](t, bctx, `window.__json = null; import('/ui/json.js').then((m) => {
  const wide = '[' + Array.from({ length: 20000 }, (_, i) => i).join(',') + ']';
  const keys = '{' + Array.from({ length: 5000 }, (_, i) => '"k' + i + '": "' + 'v'.repeat(20) + '"').join(',') + '}';
  const big = '{"n": 18446744073709551617, "wide": ' + wide + ', "long": "' + 'x'.repeat(100000) + '", "keys": ' + keys +
    ', "deep": ' + '['.repeat(9000) + ']'.repeat(9000) + '}';
  const el = document.createElement('pre');
  el.className = 'json';
  document.body.append(el);
  m.mountJSON(el, big);
  const r = { size: big.length, first: el.textContent.length, digits: el.textContent.includes('18446744073709551617') };
  const items = () => el.querySelectorAll('.j-kids')[0].children[1].querySelectorAll(':scope > .j-box > .j-kids > .j-line').length;
  r.wideBefore = items();
  el.querySelector('.j-more').click();
  r.wideAfter = items();
  r.afterMore = el.textContent.length;
  const closed = [...el.querySelectorAll('.j-toggle[aria-expanded="false"]')];
  r.closed = closed.length;
  closed[closed.length - 1].click();
  r.afterExpand = el.textContent.length;
  el.remove();
  window.__json = r;
}).catch((e) => { window.__json = { error: String(e) }; }); true`)
	waitBrowser(t, bctx, "the large payload's rendering", `window.__json !== null`)
	big := evalJS[map[string]any](t, bctx, `window.__json`)
	num := func(k string) float64 { f, _ := big[k].(float64); return f }
	switch {
	case big["error"] != nil:
		t.Errorf("rendering a large payload: %v", big["error"])
	case num("size") < 300000 || num("first") > 40000 || big["digits"] != true:
		t.Errorf("a %v-character payload rendered %v characters at first (want at most 40000, its digits kept): %v", big["size"], big["first"], big)
	case num("wideBefore") != 100 || num("wideAfter") != 200 || num("afterMore")-num("first") > 40000:
		t.Errorf("show more on a 20000-item array: %v items, then %v (want 100, 200), %v more characters", big["wideBefore"], big["wideAfter"], num("afterMore")-num("first"))
	case num("closed") < 1 || num("afterExpand") <= num("afterMore") || num("afterExpand")-num("afterMore") > 40000:
		t.Errorf("expanding a collapsed level: %v", big)
	}
	// The view of the screen alone (docs/console.png is one of these).
	evalJS[bool](t, bctx, `document.activeElement.blur(); window.scrollTo(0, 0); true`)
	if png, err := chromedp.Run(bctx, chromedp.CaptureScreenshot()); err != nil {
		t.Errorf("screenshot: %v", err)
	} else if err := os.WriteFile(filepath.Join(shots, "console.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}

	// The orchestration view and the index view.
	do("open the orchestration", chromedp.Navigate(fmt.Sprintf("%s/ui/#/orchestration/%s/%d", base, wk.Owner, wk.RootPid)), ready,
		chromedp.WaitVisible(chromedp.CSS(`svg.graph g.node`)))
	if n := evalJS[int](t, bctx, `document.querySelectorAll('svg.graph g.node').length`); n != 8 {
		t.Errorf("orchestration view: %d steps, want the 8 of nested_join_example", n)
	}
	shot("orchestration")
	do("open the index", chromedp.Navigate(base+"/ui/#/index"), ready, chromedp.WaitVisible(chromedp.CSS(`td[data-key="checkpoint"]`)))
	shot("index")

	mu.Lock()
	defer mu.Unlock()
	if signed != 2 {
		t.Errorf("the wallet signed %d permits, want 2 (kill, wake)", signed)
	}
	for _, r := range requests {
		if u, err := url.Parse(r); err != nil || (u.Host != addr && u.Scheme != "data") {
			t.Errorf("the page requested %s: only the sidecar (%s) may be contacted", r, addr)
		}
	}
	t.Logf("screenshots in %s", shots)
}

// evalJS evaluates a JavaScript expression on the page.
func evalJS[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// signTyped signs the typed data of an eth_signTypedData_v4 call (the
// binding's payload) as a wallet does: go-ethereum's EIP-712 hashing,
// independent of the console's and the gateway's code.
func signTyped(key *ecdsa.PrivateKey, payload string) (id int, sig, problem string) {
	var call struct {
		ID      int    `json:"id"`
		Account string `json:"account"`
		Data    string `json:"data"`
	}
	if err := json.Unmarshal([]byte(payload), &call); err != nil {
		return 0, "", err.Error()
	}
	var td apitypes.TypedData
	if err := json.Unmarshal([]byte(call.Data), &td); err != nil {
		return call.ID, "", "typed data: " + err.Error()
	}
	hash, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return call.ID, "", "typed data: " + err.Error()
	}
	s, err := crypto.Sign(hash, key)
	if err != nil {
		return call.ID, "", err.Error()
	}
	s[64] += 27
	return call.ID, hexutil.Encode(s), ""
}

// focusByTab presses Tab until the element with the id has the focus.
func focusByTab(t *testing.T, ctx context.Context, id string, most int) {
	t.Helper()
	for i := 0; i < most; i++ {
		if evalJS[string](t, ctx, `document.activeElement ? document.activeElement.id : ''`) == id {
			return
		}
		if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatalf("%d presses of Tab do not reach #%s", most, id)
}

// waitBrowser waits until a JavaScript condition holds on the page.
func waitBrowser(t *testing.T, ctx context.Context, what, cond string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](cond)); err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("main")))
			t.Fatalf("page: no %s within 30s:\n%.3000s", what, html)
		}
	}
}

// waitFor polls cond until it holds.
func waitFor(t *testing.T, d time.Duration, what string, out *syncBuffer, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s; xgr dev:\n%s", what, d, out.String())
		}
	}
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	if err := tryJSON(u, v); err != nil {
		t.Fatal(err)
	}
}

func tryJSON(u string, v any) error {
	resp, err := http.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return fmt.Errorf("GET %s: %d %s", u, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("GET %s: %v: %s", u, err, b)
	}
	return nil
}

// syncBuffer is a bytes.Buffer xgr dev writes to from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Direct actions need no permit: they are refused (exit 2) unless the
// console is served on loopback.
func TestConsoleActionsNeedLoopback(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"dev", "--ostc-dir", "../../examples/ostc", "--ui-actions", "--listen", "0.0.0.0:0"}, `dev: --ui-actions: --listen "0.0.0.0:0" is not a loopback address`},
		{[]string{"dev", "--ostc-dir", "../../examples/ostc", "--ui-actions", "--listen", ":9464"}, "is not a loopback address"},
		{[]string{"dev", "--ostc-dir", "../../examples/ostc", "--ui-actions", "--no-ui"}, "dev: --ui-actions needs the console"},
		{[]string{"run", "--outcomes", "x.json", "--ui-actions", "--listen", ""}, "run: --ui-actions needs the console"},
		{[]string{"run", "--outcomes", "x.json", "--ui-actions", "--ui=false"}, "run: --ui-actions needs the console"},
	} {
		out, code := run(t, tc.args...)
		if code != 2 || !strings.Contains(out, tc.want) {
			t.Errorf("xgr %s: exit %d, want 2 and %q:\n%s", strings.Join(tc.args, " "), code, tc.want, out)
		}
	}
	for _, addr := range []string{"127.0.0.1:9464", "[::1]:9464", "localhost:9464"} {
		if !loopback(addr) {
			t.Errorf("%s is loopback", addr)
		}
	}
}
