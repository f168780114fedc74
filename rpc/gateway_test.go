package rpc_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/internal/httpserve"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rpc"
	"github.com/xgr-sidecar/xgr/rpc/client"
	"github.com/xgr-sidecar/xgr/rpc/permit"
	"github.com/xgr-sidecar/xgr/testenv"
)

var (
	chainID = big.NewInt(31337)
	precomp = common.HexToAddress("0x0000000000000000000000000000000000001729")
	xrc729  = common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
)

const flowText = `{"id": "approval", "structure": {
  "A1": {"rule": "x", "onValid": {"spawns": ["W1"]}},
  "W1": {"rule": "x"}}}`

// owners is a fixed owner table (no contract has an executor list), with
// an optional gate that holds calls: the gateway's authority.Reader.
type owners struct {
	m       map[common.Address]common.Address
	gate    chan struct{}
	entered atomic.Int32
	calls   atomic.Int32
}

func (o *owners) Facts(ctx context.Context, contracts []common.Address) ([]authority.Facts, error) {
	o.calls.Add(1)
	if o.gate != nil {
		o.entered.Add(1)
		<-o.gate
	}
	out := make([]authority.Facts, len(contracts))
	for i, c := range contracts {
		a, ok := o.m[c]
		if !ok {
			return nil, errors.New("registry not known")
		}
		out[i] = authority.Facts{Contract: c, Owner: a}
	}
	return out, nil
}

type gateway struct {
	t      testing.TB
	rdb    redis.UniversalClient
	store  *joinstore.Store
	orch   *registry.Orchestration
	owners *owners
	url    string
	client *client.Client
	keys   []*ecdsa.PrivateKey
}

func newGateway(t testing.TB, cfg rpc.ServerConfig) *gateway {
	t.Helper()
	return newGatewayServed(t, cfg, nil, nil)
}

// newGatewayOn is newGateway served by an httpserve listener with hc's
// bounds (nil: an httptest server).
func newGatewayOn(t testing.TB, cfg rpc.ServerConfig, hc *httpserve.Config) *gateway {
	t.Helper()
	return newGatewayServed(t, cfg, hc, nil)
}

// newGatewayWith is newGateway with the service's configuration changed by
// mutate first (when not nil).
func newGatewayWith(t testing.TB, cfg rpc.ServerConfig, mutate func(*rpc.Config)) *gateway {
	t.Helper()
	return newGatewayServed(t, cfg, nil, mutate)
}

// newGatewayServed is newGateway with both: hc's listener bounds and the
// service's configuration changed by mutate (each when not nil).
func newGatewayServed(t testing.TB, cfg rpc.ServerConfig, hc *httpserve.Config, mutate func(*rpc.Config)) *gateway {
	t.Helper()
	o, err := registry_Parse(flowText)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := testenv.DevKeys(3)
	if err != nil {
		t.Fatal(err)
	}
	rdb := testenv.StartRedis(t).Client()
	g := &gateway{t: t, rdb: rdb, store: joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), orch: o, keys: keys,
		owners: &owners{m: map[common.Address]common.Address{xrc729: addr(keys[0])}}}
	sc := rpc.Config{Store: g.store, Source: reactor.NewStaticSource(o), Authority: authority.NewChecker(g.owners).WithRules(scriptedRules),
		Registries: &indexer.Followed{Registries: []common.Address{xrc729}}, ChainID: chainID, ControlContract: precomp, Skew: time.Second, MaxInFlight: 2}
	if mutate != nil {
		mutate(&sc)
	}
	svc, err := rpc.NewService(sc)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := rpc.NewServer(svc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if hc == nil {
		hs := httptest.NewServer(srv)
		t.Cleanup(func() { hs.Close(); srv.Stop() })
		g.url = hs.URL
	} else {
		hs, err := httpserve.Listen("127.0.0.1:0", srv, *hc)
		if err != nil {
			t.Fatal(err)
		}
		go hs.Serve()
		t.Cleanup(func() { hs.Close(); srv.Stop() })
		g.url = "http://" + hs.Addr()
	}
	if g.client, err = client.Dial(context.Background(), g.url); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.client.Close)
	return g
}

func registry_Parse(text string) (*registry.Orchestration, error) {
	return registry.Parse([]byte(text))
}

func addr(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }

func lower(a common.Address) string { return strings.ToLower(a.Hex()) }

