package console

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/execution/scripted"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/session"
	"github.com/xgr-sidecar/xgr/testenv"
)

// bundleExec evaluates every step valid, as a rule would, and hands the
// bundle what a rule evaluation hands it: the rule contract and hash, its
// API and contract-read saves, the branch's grants (the auditor, READ) and
// encryptLogs for a session whose payload says "kyc" (whose API call then
// saved testSecret: it is nowhere but in the sealed bundle). A1's branch
// executes a transaction (a scripted actuator mines it).
type bundleExec struct{}

func (bundleExec) Execute(_ context.Context, e reactor.Execution) (reactor.Result, error) {
	kyc := e.Payload["kyc"] == true
	r := reactor.Result{Valid: true, Output: map[string]any{"checked": true}, Evidence: &reactor.EvidenceInput{
		Rule: fmt.Sprintf("0x%040x", len(e.Step.ID)*0xa1), RuleHash: "0x" + strings.Repeat("7e", 32),
		APISaves: json.RawMessage(`{"fx":"1.08"}`), ContractSaves: json.RawMessage(`{"limit":900000000000000000001}`), Policy: auditorPolicy(kyc)}}
	if kyc {
		r.Evidence.APISaves = json.RawMessage(`{"passport":"` + testSecret + `"}`)
	}
	if e.Step.ID == "A1" {
		r.Execution = &execution.Call{To: reactor.ScriptedTarget, Data: []byte("success")}
	}
	return r, nil
}

