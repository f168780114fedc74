package e2e

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/rpc/client"
	"github.com/xgr-sidecar/xgr/rpc/permit"
	"github.com/xgr-sidecar/xgr/testenv"
)

// This file drives the xgr_* JSON-RPC gateway of the real binary the way a
// dApp does: plain JSON-RPC over HTTP with permits signed by ethers.js v6
// (rpc/permit/testdata/sign.mjs). Helpers shared with gateway_dev_test.go.

// rpcFailure is a JSON-RPC error object as the gateway sends it.
type rpcFailure struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    struct {
		Reason string `json:"reason"`
		Path   string `json:"path"`
	} `json:"data"`
}

func (f *rpcFailure) String() string {
	if f == nil {
		return "no error"
	}
	return fmt.Sprintf("%d/%s (%s)", f.Code, f.Data.Reason, f.Message)
}

// rpcCall posts one JSON-RPC 2.0 request to url with net/http and returns
// the result, or the error object the gateway answered with.
func rpcCall(t *testing.T, url, method string, params ...any) (json.RawMessage, *rpcFailure) {
	t.Helper()
	if params == nil {
		params = []any{}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("%s to %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcFailure     `json:"error"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(raw, &out) != nil {
		t.Fatalf("%s to %s: HTTP %d: %s", method, url, resp.StatusCode, raw)
	}
	return out.Result, out.Error
}

// rpcOK is rpcCall for a call that must succeed; the result is decoded
// into v (when not nil).
func rpcOK(t *testing.T, url string, v any, method string, params ...any) json.RawMessage {
	t.Helper()
	res, fail := rpcCall(t, url, method, params...)
	if fail != nil {
		t.Fatalf("%s refused: %s", method, fail)
	}
	if v != nil {
		if err := json.Unmarshal(res, v); err != nil {
			t.Fatalf("%s: result %s: %v", method, res, err)
		}
	}
	return res
}

// rpcRefused is rpcCall for a call that must be refused with code and
// data.reason.
func rpcRefused(t *testing.T, url string, code int, reason, method string, params ...any) {
	t.Helper()
	res, fail := rpcCall(t, url, method, params...)
	if fail == nil {
		t.Fatalf("%s: want refusal %d/%s, got result %s", method, code, reason, res)
	}
	if fail.Code != code || fail.Data.Reason != reason {
		t.Fatalf("%s: want refusal %d/%s, got %s", method, code, reason, fail)
	}
}

// typedField is one member of an EIP-712 struct type.
type typedField struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// ethersJob is the input of sign.mjs.
type ethersJob struct {
	PrivateKey  string                  `json:"privateKey"`
	Domain      map[string]any          `json:"domain"`
	Types       map[string][]typedField `json:"types"`
	PrimaryType string                  `json:"primaryType"`
	Message     map[string]any          `json:"message"`
}

func fields(spec string) []typedField {
	var fs []typedField
	for _, f := range strings.Split(spec, ",") {
		name, typ, _ := strings.Cut(strings.TrimSpace(f), " ")
		fs = append(fs, typedField{Name: name, Type: typ})
	}
	return fs
}

func privHex(k *ecdsa.PrivateKey) string { return hexutil.Encode(crypto.FromECDSA(k)) }

func keyAddr(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }

func lowerHex(a common.Address) string { return strings.ToLower(a.Hex()) }

// sessionJob is a SessionPermit as a dApp builds it for ethers.
func sessionJob(k *ecdsa.PrivateKey, chainID int64, ostcID string, ostcHash common.Hash, session int64, expiry int64) ethersJob {
	return ethersJob{PrivateKey: privHex(k),
		Domain:      map[string]any{"name": "XDaLa SessionPermit", "version": "1", "chainId": chainID},
		Types:       map[string][]typedField{"SessionPermit": fields("from address, ostcId string, ostcHash bytes32, sessionId uint256, maxTotalGas uint256, expiry uint256")},
		PrimaryType: "SessionPermit",
		Message: map[string]any{"from": keyAddr(k).Hex(), "ostcId": ostcID, "ostcHash": ostcHash.Hex(),
			"sessionId": strconv.FormatInt(session, 10), "maxTotalGas": "0", "expiry": expiry}}
}

// controlV2Job is a ControlPermitV2: from acts on runner's session.
func controlV2Job(k *ecdsa.PrivateKey, chainID int64, precompile string, runner common.Address, session int64, action, step string, expiry int64) ethersJob {
	return ethersJob{PrivateKey: privHex(k),
		Domain:      map[string]any{"name": "XDaLa Control", "version": "1", "chainId": chainID, "verifyingContract": precompile},
		Types:       map[string][]typedField{"ControlPermitV2": fields("from address, runner address, sessionId uint256, action string, stepId string, expiry uint256")},
		PrimaryType: "ControlPermitV2",
		Message: map[string]any{"from": keyAddr(k).Hex(), "runner": runner.Hex(), "sessionId": strconv.FormatInt(session, 10),
			"action": action, "stepId": step, "expiry": expiry}}
}

// killJob is the permit catalog's ControlPermit (no stepId) with action kill.
func killJob(k *ecdsa.PrivateKey, chainID int64, precompile string, session int64, expiry int64) ethersJob {
	return ethersJob{PrivateKey: privHex(k),
		Domain:      map[string]any{"name": "XDaLa Control", "version": "1", "chainId": chainID, "verifyingContract": precompile},
		Types:       map[string][]typedField{"ControlPermit": fields("from address, sessionId uint256, action string, expiry uint256")},
		PrimaryType: "ControlPermit",
		Message:     map[string]any{"from": keyAddr(k).Hex(), "sessionId": strconv.FormatInt(session, 10), "action": "kill", "expiry": expiry}}
}

// xdalaJob is an xdalaPermit (owner-mode listing).
func xdalaJob(k *ecdsa.PrivateKey, chainID int64, expiry int64) ethersJob {
	return ethersJob{PrivateKey: privHex(k),
		Domain:      map[string]any{"name": "XDaLa Permit", "version": "1", "chainId": chainID},
		Types:       map[string][]typedField{"xdalaPermit": fields("from address, expiry uint256")},
		PrimaryType: "xdalaPermit",
		Message:     map[string]any{"from": keyAddr(k).Hex(), "expiry": expiry}}
}

// editPermit changes a signed envelope after signing.
func editPermit(t *testing.T, env json.RawMessage, edit func(env map[string]any)) json.RawMessage {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(env))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("permit envelope %s: %v", env, err)
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// changedField raises the signed maxTotalGas; truncatedSig cuts the
// signature to 49 bytes.
func changedField(t *testing.T, env json.RawMessage) json.RawMessage {
	return editPermit(t, env, func(m map[string]any) { m["message"].(map[string]any)["maxTotalGas"] = "1" })
}

func truncatedSig(t *testing.T, env json.RawMessage) json.RawMessage {
	return editPermit(t, env, func(m map[string]any) { m["signature"] = m["signature"].(string)[:100] })
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// redisState is every key outside the indexer's ({idx:…}) with its DUMP:
// everything a start, wake or kill may write (sessions, owner sequences and
// idempotency keys, the global root shards). Finished sessions stay as they
// are until their TTL, so two equal states mean nothing was written.
func redisState(t *testing.T, rdb redis.UniversalClient) (map[string]string, int64) {
	t.Helper()
	ctx := context.Background()
	n, err := rdb.DBSize(ctx).Result()
	if err != nil {
		t.Fatalf("redis DBSIZE: %v", err)
	}
	state := map[string]string{}
	iter := rdb.Scan(ctx, 0, "*", 1000).Iterator()
	for iter.Next(ctx) {
		k := iter.Val()
		if strings.HasPrefix(k, "xgr:{idx:") {
			continue
		}
		v, err := rdb.Dump(ctx, k).Result()
		if err != nil && err != redis.Nil {
			t.Fatalf("redis DUMP %s: %v", k, err)
		}
		state[k] = v
	}
	if err := iter.Err(); err != nil {
		t.Fatalf("redis SCAN: %v", err)
	}
	return state, n
}

// unchanged fails unless Redis holds what it held before.
func unchanged(t *testing.T, rdb redis.UniversalClient, what string, before map[string]string, beforeN int64) {
	t.Helper()
	after, n := redisState(t, rdb)
	var diff []string
	for k, v := range after {
		if before[k] != v {
			diff = append(diff, k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			diff = append(diff, k+" (deleted)")
		}
	}
	sort.Strings(diff)
	if n != beforeN || len(diff) > 0 {
		t.Fatalf("%s changed Redis: DBSIZE %d → %d, keys written %v", what, beforeN, n, diff)
	}
}

// eventually polls cond every 50 ms until it holds or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startBinary starts the xgr binary and stops it (SIGTERM, then SIGKILL)
// when the test ends, printing its output if the test failed.
func startBinary(t *testing.T, out *lockedBuffer, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(xgrBin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", xgrBin, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Errorf("xgr %s did not stop within 15s of SIGTERM", args[0])
		}
		if t.Failed() {
			t.Logf("xgr %s output:\n%s", strings.Join(args, " "), out.String())
		}
	})
	return cmd
}

// waitGateway waits until url answers xgr_getCoreAddrs.
func waitGateway(t *testing.T, url string, out *lockedBuffer) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		body := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"xgr_getCoreAddrs","params":[]}`)
		if resp, err := http.Post(url, "application/json", body); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the gateway at %s did not answer within 30s:\n%s", url, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// approvalFlow parks W1 for an hour after S1 (the outcomes give S1 a
// waitSec), so a wake finds it waiting; quick steps run at once.
const approvalFlow = `{"id": "approval", "structure": {
  "S1": {"rule": "0x...S", "onValid": {"spawns": ["W1"]}},
  "W1": {"rule": "0x...W"}}}`

const gatewayOutcomes = `{"S1": {"result": "valid", "waitSec": 3600}, "default": {"result": "valid"}}`

// runGateway is `xgr run --rpc-listen` on anvil and redis-server, following
// a registry (owned by anvil key 0) that holds minimal_join and approval.
type runGateway struct {
	url      string
	anvil    *testenv.Anvil
	rdb      *redis.Client
	store    *joinstore.Store
	reg      common.Address
	chainID  int64
	precomp  string
	flows    map[string]common.Hash // ostcId → keccak256 of the registered text
	keys     []*ecdsa.PrivateKey    // dev keys 0 (registry owner), 1, 2
	ownerHex string
}

func startRunGateway(t *testing.T) *runGateway {
	t.Helper()
	return startRunGatewayWith(t, func(reg common.Address) string { return fmt.Sprintf("registries: [%q]\n", reg.Hex()) })
}

// startRunGatewayWith is startRunGateway with the --config lines that say
// what to follow (given the registry's address).
func startRunGatewayWith(t *testing.T, follow func(reg common.Address) string) *runGateway {
	t.Helper()
	anvil := testenv.StartAnvil(t)
	rs := testenv.StartRedis(t)
	minimal := readExample(t, "minimal_join.json")
	reg, _ := testenv.DeployXRC729(t, anvil, chain.RegistryInit{IDs: []string{"minimal_join", "approval"}, JSONs: [][]byte{minimal, []byte(approvalFlow)}})
	dir := t.TempDir()
	cfg, outcomes := filepath.Join(dir, "xgr.yaml"), filepath.Join(dir, "outcomes.json")
	if err := os.WriteFile(cfg, []byte(follow(reg.Address)+"finality: confirmations\nconfirmations: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outcomes, []byte(gatewayOutcomes), 0o644); err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("http://127.0.0.1:%d", testenv.FreePort(t))
	var out lockedBuffer
	startBinary(t, &out, "--log-format", "json", "run", "--rpc", anvil.URL, "--redis", "redis://"+rs.Addr+"/0", "--config", cfg,
		"--outcomes", outcomes, "--poll", "20ms", "--index-poll", "50ms", "--listen", "", "--rpc-listen", strings.TrimPrefix(url, "http://"))
	waitGateway(t, url, &out)
	g := &runGateway{url: url, anvil: anvil, rdb: rs.Client(), reg: reg.Address, keys: anvil.Keys[:3],
		flows: map[string]common.Hash{"minimal_join": crypto.Keccak256Hash(minimal), "approval": crypto.Keccak256Hash([]byte(approvalFlow))}}
	g.store = joinstore.New(g.rdb, joinstore.Config{})
	g.ownerHex = lowerHex(keyAddr(g.keys[0]))
	var core struct{ Precompile, ChainID string }
	rpcOK(t, url, &core, "xgr_getCoreAddrs")
	id, err := strconv.ParseInt(strings.TrimPrefix(core.ChainID, "0x"), 16, 64)
	if err != nil || id != anvil.ChainID().Int64() {
		t.Fatalf("xgr_getCoreAddrs chainId %q, anvil's is %v", core.ChainID, anvil.ChainID())
	}
	if core.Precompile != "0x0000000000000000000000000000000000000729" {
		t.Fatalf("xgr_getCoreAddrs precompile %q, want the default 0x…0729", core.Precompile)
	}
	g.chainID, g.precomp = id, core.Precompile
	// The indexer has caught up (both orchestrations and the owner cached),
	// so that only the calls under test write to Redis from here on.
	idx := indexstore.New(g.rdb, uint64(id))
	eventually(t, 30*time.Second, "the indexer caches the registry", func() bool {
		n, _ := idx.Count(context.Background(), "ostc:")
		o, _ := idx.Entry(context.Background(), indexstore.OwnerKey(reg.Address))
		return n == 2 && o["owner"] == g.ownerHex
	})
	return g
}

// nextID is xgr_getNextProcessId of k.
func (g *runGateway) nextID(t *testing.T, k *ecdsa.PrivateKey) int64 {
	t.Helper()
	var out struct{ NextProcessID string }
	rpcOK(t, g.url, &out, "xgr_getNextProcessId", map[string]string{"from": keyAddr(k).Hex()})
	n, err := strconv.ParseInt(out.NextProcessID, 10, 64)
	if err != nil {
		t.Fatalf("xgr_getNextProcessId: %q", out.NextProcessID)
	}
	return n
}

// startReq is the xgr_validateDataTransfer parameter.
func (g *runGateway) startReq(step string, payload string, permit json.RawMessage) map[string]any {
	req := map[string]any{"stepId": step, "orchestration": g.reg.Hex(), "permit": permit}
	if payload != "" {
		req["payload"] = json.RawMessage(payload)
	}
	return req
}

// waitFinished waits for a session to finish and checks that every
// process of it ended.
func (g *runGateway) waitFinished(t *testing.T, session int64) {
	t.Helper()
	root := joinstore.Root{Owner: g.ownerHex, RootPid: session}
	eventually(t, 20*time.Second, fmt.Sprintf("session %d finishes", session), func() bool {
		m, _ := g.store.SessionMeta(context.Background(), root)
		return m.Status == joinstore.SessionFinished
	})
	var alive bool
	rpcOK(t, g.url, &alive, "xgr_sessionAlive", g.ownerHex, strconv.FormatInt(session, 10))
	if alive {
		t.Fatalf("xgr_sessionAlive: session %d finished but reported alive", session)
	}
	procs, err := g.store.Processes(context.Background(), root)
	if err != nil || len(procs) == 0 {
		t.Fatalf("session %d: processes %v %v", session, procs, err)
	}
	for _, p := range procs {
		if !p.Status.Finished() {
			t.Fatalf("session %d finished with %s %s", session, p.Pid, p.Status)
		}
	}
	// The replica, not the gateway, releases the root lease after the
	// last commit: wait until the session's keys are still.
	before, n := redisState(t, g.rdb)
	eventually(t, 10*time.Second, "Redis settles after the session", func() bool {
		time.Sleep(150 * time.Millisecond)
		after, m := redisState(t, g.rdb)
		same := m == n && len(after) == len(before)
		for k, v := range after {
			same = same && before[k] == v
		}
		before, n = after, m
		return same
	})
}

// sessionPermits are the SessionPermits of one signer (ethers.js or the Go
// client's permit package) for one session of minimal_join.
type sessionPermits struct {
	good, wrongChain, expired, nonOwner, stale json.RawMessage
}

// checkStarts runs every refusal of xgr_validateDataTransfer with p and
// checks that none writes to Redis, then starts the session with p.good,
// lets it run to its end and refuses the permit's reuse.
func (g *runGateway) checkStarts(t *testing.T, session int64, p sessionPermits) {
	for _, c := range []struct {
		name   string
		permit json.RawMessage
		code   int
		reason string
	}{
		{"changed field", changedField(t, p.good), -32001, "signer-mismatch"},
		{"wrong chain id", p.wrongChain, -32001, "chain-id-mismatch"},
		{"expired", p.expired, -32001, "expired"},
		{"signer neither owner nor executor", p.nonOwner, -32008, "runner-not-authorized"},
		{"malformed signature", truncatedSig(t, p.good), -32001, "bad-signature"},
		{"sessionId not the next root id", p.stale, -32005, "stale-session-id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before, n := redisState(t, g.rdb)
			rpcRefused(t, g.url, c.code, c.reason, "xgr_validateDataTransfer", g.startReq("A1", `{"n": 1}`, c.permit))
			unchanged(t, g.rdb, "a refused start ("+c.name+")", before, n)
		})
	}
	var res struct {
		ProcessID, SessionID, Owner, Ack, OstcID, OstcHash string
		Payload                                            json.RawMessage
	}
	rpcOK(t, g.url, &res, "xgr_validateDataTransfer", g.startReq("A1", `{"n": 18446744073709551617}`, p.good))
	want := strconv.FormatInt(session, 10)
	if res.ProcessID != want+":1" || res.SessionID != want || res.Owner != g.ownerHex || res.Ack != "queued" ||
		res.OstcID != "minimal_join" || res.OstcHash != g.flows["minimal_join"].Hex() || compact(res.Payload) != `{"n":18446744073709551617}` {
		t.Fatalf("accepted start: %+v (payload %s)", res, res.Payload)
	}
	g.waitFinished(t, session)
	var done *bool
	rpcOK(t, g.url, &done, "xgr_stepExecuted", g.ownerHex, want, 1)
	if done == nil || !*done {
		t.Fatalf("xgr_stepExecuted %s:1 after the session ended: %v", want, done)
	}
	p1, _ := g.store.Process(context.Background(), joinstore.Root{Owner: g.ownerHex, RootPid: session}, 1)
	if string(p1.ResumePlain) != `{"n":18446744073709551617}` {
		t.Fatalf("the start payload lost digits: %s", p1.ResumePlain)
	}
	t.Run("reused", func(t *testing.T) {
		before, n := redisState(t, g.rdb)
		rpcRefused(t, g.url, -32003, "permit-reused", "xgr_validateDataTransfer", g.startReq("A1", `{"n": 1}`, p.good))
		unchanged(t, g.rdb, "a reused permit", before, n)
	})
}

// goRefused asserts that a Go client call was refused with code and
// data.reason.
func goRefused(t *testing.T, err error, code int, reason string) {
	t.Helper()
	var re gethrpc.Error
	var de gethrpc.DataError
	if !errors.As(err, &re) || !errors.As(err, &de) {
		t.Fatalf("want refusal %d/%s, got %v", code, reason, err)
	}
	data, _ := de.ErrorData().(map[string]any)
	if re.ErrorCode() != code || data["reason"] != reason {
		t.Fatalf("want refusal %d/%s, got %d/%v: %v", code, reason, re.ErrorCode(), data["reason"], err)
	}
}

// xgr run --rpc-listen on anvil: SessionPermits signed by ethers.js and by
// the Go client start sessions of the registry owner's orchestration; each
// refusal has its own code and reason and writes nothing; the sessions run
// to their end on the replica. Then a second key that a session's
// __wakeUp list names lists and wakes its waiting step (ethers-signed
// ControlPermitV2s and the Go client), and a third key is refused.
func TestGatewayOnAnvil(t *testing.T) {
	testenv.Ethers(t) // fail at once, naming make tools, without node or ethers
	g := startRunGateway(t)
	ctx := context.Background()
	owner, delegate, stranger := g.keys[0], g.keys[1], g.keys[2]
	runner := keyAddr(owner)
	exp, past := time.Now().Add(10*time.Minute).Unix(), time.Now().Add(-time.Hour).Unix()
	minimal := g.flows["minimal_join"]
	c, err := client.Dial(ctx, g.url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	t.Run("ethers SessionPermits", func(t *testing.T) {
		s := g.nextID(t, owner)
		envs := testenv.SignWithEthers(t, []ethersJob{
			sessionJob(owner, g.chainID, "minimal_join", minimal, s, exp),
			sessionJob(owner, 1, "minimal_join", minimal, s, exp),
			sessionJob(owner, g.chainID, "minimal_join", minimal, s, past),
			sessionJob(delegate, g.chainID, "minimal_join", minimal, s, exp),
			sessionJob(owner, g.chainID, "minimal_join", minimal, s+5, exp),
		})
		g.checkStarts(t, s, sessionPermits{good: envs[0], wrongChain: envs[1], expired: envs[2], nonOwner: envs[3], stale: envs[4]})
	})

	t.Run("Go client SessionPermits", func(t *testing.T) {
		s := g.nextID(t, owner)
		sign := func(k *ecdsa.PrivateKey, chainID, session, expiry int64) json.RawMessage {
			env, err := permit.SignSession(k, big.NewInt(chainID), permit.SessionMsg{From: keyAddr(k), OstcID: "minimal_join", OstcHash: minimal,
				SessionID: big.NewInt(session), MaxTotalGas: new(big.Int), Expiry: big.NewInt(expiry)})
			if err != nil {
				t.Fatal(err)
			}
			return env
		}
		g.checkStarts(t, s, sessionPermits{good: sign(owner, g.chainID, s, exp), wrongChain: sign(owner, 1, s, exp),
			expired: sign(owner, g.chainID, s, past), nonOwner: sign(delegate, g.chainID, s, exp), stale: sign(owner, g.chainID, s+5, exp)})
		// The client's own path: next id, permit and start in one call.
		res, err := c.Start(ctx, owner, g.reg, "minimal_join", minimal, "A1", json.RawMessage(`{"k": "v"}`))
		if err != nil || res.SessionID != strconv.FormatInt(s+1, 10) || res.Ack != "queued" {
			t.Fatalf("client.Start: %+v %v", res, err)
		}
		g.waitFinished(t, s+1)
		// A client start by neither owner nor executor is refused too.
		_, err = c.Start(ctx, delegate, g.reg, "minimal_join", minimal, "A1", nil)
		goRefused(t, err, -32008, "runner-not-authorized")
	})

	t.Run("allow list and delegated wake", func(t *testing.T) {
		allow := fmt.Sprintf(`{"x": 1, "__wakeUp": {"steps": {"W1": {"rpc": ["%s"]}}}}`, lowerHex(keyAddr(delegate)))
		approval := g.flows["approval"]
		parked := func() int64 {
			res, err := c.Start(ctx, owner, g.reg, "approval", approval, "S1", json.RawMessage(allow))
			if err != nil {
				t.Fatalf("start approval: %v", err)
			}
			s, _ := strconv.ParseInt(res.SessionID, 10, 64)
			g.waitParked(t, s)
			return s
		}
		s1, s2 := parked(), parked()

		// ethers-signed ControlPermitV2s on session s1.
		envs := testenv.SignWithEthers(t, []ethersJob{
			controlV2Job(delegate, g.chainID, g.precomp, runner, s1, "wake", "", exp),
			controlV2Job(stranger, g.chainID, g.precomp, runner, s1, "wake", "", exp),
			controlV2Job(stranger, g.chainID, g.precomp, runner, s1, "wake", "W1", exp),
			controlV2Job(delegate, g.chainID, g.precomp, runner, s1, "wake", "W1", exp),
		})
		listDelegate, listStranger, wakeStranger, wakeDelegate := envs[0], envs[1], envs[2], envs[3]
		list := func(p json.RawMessage) []map[string]any {
			var out struct{ Sessions []map[string]any }
			rpcOK(t, g.url, &out, "xgr_listSessions", map[string]any{"runner": runner.Hex(), "rootId": strconv.FormatInt(s1, 10), "controlPermit": p})
			return out.Sessions
		}
		if rows := list(listDelegate); len(rows) != 1 || rows[0]["pid"] != fmt.Sprintf("%d:2", s1) || rows[0]["step"] != "W1" ||
			rows[0]["status"] != "waiting" || rows[0]["parentPid"] != nil || rows[0]["owner"] != g.ownerHex {
			t.Fatalf("allow mode for the listed key: %v", rows)
		}
		if rows := list(listStranger); len(rows) != 0 {
			t.Fatalf("allow mode for a key the list does not name: %v", rows)
		}
		wake := func(p json.RawMessage) map[string]any {
			return map[string]any{"payload": json.RawMessage(`{"approved": 123456789012345678901234567890, "_meta": 1}`), "permit": p}
		}
		before := g.procState(t, s1)
		rpcRefused(t, g.url, -32002, "not-allowed", "xgr_wakeUpProcess", wake(wakeStranger))
		if after := g.procState(t, s1); after != before {
			t.Fatalf("a refused wake changed the session's processes:\n%s\n→\n%s", before, after)
		}
		var woke struct {
			OK    bool
			Mode  string
			Woken int
			Owner string
		}
		rpcOK(t, g.url, &woke, "xgr_wakeUpProcess", wake(wakeDelegate))
		if !woke.OK || woke.Mode != "step" || woke.Woken != 1 || woke.Owner != g.ownerHex {
			t.Fatalf("delegated wake: %+v", woke)
		}
		rpcRefused(t, g.url, -32003, "permit-reused", "xgr_wakeUpProcess", wake(wakeDelegate))
		g.waitFinished(t, s1)
		w1, _ := g.store.Process(ctx, joinstore.Root{Owner: g.ownerHex, RootPid: s1}, 2)
		if w1.Status != joinstore.StatusDone || w1.Valid == nil || !*w1.Valid || !strings.Contains(string(w1.ResumePlain), `"approved":123456789012345678901234567890`) ||
			strings.Contains(string(w1.ResumePlain), "_meta") {
			t.Fatalf("W1 after the wake: %+v", w1)
		}

		// The same through the Go client on session s2.
		rows, err := c.ListAllowed(ctx, delegate, runner, s2, "W1")
		if err != nil || len(rows.Sessions) != 1 || rows.Sessions[0].Pid != fmt.Sprintf("%d:2", s2) {
			t.Fatalf("client allow mode for the listed key: %+v %v", rows, err)
		}
		if rows, err := c.ListAllowed(ctx, stranger, runner, s2, ""); err != nil || len(rows.Sessions) != 0 {
			t.Fatalf("client allow mode for a key the list does not name: %+v %v", rows, err)
		}
		before = g.procState(t, s2)
		_, err = c.Wake(ctx, stranger, runner, s2, "", "W1", nil)
		goRefused(t, err, -32002, "not-allowed")
		if after := g.procState(t, s2); after != before {
			t.Fatalf("a refused client wake changed the session's processes:\n%s\n→\n%s", before, after)
		}
		res, err := c.Wake(ctx, delegate, runner, s2, "", "W1", json.RawMessage(`{"approved": true}`))
		if err != nil || !res.OK || res.Woken != 1 || res.Mode != "step" {
			t.Fatalf("client delegated wake: %+v %v", res, err)
		}
		g.waitFinished(t, s2)
	})
}

// waitParked waits until session s's W1 (iteration 2) waits, as
// xgr_stepExecuted reports it (false: exists, not finished), due far ahead.
func (g *runGateway) waitParked(t *testing.T, s int64) {
	t.Helper()
	eventually(t, 20*time.Second, fmt.Sprintf("session %d parks W1", s), func() bool {
		var done *bool
		rpcOK(t, g.url, &done, "xgr_stepExecuted", g.ownerHex, strconv.FormatInt(s, 10), 2)
		return done != nil && !*done
	})
	p, _ := g.store.Process(context.Background(), joinstore.Root{Owner: g.ownerHex, RootPid: s}, 2)
	if p.ResumeStep != "W1" || p.Status != joinstore.StatusWaiting || p.NextWakeAt.Before(time.Now().Add(30*time.Minute)) {
		t.Fatalf("session %d: W1 should wait an hour: %+v", s, p)
	}
}

// procState is the session's process records (what a wake would change).
func (g *runGateway) procState(t *testing.T, s int64) string {
	t.Helper()
	procs, err := g.store.Processes(context.Background(), joinstore.Root{Owner: g.ownerHex, RootPid: s})
	if err != nil {
		t.Fatalf("session %d: %v", s, err)
	}
	b, _ := json.Marshal(procs)
	return string(b)
}
