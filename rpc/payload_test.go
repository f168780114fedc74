package rpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/xgr-sidecar/xgr/rpc"
	"github.com/xgr-sidecar/xgr/rpc/permit"
)

// deepPayload nests n arrays under the key "a".
func deepPayload(n int) json.RawMessage {
	return json.RawMessage(`{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`)
}

// A start payload over the size cap, nested too deeply or with a
// duplicate name is the caller's error (invalid params naming the cap or
// the path; clients do not retry it), and writes nothing.
func TestStartPayloadRefusedAsInvalidParams(t *testing.T) {
	g := newGateway(t, rpc.ServerConfig{})
	ctx := context.Background()
	owner := g.keys[0]
	for name, tc := range map[string]struct {
		payload json.RawMessage
		want    string
	}{
		"over the size cap": {json.RawMessage(`{"big": "` + strings.Repeat("x", 300<<10) + `"}`), "at most 262144 are allowed (XGR_MAX_PAYLOAD)"},
		"nested 9000 deep":  {deepPayload(9000), "payload.a[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]: nested deeper than 32 levels"},
		"duplicate name":    {json.RawMessage(`{"__wakeUp": {"steps": {}}, "__wakeUp": {"steps": {"W1": {"rpc": ["*"]}}}}`), "payload.__wakeUp: duplicate member name"},
		"nested duplicate":  {json.RawMessage(`{"a": [{"k": 1, "k": 2}]}`), "payload.a[0].k: duplicate member name"},
	} {
		t.Run(name, func(t *testing.T) {
			before := g.keys0()
			_, err := g.client.StartWith(ctx, g.sessionPermit(owner, 1, nil), xrc729, "A1", tc.payload)
			refused(t, err, rpc.CodeInvalidParams, "invalid-params")
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("the message does not say %q: %v", tc.want, err)
			}
			if after := g.keys0(); after != before {
				t.Fatalf("a refused start changed Redis: %d keys, before %d", after, before)
			}
		})
	}
	// At the cap it starts.
	if _, err := g.client.StartWith(ctx, g.sessionPermit(owner, 1, nil), xrc729, "A1", deepPayload(31)); err != nil {
		t.Fatalf("a payload 32 levels deep: %v", err)
	}
}

// A wake payload nested too deeply or with a duplicate name is refused as
// invalid params and wakes nothing.
func TestWakePayloadShapeRefused(t *testing.T) {
	g := newGateway(t, rpc.ServerConfig{})
	ctx := context.Background()
	key := g.keys[0]
	root := g.waitingSession(key, `{"x": 1}`)
	before, _ := g.store.Process(ctx, root, 2)
	for _, payload := range []json.RawMessage{deepPayload(40), json.RawMessage(`{"ok": 1, "ok": 2}`)} {
		p, err := g.client.ControlPermit(ctx, key, addr(key), root.RootPid, permit.ActionWake, "", false)
		if err != nil {
			t.Fatal(err)
		}
		var out rpc.WakeResult
		err = g.client.Raw(ctx, &out, "xgr_wakeUpProcess", rpc.WakeRequest{ProcessID: root.Pid(2), Payload: payload, Permit: p})
		refused(t, err, rpc.CodeInvalidParams, "invalid-params")
		if !strings.Contains(err.Error(), "nested deeper than 32 levels") && !strings.Contains(err.Error(), "payload.ok: duplicate member name") {
			t.Errorf("%.40s: the message names neither the cap nor the duplicate: %v", payload, err)
		}
	}
	after, _ := g.store.Process(ctx, root, 2)
	if after.Status != "waiting" || string(after.ResumePlain) != string(before.ResumePlain) || !after.NextWakeAt.Equal(before.NextWakeAt) {
		t.Errorf("a refused wake changed the process: %+v, before %+v", after, before)
	}
}

// go-ethereum's rpc_modules is not served: it answers as an unknown method.
func TestRPCModulesNotServed(t *testing.T) {
	g := newGateway(t, rpc.ServerConfig{})
	var out map[string]string
	err := g.client.Raw(context.Background(), &out, "rpc_modules")
	var re gethrpc.Error
	if !errors.As(err, &re) || re.ErrorCode() != -32601 || out != nil {
		t.Fatalf("rpc_modules: %v %v, want method not found (-32601)", out, err)
	}
	// Worded as go-ethereum words a method that is not registered.
	errNope := g.client.Raw(context.Background(), &out, "rpc_nope")
	if want := strings.ReplaceAll(errNope.Error(), "rpc_nope", "rpc_modules"); err.Error() != want {
		t.Errorf("rpc_modules: %q, an unknown method: %q", err, errNope)
	}
}