// refused asserts a JSON-RPC error with the code and data.reason.
func refused(t *testing.T, err error, code int, reason string) {
	t.Helper()
	var re gethrpc.Error
	var de gethrpc.DataError
	if !errors.As(err, &re) || !errors.As(err, &de) {
		t.Fatalf("want a JSON-RPC error %d/%s, got %v", code, reason, err)
	}
	data, _ := de.ErrorData().(map[string]any)
	if re.ErrorCode() != code || data["reason"] != reason {
		t.Fatalf("want %d/%s, got %d/%v: %v", code, reason, re.ErrorCode(), data["reason"], err)
	}
}

func (g *gateway) keys0() int64 {
	n, _ := g.rdb.DBSize(context.Background()).Result()
	return n
}

func (g *gateway) sessionPermit(key *ecdsa.PrivateKey, session int64, mutate func(*permit.SessionMsg)) json.RawMessage {
	g.t.Helper()
	m := permit.SessionMsg{From: addr(key), OstcID: g.orch.ID, OstcHash: g.orch.Hash, SessionID: big.NewInt(session),
		MaxTotalGas: new(big.Int), Expiry: big.NewInt(time.Now().Add(time.Minute).Unix())}
	if mutate != nil {
		mutate(&m)
	}
	env, err := permit.SignSession(key, chainID, m)
	if err != nil {
		g.t.Fatal(err)
	}
	return env
}

func TestStartRefusalsWriteNothing(t *testing.T) {
	g := newGateway(t, rpc.ServerConfig{})
	ctx := context.Background()
	owner := g.keys[0]
	start := func(p json.RawMessage) error {
		_, err := g.client.StartWith(ctx, p, xrc729, "A1", json.RawMessage(`{"n": 18446744073709551615}`))
		return err
	}
	tamper := func(p json.RawMessage, from, to string) json.RawMessage {
		out := bytes.Replace(p, []byte(from), []byte(to), 1)
		if bytes.Equal(out, p) {
			t.Fatalf("%q not in the permit", from)
		}
		return out
	}
	good := g.sessionPermit(owner, 1, nil)
	wrongChain, err := permit.SignSession(owner, big.NewInt(1), permit.SessionMsg{From: addr(owner), OstcID: g.orch.ID, OstcHash: g.orch.Hash,
		SessionID: big.NewInt(1), MaxTotalGas: new(big.Int), Expiry: big.NewInt(time.Now().Add(time.Minute).Unix())})
	if err != nil {
		t.Fatal(err)
	}
	sig := func(p json.RawMessage) string {
		var e struct{ Signature string }
		json.Unmarshal(p, &e)
		return e.Signature
	}
	for name, tc := range map[string]struct {
		permit json.RawMessage
		code   int
		reason string
	}{
		"changed field":         {tamper(good, `"ostcId":"approval"`, `"ostcId":"approvaL"`), rpc.CodePermit, "signer-mismatch"},
		"wrong chain id":        {wrongChain, rpc.CodePermit, "chain-id-mismatch"},
		"expired":               {g.sessionPermit(owner, 1, func(m *permit.SessionMsg) { m.Expiry = big.NewInt(time.Now().Add(-time.Hour).Unix()) }), rpc.CodePermit, "expired"},
		"non-owner signer":      {g.sessionPermit(g.keys[1], 1, nil), rpc.CodeRunnerNotAuthorized, "runner-not-authorized"},
		"malformed signature":   {tamper(good, sig(good), sig(good)[:100]), rpc.CodePermit, "bad-signature"},
		"stale session id":      {g.sessionPermit(owner, 7, nil), rpc.CodeConflict, "stale-session-id"},
		"other hash":            {g.sessionPermit(owner, 1, func(m *permit.SessionMsg) { m.OstcHash = common.Hash{1} }), rpc.CodeConflict, "ostc-hash-mismatch"},
		"unknown orchestration": {g.sessionPermit(owner, 1, func(m *permit.SessionMsg) { m.OstcID = "nope" }), rpc.CodeNotFound, "unknown-orchestration"},
		"missing permit":        {nil, rpc.CodeInvalidParams, "invalid-params"},
	} {
		t.Run(name, func(t *testing.T) {
			before := g.keys0()
			refused(t, start(tc.permit), tc.code, tc.reason)
			if after := g.keys0(); after != before {
				t.Fatalf("a refused start changed Redis: %d keys, before %d", after, before)
			}
		})
	}

	res, err := g.client.StartWith(ctx, good, xrc729, "A1", json.RawMessage(`{"n": 18446744073709551615}`))
	if err != nil || res.ProcessID != "1:1" || res.Ack != "queued" || res.Owner != lower(addr(owner)) {
		t.Fatalf("start: %+v %v", res, err)
	}
	p, err := g.store.Process(ctx, joinstore.Root{Owner: lower(addr(owner)), RootPid: 1}, 1)
	if err != nil || string(p.ResumePlain) != `{"n":18446744073709551615}` {
		t.Fatalf("the started process: %+v %v", p, err)
	}
	before := g.keys0()
	err = start(good)
	refused(t, err, rpc.CodeReplay, "permit-reused")
	if !strings.Contains(err.Error(), "already started session 1") {
		t.Errorf("reuse message: %v", err)
	}
	if g.keys0() != before {
		t.Fatal("a reused permit wrote to Redis")
	}
	// The client's own path: next id, permit, start.
	res, err = g.client.Start(ctx, owner, xrc729, g.orch.ID, g.orch.Hash, "A1", nil)
	if err != nil || res.SessionID != "2" {
		t.Fatalf("client start: %+v %v", res, err)
	}
	// A payload with a malformed allow list is refused before anything.
	_, err = g.client.StartWith(ctx, g.sessionPermit(owner, 3, nil), xrc729, "A1", json.RawMessage(`{"__wakeUp": {"steps": {"A1": {"rpc": ["*"]}}}}`))
	refused(t, err, rpc.CodeInvalidParams, "invalid-params")
}

