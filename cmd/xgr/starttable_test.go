package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/console"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rpc"
	"github.com/xgr-sidecar/xgr/rpc/client"
	"github.com/xgr-sidecar/xgr/rpc/permit"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/session"
	"github.com/xgr-sidecar/xgr/testenv"
)

// startSurface is how each front door renders a kind of the start use
// case: the table of docs/operating.md "Starting a session".
type startSurface struct {
	kind      session.Kind
	rpcCode   int
	rpcReason string
	http      int
	exit      int
}

var startSurfaces = []startSurface{
	{session.KindPayloadTooLarge, -32602, "invalid-params", 400, 2},
	{session.KindPayloadInvalid, -32602, "invalid-params", 400, 2},
	{session.KindUnknownStep, -32602, "invalid-params", 400, 2},
	{session.KindHashMismatch, -32005, "ostc-hash-mismatch", 409, 1},
	{session.KindRuleUnresolved, -32009, "rule-unresolved", 422, 1},
	{session.KindNotAuthorized, -32008, "runner-not-authorized", 403, 1},
	{session.KindQuota, -32006, "quota-exceeded", 429, 1},
}

func surfaceOf(t *testing.T, k session.Kind) startSurface {
	t.Helper()
	for _, s := range startSurfaces {
		if s.kind == k {
			return s
		}
	}
	t.Fatalf("no surface for kind %s", k)
	return startSurface{}
}

// gatewayPath is the gateway's data.path of a use-case path.
func gatewayPath(p string) string {
	switch {
	case strings.HasPrefix(p, "payload"):
		return p
	case strings.HasPrefix(p, "structure."):
		return "permit.message.ostcId"
	}
	return map[string]string{"step": "stepId", "ostcHash": "permit.message.ostcHash", "owner": "permit.message.from"}[p]
}

// startCase is one start through every front door: the orchestration, the
// step, the payload, a wrong pin; want is the refusal (kind "" : started).
type startCase struct {
	name    string
	ostc    string // good, unbound, foreign or alias
	step    string
	payload string
	badPin  bool
	replay  bool // started twice with one key: the second names the first's session
	quota   bool // under a live sessions quota of 1 (the owner has more)
	kind    session.Kind
	path    string
	says    string // a refusal's message names it
}

// startAnswer is what a front door answered: a refusal rendered on its
// surface (checked in place), or the session started.
type startAnswer struct {
	root int64
	ack  string
}

