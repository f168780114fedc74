package rpc_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/rpc"
	"github.com/xgr-sidecar/xgr/rpc/permit"
)

// sessionPermitV2 signs a SessionPermitV2 of the test orchestration bound
// to registry, step and payload.
func (g *gateway) sessionPermitV2(key *ecdsa.PrivateKey, session int64, registry common.Address, step, payload string) json.RawMessage {
	g.t.Helper()
	h, err := permit.PayloadHash([]byte(payload))
	if err != nil {
		g.t.Fatal(err)
	}
	env, err := permit.SignSessionV2(key, chainID, permit.SessionMsg{From: addr(key), Registry: registry, OstcID: g.orch.ID, OstcHash: g.orch.Hash,
		StartStep: step, PayloadHash: h, SessionID: big.NewInt(session), MaxTotalGas: new(big.Int), Expiry: big.NewInt(time.Now().Add(time.Minute).Unix())})
	if err != nil {
		g.t.Fatal(err)
	}
	return env
}

// A SessionPermitV2 starts only the request it was signed for: whoever
// relays it cannot start the session with their own payload (adding
// themselves to its __wakeUp list), at another step or under another
// registry. Each refusal writes nothing and leaves the permit unused, so
// the rightful request still starts the session.
func TestRelayedSessionPermitV2(t *testing.T) {
	other := common.HexToAddress("0x00000000000000000000000000000000000000b7")
	// Both registries are served: what refuses the relayed start is the
	// permit's binding, not the registry rule.
	g := newGatewayWith(t, rpc.ServerConfig{}, func(c *rpc.Config) {
		c.Registries = &indexer.Followed{Registries: []common.Address{xrc729, other}}
	})
	ctx := context.Background()
	owner, relayer := g.keys[0], g.keys[1]
	payload := `{"order": 7, "amount": 18446744073709551617, "__wakeUp": {"steps": {"W1": {"rpc": ["` + lower(addr(owner)) + `"]}}}}`
	good := g.sessionPermitV2(owner, 1, xrc729, "A1", payload)
	g.owners.m[other] = addr(owner)
	stolen := `{"order": 7, "amount": 18446744073709551617, "__wakeUp": {"steps": {"W1": {"rpc": ["` + lower(addr(relayer)) + `"]}}}}`
	for name, tc := range map[string]struct {
		registry      common.Address
		step, payload string
		path          string
	}{
		"relayer's payload":    {xrc729, "A1", stolen, "permit.message.payloadHash"},
		"no payload":           {xrc729, "A1", "", "permit.message.payloadHash"},
		"another start step":   {xrc729, "W1", payload, "permit.message.startStep"},
		"another registry":     {other, "A1", payload, "permit.message.registry"},
		"a number respelled":   {xrc729, "A1", strings.Replace(payload, "18446744073709551617", "18446744073709551617.0", 1), "permit.message.payloadHash"},
		"a member added, null": {xrc729, "A1", strings.Replace(payload, `"order": 7`, `"order": 7, "x": null`, 1), "permit.message.payloadHash"},
	} {
		t.Run(name, func(t *testing.T) {
			before := g.keys0()
			_, err := g.client.StartWith(ctx, good, tc.registry, tc.step, json.RawMessage(tc.payload))
			refused(t, err, rpc.CodePermit, "request-mismatch")
			if !strings.Contains(err.Error(), tc.path) {
				t.Errorf("the refusal does not name %s: %v", tc.path, err)
			}
			if after := g.keys0(); after != before {
				t.Fatalf("a refused start changed Redis: %d keys, before %d", after, before)
			}
		})
	}
	// The rightful request, reformatted in transit, still starts session 1.
	reformatted := strings.ReplaceAll(strings.ReplaceAll(payload, ": ", ":\n\t"), `"order"`, `"\u006frder"`)
	res, err := g.client.StartWith(ctx, good, xrc729, "A1", json.RawMessage(reformatted))
	if err != nil || res.SessionID != "1" || res.Ack != "queued" {
		t.Fatalf("the rightful start: %+v %v", res, err)
	}
	p, err := g.store.Process(ctx, joinstore.Root{Owner: lower(addr(owner)), RootPid: 1}, 1)
	if err != nil || strings.Contains(string(p.ResumePlain), lower(addr(relayer))) || !strings.Contains(string(p.ResumePlain), "18446744073709551617") {
		t.Fatalf("the started process: %+v %v", p, err)
	}
	// Then it is used up.
	_, err = g.client.StartWith(ctx, good, xrc729, "A1", json.RawMessage(payload))
	refused(t, err, rpc.CodeReplay, "permit-reused")
	// The Go client signs SessionPermitV2 by default.
	res, err = g.client.Start(ctx, owner, xrc729, g.orch.ID, g.orch.Hash, "A1", json.RawMessage(`{"b": 2}`))
	if err != nil || res.SessionID != "2" {
		t.Fatalf("client start: %+v %v", res, err)
	}
}