// waitingSession starts a session and parks its W1 step (as a replica would
// after A1), then returns the root.
func (g *gateway) waitingSession(key *ecdsa.PrivateKey, payload string) joinstore.Root {
	g.t.Helper()
	return g.waitingSessionWith(key, payload, false)
}

// waitingSessionWith is waitingSession, started with a SessionPermitV2
// when bound.
func (g *gateway) waitingSessionWith(key *ecdsa.PrivateKey, payload string, bound bool) joinstore.Root {
	g.t.Helper()
	ctx := context.Background()
	next, err := g.client.NextProcessID(ctx, addr(key))
	if err != nil {
		g.t.Fatal(err)
	}
	p := g.sessionPermit(key, next, nil)
	if bound {
		p = g.sessionPermitV2(key, next, xrc729, "A1", payload)
	}
	r, err := g.client.StartWith(ctx, p, xrc729, "A1", json.RawMessage(payload))
	if err != nil {
		g.t.Fatal(err)
	}
	root := joinstore.Root{Owner: r.Owner, RootPid: next}
	runner := &reactor.Runner{Store: g.store, Orch: g.orch, Worker: "w", Now: time.Now, Advance: func(time.Time) {}, MaxSteps: 1,
		Exec: waitExec{}}
	runner.Run(ctx, root)
	return root
}

// waitExec: A1 parks its child for an hour.
type waitExec struct{}

func (waitExec) Execute(_ context.Context, e reactor.Execution) (reactor.Result, error) {
	return reactor.Result{Valid: true, Wait: time.Hour}, nil
}