// Issue 39: one start use case, five front doors, the same answer. The same
// good and bad starts go through the gateway (xgr_validateDataTransfer),
// xgr session start --rpc --config, the console's start form, the trigger
// starter and xgr simulate --rpc --rules --redis, all on one anvil and one
// redis-server, with the runtime's resolver: VSECRET bound to a rule
// contract of key 1 (so ${addr:VSECRET} is judged as that contract, issue
// 38 High 1), NOPE bound to nothing. Each bad start is
// refused with the same kind and JSON path, rendered on each door's surface
// (JSON-RPC code, reason and data.path; HTTP status and problem JSON;
// exit code and "(kind at path)"; the trigger's error and log line), and
// Redis keeps the keys it had. A start whose key started a session before
// names that session and creates nothing (the gateway refuses the permit's
// second use, -32003). A start over the owner's quota (issue 40) is
// refused at every door but simulate, and a trigger's is retried.
// simulate has neither --pin nor --key nor quotas: it runs the file it is
// given, once, on its own store.
func TestStartTableAtEveryFrontDoor(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	reg, _ := testenv.DeployXRC729(t, a, chain.RegistryInit{})
	mine, _ := testenv.DeployXRC137(t, a, `{"payload": {}}`)
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	foreign, _, err := chain.DeployRule(dctx, testenv.Sender(t, a, 1), []byte(`{"payload": {}}`))
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{
		"good":    `{"id": "good", "structure": {"A1": {"rule": "` + mine.Address.Hex() + `"}}}`,
		"unbound": `{"id": "unbound", "structure": {"A1": {"rule": "${addr:NOPE}"}}}`,
		"foreign": `{"id": "foreign", "structure": {"A1": {"rule": "` + foreign.Address.Hex() + `"}}}`,
		// The operator binds VSECRET to the foreign rule: judged as its 0x
		// address (issue 38, High 1).
		"alias": `{"id": "alias", "structure": {"A1": {"rule": "${addr:VSECRET}"}}}`,
	}
	files, orchs := map[string]string{}, map[string]*registry.Orchestration{}
	var all []*registry.Orchestration
	for id, text := range texts {
		files[id] = writeFile(t, id+".json", text)
		o, err := loadOSTC(files[id])
		if err != nil {
			t.Fatal(err)
		}
		orchs[id] = o
		all = append(all, o)
	}
	wrongPin := "0x" + strings.Repeat("ab", 32)
	cfg := writeFile(t, "xgr.yaml", "addresses:\n  VSECRET: \""+foreign.Address.Hex()+"\"\n")
	// simulate reads no addresses: section; its --rules DIR binds the alias.
	simRules := ruleDir(t, map[string]string{"rules.json": `{"${addr:VSECRET}": "` + foreign.Address.Hex() + `"}`})

	srv := testenv.StartRedis(t)
	rdb := srv.Client()
	redisURL := "redis://" + srv.Addr + "/0"
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	keys := func() int64 {
		n, err := rdb.DBSize(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// The runtime's resolver, as xgr run builds it from the same config.
	checker := authority.NewChecker(authority.NewChainReader(a.Backend())).WithRules(&rulesource.Loader{Addresses: rulesource.Addresses{"VSECRET": foreign.Address}})
	source := reactor.NewStaticSource(all...)
	owner := strings.ToLower(a.Address(0).Hex())
	key0 := a.Key(0)

	// The gateway.
	svc, err := rpc.NewService(rpc.Config{Store: store, Source: source, Authority: checker,
		Registries: &indexer.Followed{Registries: []common.Address{reg.Address}},
		ChainID:    a.ChainID(), ControlContract: common.HexToAddress(DefaultPrecompile), Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	gw, _ := rpc.NewServer(svc, rpc.ServerConfig{})
	gwServer := httptest.NewServer(gw)
	defer gwServer.Close()
	gwClient, err := client.Dial(ctx, gwServer.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer gwClient.Close()
	if _, err := gwClient.CoreAddrs(ctx); err != nil {
		t.Fatal(err)
	}

	// The console: it starts a session like a template session, whose
	// orchestration (and pinned hash) it takes.
	ui := console.New(console.Config{Store: store, Redis: rdb, Source: source, Authority: checker, DirectActions: true, ChainID: a.ChainID().Uint64(),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	uiServer := httptest.NewServer(ui.Handler())
	defer uiServer.Close()
	templates := map[string]int64{}
	for _, tmpl := range []struct{ name, ostc, pin string }{
		{"good", "good", orchs["good"].Hash.Hex()}, {"unbound", "unbound", orchs["unbound"].Hash.Hex()},
		{"foreign", "foreign", orchs["foreign"].Hash.Hex()}, {"alias", "alias", orchs["alias"].Hash.Hex()}, {"badpin", "good", wrongPin},
	} {
		res, err := store.Start(ctx, joinstore.StartRequest{Owner: owner, XRC729: reg.Address.Hex(), OstcID: tmpl.ostc, OstcHash: tmpl.pin, StartStep: "A1",
			Payload: []byte(`{}`), Now: time.Now(), Paused: true, IdempotencyKey: "template-" + tmpl.name})
		if err != nil {
			t.Fatal(err)
		}
		templates[tmpl.name] = res.Root.RootPid
	}

	// The trigger starter: its index on database 1, so that database 0
	// holds sessions only.
	idxClient := redis.NewClient(&redis.Options{Addr: srv.Addr, DB: 1})
	defer idxClient.Close()
	idx := indexstore.New(idxClient, a.ChainID().Uint64())
	var triggerLog bytes.Buffer // Step logs before it returns
	starter := &indexer.Starter{Chain: a.Backend(), Index: idx, Store: store, Source: source, Finality: "confirmations", Confirmations: 1,
		Authority: checker, Log: slog.New(slog.NewTextHandler(&triggerLog, nil))}
	a.Mine(t, 40) // every record's block is final
	var block uint64
	blockHash := func(n uint64) common.Hash { return common.BigToHash(new(big.Int).SetUint64(n + 1000)) }
	trigger := func(c startCase, key string) map[string]string {
		t.Helper()
		block++
		pin := ""
		if c.badPin {
			pin = wrongPin
		}
		fields := map[string]string{"status": "pending", "trigger": "table", "block": strconv.FormatUint(block, 10), "owner": owner,
			"registry": reg.Address.Hex(), "ostcId": c.ostc, "pin": pin, "start": c.step, "payload": c.payload}
		err := idx.Commit(ctx, blockHash(block-1), block == 1, []indexstore.Block{{Number: block, Hash: blockHash(block), Parent: blockHash(block - 1)}}, nil,
			[]indexstore.Change{{Block: block, Key: indexstore.StartKey(key), Fields: fields, Pending: true}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := starter.Step(ctx); err != nil {
			t.Fatal(err)
		}
		rec, err := idx.Entry(ctx, indexstore.StartKey(key))
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}

	type door struct {
		name string
		// start runs c with key (a replay: twice, calling mark in between),
		// checks a refusal's surface and returns what was started.
		start func(t *testing.T, c startCase, key string, mark func()) (startAnswer, bool)
	}
	payloadFile := func(c startCase) string { return writeFile(t, "payload.json", c.payload) }
	refusedCLI := func(t *testing.T, c startCase, out string, code int) {
		t.Helper()
		s := surfaceOf(t, c.kind)
		if code != s.exit || !strings.Contains(out, fmt.Sprintf("(%s at %s)", c.kind, c.path)) || !strings.Contains(out, c.says) {
			t.Errorf("exit %d, want %d and (%s at %s):\n%.600s", code, s.exit, c.kind, c.path, out)
		}
	}
	doors := []door{
		{"gateway", func(t *testing.T, c startCase, key string, mark func()) (startAnswer, bool) {
			o := orchs[c.ostc]
			hash := o.Hash
			if c.badPin {
				hash = common.HexToHash(wrongPin)
			}
			env := signedStart(t, gwClient, key0, a.ChainID(), reg.Address, o.ID, hash, c.step, json.RawMessage(c.payload))
			res, err := gwClient.StartWith(ctx, env, reg.Address, c.step, json.RawMessage(c.payload))
			if c.replay {
				if err != nil {
					t.Fatalf("first start: %v", err)
				}
				mark()
				_, err = gwClient.StartWith(ctx, env, reg.Address, c.step, json.RawMessage(c.payload))
				code, data := rpcError(t, err)
				if code != rpc.CodeReplay || data["reason"] != "permit-reused" || data["ack"] != "already_queued" || data["processId"] != res.ProcessID {
					t.Errorf("a permit used twice: %d %v, want -32003 permit-reused naming %s", code, data, res.ProcessID)
				}
				root, _ := strconv.ParseInt(res.SessionID, 10, 64)
				return startAnswer{root: root, ack: "already_queued"}, true
			}
			if c.kind == "" {
				if err != nil {
					t.Fatalf("start: %v", err)
				}
				root, _ := strconv.ParseInt(res.SessionID, 10, 64)
				return startAnswer{root: root, ack: res.Ack}, true
			}
			s := surfaceOf(t, c.kind)
			code, data := rpcError(t, err)
			if code != s.rpcCode || data["reason"] != s.rpcReason || data["path"] != gatewayPath(c.path) || !strings.Contains(err.Error(), c.says) {
				t.Errorf("%d %v, want %d %s at %s", code, data, s.rpcCode, s.rpcReason, gatewayPath(c.path))
			}
			return startAnswer{}, false
		}},
		{"session start", func(t *testing.T, c startCase, key string, mark func()) (startAnswer, bool) {
			args := []string{"session", "start", files[c.ostc], "--redis", redisURL, "--owner", owner, "--xrc729", reg.Address.Hex(),
				"--rpc", a.URL, "--config", cfg, "--step", c.step, "--payload", payloadFile(c), "--key", key, "--json"}
			if c.quota {
				args = append(args, "--quota-live-sessions", "1")
			}
			if c.badPin {
				args = append(args, "--pin", wrongPin)
			}
			out, code := run(t, args...)
			if c.replay {
				if code != 0 {
					t.Fatalf("first start: %d %s", code, out)
				}
				mark()
				out, code = run(t, args...)
			}
			if c.kind != "" {
				refusedCLI(t, c, out, code)
				return startAnswer{}, false
			}
			var res struct {
				Ack     string `json:"ack"`
				RootPid int64  `json:"rootPid"`
			}
			if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil {
				t.Fatalf("start: %d %v %s", code, err, out)
			}
			return startAnswer{root: res.RootPid, ack: res.Ack}, true
		}},
		{"console", func(t *testing.T, c startCase, key string, mark func()) (startAnswer, bool) {
			tmpl := templates[c.ostc]
			if c.badPin {
				tmpl = templates["badpin"]
			}
			post := func() (int, map[string]any) {
				body := fmt.Sprintf(`{"owner":%q,"rootPid":%d,"step":%q,"key":%q,"payload":%s}`, owner, tmpl, c.step, key, c.payload)
				req, _ := http.NewRequest(http.MethodPost, uiServer.URL+"/ui/api/start", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set(console.ActionHeader, "1")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var out map[string]any
				if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
					t.Fatal(err)
				}
				return resp.StatusCode, out
			}
			status, out := post()
			if c.replay {
				if status != 200 {
					t.Fatalf("first start: %d %v", status, out)
				}
				mark()
				status, out = post()
			}
			if c.kind != "" {
				s := surfaceOf(t, c.kind)
				if status != s.http || out["kind"] != string(c.kind) || out["path"] != c.path || out["allowed"] == "" || !strings.Contains(fmt.Sprint(out["error"]), c.says) {
					t.Errorf("%d %v, want %d %s at %s", status, out, s.http, c.kind, c.path)
				}
				return startAnswer{}, false
			}
			root, _ := out["rootPid"].(float64)
			if status != 200 {
				t.Fatalf("start: %d %v", status, out)
			}
			return startAnswer{root: int64(root), ack: fmt.Sprint(out["ack"])}, true
		}},
		{"trigger", func(t *testing.T, c startCase, key string, mark func()) (startAnswer, bool) {
			triggerLog.Reset()
			rec := trigger(c, key)
			if c.replay {
				if rec["status"] != "started" {
					t.Fatalf("first start: %v", rec)
				}
				mark()
				rec = trigger(c, key)
			}
			if c.quota {
				// Over a quota the trigger is retried: the owner's sessions
				// finish, its minute passes.
				line := triggerLog.String()
				if rec["status"] != "pending" || !strings.Contains(rec["lastError"], c.says) || !strings.Contains(line, "kind="+string(c.kind)) {
					t.Errorf("record %v, log %.300s; want pending with lastError %q", rec, line, c.says)
				}
				return startAnswer{}, false
			}
			if c.kind != "" {
				prefix := fmt.Sprintf("%s at %s: ", c.kind, c.path)
				line := triggerLog.String()
				if rec["status"] != "failed" || !strings.HasPrefix(rec["error"], prefix) || !strings.Contains(rec["error"], c.says) ||
					!strings.Contains(line, "kind="+string(c.kind)) || !strings.Contains(line, "path="+c.path) {
					t.Errorf("record status %q error %.300q, log %.300s; want failed, %q", rec["status"], rec["error"], line, prefix)
				}
				return startAnswer{}, false
			}
			root, _ := strconv.ParseInt(rec["rootPid"], 10, 64)
			if rec["status"] != "started" {
				t.Fatalf("start: %v\n%s", rec, triggerLog.String())
			}
			return startAnswer{root: root, ack: rec["ack"]}, true
		}},
		{"simulate", func(t *testing.T, c startCase, key string, mark func()) (startAnswer, bool) {
			if c.badPin || c.replay || c.quota {
				return startAnswer{}, false // simulate has no --pin, no --key and no quotas: it runs on its own store
			}
			out, code := run(t, "simulate", files[c.ostc], "--rpc", a.URL, "--rules", simRules, "--owner", owner, "--redis", redisURL,
				"--step", c.step, "--payload", payloadFile(c), "--deterministic")
			if c.kind != "" {
				refusedCLI(t, c, out, code)
				return startAnswer{}, false
			}
			if code != 0 || !strings.Contains(out, "outcome: ok") {
				t.Fatalf("simulate: %d\n%s", code, out)
			}
			return startAnswer{ack: "queued"}, true // and deleted at the end (--redis)
		}},
	}

	huge := `{"big": "` + strings.Repeat("x", 300<<10) + `"}`
	cases := []startCase{
		{name: "good start", ostc: "good", step: "A1", payload: `{"n": 18446744073709551617}`},
		{name: "__wakeUp not a list", ostc: "good", step: "A1", payload: `{"__wakeUp":"not-a-list"}`, kind: session.KindPayloadInvalid, path: "payload.__wakeUp",
			says: "payload.__wakeUp: want an object"},
		{name: "payload over the cap", ostc: "good", step: "A1", payload: huge, kind: session.KindPayloadTooLarge, path: "payload",
			says: "bytes, at most 262144 are allowed (XGR_MAX_PAYLOAD)"}, // the gateway's client sends it compacted
		{name: "unknown step", ostc: "good", step: "Z9", payload: `{}`, kind: session.KindUnknownStep, path: "step", says: `"Z9" is not a step of "good"`},
		{name: "hash mismatch", ostc: "good", step: "A1", payload: `{}`, badPin: true, kind: session.KindHashMismatch, path: "ostcHash",
			says: "orchestration hash mismatch: the session pins " + wrongPin},
		{name: "rule reference that does not resolve", ostc: "unbound", step: "A1", payload: `{}`, kind: session.KindRuleUnresolved, path: "structure.A1.rule",
			says: `step A1: rule reference "${addr:NOPE}" does not resolve`},
		{name: "unauthorized rule", ostc: "foreign", step: "A1", payload: `{}`, kind: session.KindNotAuthorized, path: "owner",
			says: "runner " + a.Address(0).Hex() + " is not authorized on XRC-137 rule contract " + foreign.Address.Hex()},
		{name: "alias of an unauthorized rule", ostc: "alias", step: "A1", payload: `{}`, kind: session.KindNotAuthorized, path: "owner",
			says: "runner " + a.Address(0).Hex() + " is not authorized on XRC-137 rule contract " + foreign.Address.Hex()},
		{name: "replayed key", ostc: "good", step: "A1", payload: `{"n": 2}`, replay: true},
		// Last: the trigger's refused start stays pending and is retried
		// by every later step of the starter.
		{name: "over the owner's live sessions quota", ostc: "good", step: "A1", payload: `{}`, quota: true, kind: session.KindQuota, path: "owner",
			says: "its live-sessions quota is 1"},
	}
	for i, c := range cases {
		for _, d := range doors {
			t.Run(c.name+"/"+d.name, func(t *testing.T) {
				key := fmt.Sprintf("table-%d-%s", i, strings.ReplaceAll(d.name, " ", "-"))
				if c.quota {
					store.SetQuotas(joinstore.Quotas{Default: joinstore.Quota{LiveSessions: 1}})
					defer store.SetQuotas(joinstore.Quotas{})
				}
				before := keys()
				got, ok := d.start(t, c, key, func() { before = keys() })
				after := keys()
				switch {
				case c.kind != "" && after != before:
					t.Errorf("a refused start changed Redis: %d keys, before %d", after, before)
				case c.replay && ok && after != before:
					t.Errorf("a replayed start changed Redis: %d keys, before %d", after, before)
				case c.kind == "" && !c.replay && d.name != "simulate" && (!ok || got.ack != "queued" || got.root <= 0):
					t.Errorf("want a session queued, got %+v", got)
				case c.replay && d.name != "simulate" && (!ok || got.ack != "already_queued" || got.root <= 0):
					t.Errorf("a replay: %+v, want already_queued naming the first start's session", got)
				}
				if c.replay && ok {
					if _, err := store.SessionMeta(ctx, joinstore.Root{Owner: owner, RootPid: got.root}); err != nil {
						t.Errorf("the replayed session %d: %v", got.root, err)
					}
					if next, _ := store.NextRootPid(ctx, owner); next != got.root+1 {
						t.Errorf("a replay took another root pid: next %d after session %d", next, got.root)
					}
				}
			})
		}
	}
	if n, _ := rdb.Keys(ctx, "xgr:{"+owner+":*").Result(); len(n) == 0 {
		t.Error("no session keys at all: the good starts created nothing")
	}
}

// Every kind of the start use case has an exit status.
func TestStartExitCoversEveryKind(t *testing.T) {
	for _, k := range session.Kinds {
		if c := startExit[k]; c != exitFailed && c != exitUsage {
			t.Errorf("kind %s: exit %d", k, c)
		}
	}
}

// signedStart signs a SessionPermitV2 of key for its next root id, bound to
// the registry, step and payload (as client.Start does, kept to be used
// twice).
func signedStart(t *testing.T, c *client.Client, key *ecdsa.PrivateKey, chainID *big.Int, reg common.Address, ostcID string, hash common.Hash, step string, payload json.RawMessage) json.RawMessage {
	t.Helper()
	from := crypto.PubkeyToAddress(key.PublicKey)
	next, err := c.NextProcessID(context.Background(), from)
	if err != nil {
		t.Fatal(err)
	}
	m := permit.SessionMsg{From: from, Registry: reg, OstcID: ostcID, OstcHash: hash, StartStep: step,
		SessionID: big.NewInt(next), MaxTotalGas: new(big.Int), Expiry: big.NewInt(time.Now().Add(time.Minute).Unix())}
	if m.PayloadHash, err = permit.PayloadHash(payload); err != nil {
		t.Fatal(err)
	}
	env, err := permit.SignSessionV2(key, chainID, m)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// rpcError is a JSON-RPC error's code and data.
func rpcError(t *testing.T, err error) (int, map[string]any) {
	t.Helper()
	var re gethrpc.Error
	var de gethrpc.DataError
	if !errors.As(err, &re) || !errors.As(err, &de) {
		t.Fatalf("want a JSON-RPC error, got %v", err)
	}
	data, _ := de.ErrorData().(map[string]any)
	return re.ErrorCode(), data
}