// A finished session's A1 shows its log bundle like the XGR OPS step
// view: rule and hash, the execution's transaction (hash, block, gas used,
// status), the result, and the payload and saves with every digit; an
// encryptLogs session's A1 says its bundle is sealed, names its RID,
// readers and expiry, and the page holds nothing of its plaintext.
func TestStepBundleInBrowser(t *testing.T) {
	srv := testenv.StartRedis(t)
	rdb := srv.Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	ev, gs := bundleStores(t, rdb)
	mj := loadOrchestration(t, "minimal_join.json")
	src := reactor.NewStaticSource(mj)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()
	start := func(key, payload string) joinstore.Root {
		t.Helper()
		res, err := session.Starter{Store: store, Source: src}.Start(ctx, session.Request{Owner: testOwner, Registry: "file", OstcID: mj.ID, Step: "A1",
			Payload: json.RawMessage(payload), Key: key})
		if err != nil {
			t.Fatal(err)
		}
		return res.Root
	}
	plain := start("plain-1", `{"amount": 18446744073709551617}`)
	sealed := start("kyc-1", `{"kyc": true}`)
	mctx, stop := context.WithCancel(ctx)
	m := &reactor.Manager{Store: store, Source: src, Exec: bundleExec{}, Replica: browserReplica, Poll: 20 * time.Millisecond, Log: log,
		Actuator: &scripted.Actuator{}, ExecPoll: 20 * time.Millisecond, Bundles: ev}
	done := make(chan error, 1)
	go func() { done <- m.Run(mctx) }()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		a, _ := store.SessionMeta(ctx, plain)
		b, _ := store.SessionMeta(ctx, sealed)
		if a.Status == joinstore.SessionFinished && b.Status == joinstore.SessionFinished {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sessions not finished within 60s: %v %v", a, b)
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// What the replica stored for A1 (process 1 of each session).
	body, err := ev.Body(ctx, testOwner, plain.RootPid, 1)
	if err != nil {
		t.Fatal(err)
	}
	var b evidence.Bundle
	if err := json.Unmarshal([]byte(body), &b); err != nil || b.Step != "A1" || b.Receipt == nil || b.Rule == "" {
		t.Fatalf("A1's bundle: %v %s", err, body)
	}
	sh, err := ev.Head(ctx, testOwner, sealed.RootPid, 1)
	if err != nil || !sh.Encrypted {
		t.Fatalf("the kyc session's A1 bundle: %+v %v", sh, err)
	}

	env := &browserEnv{t: t, store: store}
	env.serve(New(Config{Store: store, Source: src, Bundles: ev, Grants: gs, Log: log}))
	pid := func(r joinstore.Root) string { return strconv.FormatInt(r.RootPid, 10) + ":1" }
	text := func(sel string) string {
		return eval[string](env, `(document.querySelector('`+sel+`') || {}).textContent || ''`)
	}

	env.open("#/session/" + testOwner + "/" + strconv.FormatInt(plain.RootPid, 10) + "/" + pid(plain))
	env.wait("A1's bundle", `!!document.getElementById('bundle-tx') && document.querySelectorAll('#bundle pre.json .j-line').length > 0`)
	rule, tx := text("#bundle-rule"), text("#bundle-tx")
	for _, want := range []string{b.Rule, b.RuleHash, "valid"} {
		if !strings.Contains(rule, want) {
			t.Errorf("the bundle's rule and result %q lack %q", rule, want)
		}
	}
	for _, want := range []string{b.Receipt.TxHash, "Block" + strconv.FormatUint(b.Receipt.Block, 10), "Gas used" + strconv.FormatUint(b.Receipt.GasUsed, 10), "success"} {
		if !strings.Contains(tx, want) {
			t.Errorf("the bundle's transaction %q lacks %q", tx, want)
		}
	}
	if b.Receipt.GasUsed == 0 || b.Receipt.Block == 0 {
		t.Errorf("receipt %+v: want a block and gas", b.Receipt)
	}
	for sec, want := range map[string]string{"payload": "18446744073709551617", "contractSaves": "900000000000000000001", "apiSaves": `"1.08"`, "output": "true"} {
		if got := text(`#bundle [data-bundle="` + sec + `"]`); !strings.Contains(got, want) {
			t.Errorf("the bundle's %s %q lacks %q", sec, got, want)
		}
	}
	readers := text("#bundle-readers")
	if !strings.Contains(readers, testOwner) || !strings.Contains(readers, testAuditor+" read") {
		t.Errorf("readers %q", readers)
	}
	env.shot("bundle")
	env.shotOf("bundle-panel", "#panel")

	// A process that never ran a step has no bundle: the panel says so.
	env.open("#/session/" + testOwner + "/" + strconv.FormatInt(plain.RootPid, 10) + "/" + strconv.FormatInt(plain.RootPid, 10) + ":99")
	if eval[bool](env, `!!document.getElementById('bundle')`) {
		t.Error("an unknown process shows a bundle section")
	}

	env.open("#/session/" + testOwner + "/" + strconv.FormatInt(sealed.RootPid, 10) + "/" + pid(sealed))
	env.wait("A1's sealed bundle", `!!document.getElementById('bundle-sealed')`)
	sealedText := text("#bundle")
	for _, want := range []string{"Encrypted", "no read key", sh.RID.String(), testOwner, testAuditor, "Expires"} {
		if !strings.Contains(sealedText, want) {
			t.Errorf("the sealed bundle %q lacks %q", sealedText, want)
		}
	}
	if eval[bool](env, `!!document.getElementById('bundle-tx') || !!document.querySelector('#bundle pre.json')`) {
		t.Error("the sealed bundle shows a transaction or a section")
	}
	html := eval[string](env, `document.documentElement.outerHTML`)
	for _, bad := range []string{testSecret, "passport", "XGR1."} {
		if strings.Contains(html, bad) {
			t.Errorf("the page holds %q of the sealed bundle", bad)
		}
	}
	env.shot("bundle-sealed")
	env.shotOf("bundle-sealed-panel", "#panel")
	env.onlyHere()
}

// shotOf saves a screenshot of the element sel to $XGR_CONSOLE_SHOTS (when
// set): docs/console-bundle.png is bundle-panel.
func (e *browserEnv) shotOf(name, sel string) {
	e.t.Helper()
	dir := os.Getenv("XGR_CONSOLE_SHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(e.ctx, chromedp.Screenshot(chromedp.CSS(sel)))
	if err != nil {
		e.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		e.t.Fatal(err)
	}
}