func TestControlWakeAndList(t *testing.T) {
	g := newGateway(t, rpc.ServerConfig{})
	ctx := context.Background()
	runnerKey, delegate, stranger := g.keys[0], g.keys[1], g.keys[2]
	allow := `{"x": 1, "__wakeUp": {"steps": {"W1": {"rpc": ["` + lower(addr(delegate)) + `"]}}}}`
	root := g.waitingSession(runnerKey, allow)
	runner := addr(runnerKey)

	// Allow mode: the delegate sees W1, the stranger sees nothing.
	list, err := g.client.ListAllowed(ctx, delegate, runner, root.RootPid, "")
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].Step != "W1" || list.Sessions[0].Status != "waiting" || list.Sessions[0].ParentPid != "" {
		t.Fatalf("allow mode, delegate: %+v %v", list, err)
	}
	list, err = g.client.ListAllowed(ctx, stranger, runner, root.RootPid, "")
	if err != nil || len(list.Sessions) != 0 {
		t.Fatalf("allow mode, stranger: %+v %v", list, err)
	}
	// Owner mode lists both processes.
	list, err = g.client.List(ctx, runnerKey, rpc.ListRequest{})
	if err != nil || len(list.Sessions) != 2 || list.Sessions[1].Pid != root.Pid(2) || list.Sessions[1].ParentPid != root.Pid(1) {
		t.Fatalf("owner mode: %+v %v", list, err)
	}
	if list.Sessions[0].Outcome != "" {
		t.Errorf("a live session's rows carry outcome %q", list.Sessions[0].Outcome)
	}

	// A stranger's delegated step-mode wake is refused; the delegate's works.
	_, err = g.client.Wake(ctx, stranger, runner, root.RootPid, "", "W1", nil)
	refused(t, err, rpc.CodeUnauthorized, "not-allowed")
	// A delegate cannot use pid mode.
	_, err = g.client.Wake(ctx, delegate, runner, root.RootPid, root.Pid(2), "", nil)
	refused(t, err, rpc.CodeUnauthorized, "not-runner")
	// Pid mode tells a missing process of the session from a missing session.
	_, err = g.client.Wake(ctx, runnerKey, runner, root.RootPid, root.Pid(9), "", nil)
	refused(t, err, rpc.CodeNotFound, "no-waiting-process")
	_, err = g.client.Wake(ctx, runnerKey, runner, 99, "99:1", "", nil)
	refused(t, err, rpc.CodeNotFound, "unknown-session")
	p, _ := g.client.ControlPermit(ctx, delegate, runner, root.RootPid, permit.ActionWake, "W1", true)
	var out rpc.WakeResult
	req := rpc.WakeRequest{Payload: json.RawMessage(`{"ok": 123456789012345678901234567890, "__wakeUp": "x"}`), Permit: p}
	if err := g.client.Raw(ctx, &out, "xgr_wakeUpProcess", req); err != nil || out.Woken != 1 || out.Mode != "step" {
		t.Fatalf("delegated wake: %+v %v", out, err)
	}
	proc, _ := g.store.Process(ctx, root, 2)
	plain := string(proc.ResumePlain)
	if !strings.Contains(plain, `"ok":123456789012345678901234567890`) || strings.Contains(plain, `"x"}`) && !strings.Contains(plain, `"rpc"`) {
		t.Fatalf("merged payload: %s", plain)
	}
	err = g.client.Raw(ctx, &out, "xgr_wakeUpProcess", req)
	refused(t, err, rpc.CodeReplay, "permit-reused")

	// tri-state
	if done, err := g.client.StepExecuted(ctx, runner, root.RootPid, 1); err != nil || done == nil || !*done {
		t.Errorf("stepExecuted 1: %v %v", done, err)
	}
	if done, err := g.client.StepExecuted(ctx, runner, root.RootPid, 2); err != nil || done == nil || *done {
		t.Errorf("stepExecuted 2: %v %v", done, err)
	}
	if done, err := g.client.StepExecuted(ctx, runner, root.RootPid, 9); err != nil || done != nil {
		t.Errorf("stepExecuted 9: %v %v", done, err)
	}
	if alive, err := g.client.SessionAlive(ctx, runner, root.RootPid); err != nil || !alive {
		t.Errorf("alive: %v %v", alive, err)
	}

	// Kill: only the runner.
	_, err = g.client.Kill(ctx, stranger, root.RootPid)
	refused(t, err, rpc.CodeNotFound, "unknown-session") // the stranger's own session does not exist
	kp, _ := g.client.ControlPermit(ctx, delegate, runner, root.RootPid, permit.ActionKill, "", true)
	var kr rpc.ControlResult
	refused(t, g.client.Raw(ctx, &kr, "xgr_control", rpc.ControlRequest{Permit: kp}), rpc.CodeUnauthorized, "not-runner")
	res, err := g.client.Kill(ctx, runnerKey, root.RootPid)
	if err != nil || !res.OK || res.Affected != 1 || res.Status != "killed" {
		t.Fatalf("kill: %+v %v", res, err)
	}
	if alive, _ := g.client.SessionAlive(ctx, runner, root.RootPid); alive {
		t.Error("alive after kill")
	}
	// Kill is idempotent: a second kill (nothing live) succeeds and affects nothing.
	before := g.keys0()
	if res, err = g.client.Kill(ctx, runnerKey, root.RootPid); err != nil || !res.OK || res.Affected != 0 || res.Status != "killed" {
		t.Fatalf("second kill: %+v %v", res, err)
	}
	if g.keys0() != before {
		t.Error("a second kill wrote to Redis")
	}
	// The killed session's rows carry its outcome.
	if list, err = g.client.List(ctx, runnerKey, rpc.ListRequest{}); err != nil || len(list.Sessions) != 2 || list.Sessions[0].Outcome != "killed" || list.Sessions[1].Outcome != "killed" {
		t.Fatalf("owner mode after the kill: %+v %v", list, err)
	}
	// A wake permit used where a kill is asked for.
	wp, _ := g.client.ControlPermit(ctx, runnerKey, runner, root.RootPid, permit.ActionWake, "", false)
	refused(t, g.client.Raw(ctx, &kr, "xgr_control", rpc.ControlRequest{Permit: wp}), rpc.CodeUnauthorized, "action-not-supported")
}