// A ControlPermitV3 wakes only with the request it was signed for: another
// process or another payload is refused, nothing changes, and the permit
// is not used up.
func TestRelayedWakePermitV3(t *testing.T) {
	g := newGateway(t, rpc.ServerConfig{})
	ctx := context.Background()
	runnerKey, delegate := g.keys[0], g.keys[1]
	runner := addr(runnerKey)
	allow := `{"x": 1, "__wakeUp": {"steps": {"W1": {"rpc": ["` + lower(addr(delegate)) + `"]}}}}`
	first := g.waitingSession(runnerKey, allow)
	second := g.waitingSession(runnerKey, allow)
	wake := func(p json.RawMessage, pid, payload string) (*rpc.WakeResult, error) {
		var out rpc.WakeResult
		req := rpc.WakeRequest{ProcessID: pid, Permit: p}
		if payload != "" {
			req.Payload = json.RawMessage(payload)
		}
		err := g.client.Raw(ctx, &out, "xgr_wakeUpProcess", req)
		return &out, err
	}
	unchanged := func(t *testing.T, root joinstore.Root) {
		t.Helper()
		p, err := g.store.Process(ctx, root, 2)
		if err != nil || p.Status != joinstore.StatusWaiting || strings.Contains(string(p.ResumePlain), "approved") {
			t.Fatalf("the process changed: %+v %v", p, err)
		}
	}

	// Pid mode, the runner's permit for first:2 with {"approved": true}.
	pp, err := g.client.WakePermit(ctx, runnerKey, runner, first.RootPid, first.Pid(2), "", json.RawMessage(`{"approved": true}`))
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct{ pid, payload, path string }{
		"another process":   {first.Pid(1), `{"approved": true}`, "permit.message.pid"},
		"step mode":         {"", `{"approved": true}`, "permit.message.pid"},
		"another payload":   {first.Pid(2), `{"approved": true, "amount": 1000000}`, "permit.message.payloadHash"},
		"no payload":        {first.Pid(2), "", "permit.message.payloadHash"},
		"another session's": {second.Pid(2), `{"approved": true}`, "permit.message.pid"},
	} {
		t.Run("pid mode/"+name, func(t *testing.T) {
			before := g.keys0()
			_, err := wake(pp, tc.pid, tc.payload)
			refused(t, err, rpc.CodePermit, "request-mismatch")
			if !strings.Contains(err.Error(), tc.path) {
				t.Errorf("the refusal does not name %s: %v", tc.path, err)
			}
			if g.keys0() != before {
				t.Fatal("a refused wake wrote to Redis")
			}
			unchanged(t, first)
		})
	}
	if out, err := wake(pp, first.Pid(2), `{ "approved" : true }`); err != nil || out.Woken != 1 || out.Mode != "pid" {
		t.Fatalf("the rightful pid-mode wake: %+v %v", out, err)
	}
	_, err = wake(pp, first.Pid(2), `{"approved": true}`)
	refused(t, err, rpc.CodeReplay, "permit-reused")

	// Step mode, the delegate's permit (on the runner's behalf) for the
	// second session with {"approved": "yes"}.
	sp, err := g.client.WakePermit(ctx, delegate, runner, second.RootPid, "", "W1", json.RawMessage(`{"approved": "yes"}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = wake(sp, "", `{"approved": "yes", "__wakeUp": {"steps": {"W1": {"rpc": ["*"]}}}, "total": 1}`)
	refused(t, err, rpc.CodePermit, "request-mismatch")
	_, err = wake(sp, second.Pid(2), `{"approved": "yes"}`)
	refused(t, err, rpc.CodePermit, "request-mismatch")
	unchanged(t, second)
	if out, err := wake(sp, "", `{"approved": "yes"}`); err != nil || out.Woken != 1 || out.Mode != "step" {
		t.Fatalf("the rightful delegated wake: %+v %v", out, err)
	}
	// A V3 is a wake permit: xgr_control does not take it.
	kp, err := permit.SignControlV3(runnerKey, chainID, precomp, permit.ControlMsg{SessionID: big.NewInt(second.RootPid), Action: permit.ActionKill,
		Expiry: big.NewInt(time.Now().Add(time.Minute).Unix())})
	if err != nil {
		t.Fatal(err)
	}
	var kr rpc.ControlResult
	refused(t, g.client.Raw(ctx, &kr, "xgr_control", rpc.ControlRequest{Permit: kp}), rpc.CodePermit, "unknown-primary-type")
}

// With RequireBoundPermits the unbound SessionPermit and wake permits are
// refused (unbound-permit, nothing written); kill and list permits, and
// the bound kinds, work as before.
func TestRequireBoundPermits(t *testing.T) {
	g := newGatewayWith(t, rpc.ServerConfig{}, func(c *rpc.Config) { c.RequireBoundPermits = true })
	ctx := context.Background()
	owner, delegate := g.keys[0], g.keys[1]
	runner := addr(owner)
	before := g.keys0()
	_, err := g.client.StartWith(ctx, g.sessionPermit(owner, 1, nil), xrc729, "A1", nil)
	refused(t, err, rpc.CodePermit, "unbound-permit")
	if !strings.Contains(err.Error(), "SessionPermitV2") || !strings.Contains(err.Error(), "--rpc-require-bound-permits") {
		t.Errorf("the refusal does not say what to sign and why: %v", err)
	}
	if g.keys0() != before {
		t.Fatal("a refused start wrote to Redis")
	}
	allow := `{"__wakeUp": {"steps": {"W1": {"rpc": ["` + lower(addr(delegate)) + `"]}}}}`
	root := g.waitingSessionWith(owner, allow, true)
	if root.RootPid != 1 {
		t.Fatalf("session %d, want 1", root.RootPid)
	}
	for _, v2 := range []bool{false, true} {
		p, err := g.client.ControlPermit(ctx, owner, runner, root.RootPid, permit.ActionWake, "", v2)
		if err != nil {
			t.Fatal(err)
		}
		var out rpc.WakeResult
		err = g.client.Raw(ctx, &out, "xgr_wakeUpProcess", rpc.WakeRequest{ProcessID: root.Pid(2), Permit: p})
		refused(t, err, rpc.CodePermit, "unbound-permit")
	}
	// Allow mode still takes a ControlPermitV2, and the client's bound wake works.
	if list, err := g.client.ListAllowed(ctx, delegate, runner, root.RootPid, "W1"); err != nil || len(list.Sessions) != 1 {
		t.Fatalf("allow mode: %+v %v", list, err)
	}
	if out, err := g.client.Wake(ctx, delegate, runner, root.RootPid, "", "W1", json.RawMessage(`{"ok": true}`)); err != nil || out.Woken != 1 {
		t.Fatalf("bound wake: %+v %v", out, err)
	}
	// Kill takes the reference's ControlPermit.
	if res, err := g.client.Kill(ctx, owner, root.RootPid); err != nil || !res.OK {
		t.Fatalf("kill: %+v %v", res, err)
	}
}

// A permit valid for longer than the lifetime cap is refused, and the
// refusal names the cap and its setting.
func TestPermitLifetimeCap(t *testing.T) {
	g := newGatewayWith(t, rpc.ServerConfig{}, func(c *rpc.Config) { c.MaxPermitLifetime = 10 * time.Minute })
	ctx := context.Background()
	owner := g.keys[0]
	long := g.sessionPermit(owner, 1, func(m *permit.SessionMsg) { m.Expiry = big.NewInt(time.Now().Add(11 * time.Minute).Unix()) })
	before := g.keys0()
	_, err := g.client.StartWith(ctx, long, xrc729, "A1", nil)
	refused(t, err, rpc.CodePermit, "expiry-too-far")
	if !strings.Contains(err.Error(), "10m0s") || !strings.Contains(err.Error(), "--rpc-permit-lifetime") {
		t.Errorf("the refusal does not name the cap and its setting: %v", err)
	}
	if g.keys0() != before {
		t.Fatal("a refused start wrote to Redis")
	}
	var out rpc.ListResult
	forever, err := permit.SignXdala(owner, chainID, permit.XdalaMsg{Expiry: new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))})
	if err != nil {
		t.Fatal(err)
	}
	refused(t, g.client.Raw(ctx, &out, "xgr_listSessions", rpc.ListRequest{Permit: forever}), rpc.CodePermit, "expiry-too-far")
	if _, err := g.client.StartWith(ctx, g.sessionPermit(owner, 1, nil), xrc729, "A1", nil); err != nil {
		t.Fatalf("a permit within the cap: %v", err)
	}
}