// The HTTP surface: batches, CORS for allowed origins only, the body limit,
// websockets and the per-connection in-flight cap.
func TestTransport(t *testing.T) {
	g := newGateway(t, rpc.ServerConfig{CORSOrigins: []string{"https://ops.example"}, MaxBodyBytes: 4096})
	post := func(origin, body string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodPost, g.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	resp, body := post("https://ops.example", `[{"jsonrpc":"2.0","id":1,"method":"xgr_getCoreAddrs"},{"jsonrpc":"2.0","id":2,"method":"xgr_sessionAlive","params":["0x0000000000000000000000000000000000000001","1"]}]`)
	if !strings.Contains(body, `"chainId":"0x7a69"`) || !strings.Contains(body, `"id":2,"result":false`) {
		t.Fatalf("batch: %s", body)
	}
	if resp.Header.Get("Access-Control-Allow-Origin") != "https://ops.example" {
		t.Errorf("CORS for an allowed origin: %v", resp.Header)
	}
	if resp, _ = post("https://evil.example", `{"jsonrpc":"2.0","id":1,"method":"xgr_getCoreAddrs"}`); resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("CORS for another origin: %v", resp.Header)
	}
	if resp, _ = post("", `{"jsonrpc":"2.0","id":1,"method":"xgr_getCoreAddrs","params":["`+strings.Repeat("x", 5000)+`"]}`); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over the limit: %d", resp.StatusCode)
	}
	_, body = post("", `{"jsonrpc":"2.0","id":1,"method":"xgr_stepExecuted","params":["0xnope","1",1]}`)
	if !strings.Contains(body, `"code":-32602`) || !strings.Contains(body, "params[0]") {
		t.Errorf("a bad owner: %s", body)
	}

	// Websocket: two calls held by the owner lookup fill the connection's
	// cap; a third is refused at once.
	ws, err := gethrpc.Dial("ws" + strings.TrimPrefix(g.url, "http"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var core rpc.CoreAddrs
	if err := ws.Call(&core, "xgr_getCoreAddrs"); err != nil || core.Precompile != lower(precomp) {
		t.Fatalf("websocket: %+v %v", core, err)
	}
	g.owners.gate = make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out any
			if err := ws.Call(&out, "xgr_validateDataTransfer", rpc.DataTransferRequest{StepID: "A1", Orchestration: xrc729.Hex(), Permit: g.sessionPermit(g.keys[0], 1, nil)}); err != nil {
				t.Logf("held call: %v", err)
			}
		}()
	}
	// Wait until both are held inside the gateway, then a third call on
	// the same connection is over the cap.
	for deadline := time.Now().Add(10 * time.Second); g.owners.entered.Load() < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the held calls never reached the gateway")
		}
	}
	var out any
	refused(t, ws.Call(&out, "xgr_getNextProcessId", rpc.NextProcessIDRequest{From: addr(g.keys[0]).Hex()}), rpc.CodeLimit, "too-many-requests")
	close(g.owners.gate)
	wg.Wait()
}

// A permit's maxTotalGas is kept in the session's meta: the gas budget of
// its executions (a budget beyond 2^64-1 is the largest one).
func TestStartKeepsTheGasBudget(t *testing.T) {
	g := newGateway(t, rpc.ServerConfig{})
	ctx := context.Background()
	owner := g.keys[0]
	huge, _ := new(big.Int).SetString("100000000000000000000000", 10)
	for i, tc := range []struct {
		gas  *big.Int
		want string
	}{{big.NewInt(250000), "250000"}, {new(big.Int), "0"}, {huge, "18446744073709551615"}} {
		session := int64(i + 1)
		p := g.sessionPermit(owner, session, func(m *permit.SessionMsg) { m.MaxTotalGas = tc.gas })
		if _, err := g.client.StartWith(ctx, p, xrc729, "A1", nil); err != nil {
			t.Fatal(err)
		}
		meta, err := g.store.SessionMeta(ctx, joinstore.Root{Owner: lower(addr(owner)), RootPid: session})
		if err != nil || meta.MaxTotalGas != tc.want {
			t.Fatalf("maxTotalGas %s: meta %q, want %q (%v)", tc.gas, meta.MaxTotalGas, tc.want, err)
		}
	}
}
