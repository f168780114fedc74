package console

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rpc"
	"github.com/xgr-sidecar/xgr/session"
	"github.com/xgr-sidecar/xgr/testenv"
)

type ownerOf common.Address

// Facts implements authority.Reader: o owns every contract, none has an
// executor list.
func (o ownerOf) Facts(_ context.Context, cs []common.Address) ([]authority.Facts, error) {
	out := make([]authority.Facts, len(cs))
	for i, c := range cs {
		out[i] = authority.Facts{Contract: c, Owner: common.Address(o)}
	}
	return out, nil
}

// The page's wake permit is a ControlPermitV3 bound to the process and to
// the payload the page sends: the gateway wakes with exactly that request,
// and the signed permit used with another payload or process is refused
// and stays usable.
func TestConsolePermitWakeIsBound(t *testing.T) {
	keys, err := testenv.DevKeys(1)
	if err != nil {
		t.Fatal(err)
	}
	key := keys[0]
	owner := crypto.PubkeyToAddress(key.PublicKey)
	store := joinstore.New(testenv.StartRedis(t).Client(), joinstore.Config{SessionTTL: time.Hour})
	raw, err := os.ReadFile("../examples/ostc/minimal_join.json")
	if err != nil {
		t.Fatal(err)
	}
	o, err := registry.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	src := reactor.NewStaticSource(o)
	ctx := context.Background()
	var root joinstore.Root
	for i := 0; i < 2; i++ {
		res, err := session.Starter{Store: store, Source: src}.Start(ctx, session.Request{Owner: strings.ToLower(owner.Hex()), Registry: "file", OstcID: o.ID,
			Step: o.Steps[0].ID, Payload: json.RawMessage(`{"n": 1}`), WakeAt: time.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		root = res.Root // the second session
	}
	contract := common.HexToAddress("0x0000000000000000000000000000000000000729")
	svc, err := rpc.NewService(rpc.Config{Store: store, Source: src, Authority: authority.NewChecker(ownerOf(owner)).WithRules(scriptedRules), ChainID: big.NewInt(31337), ControlContract: contract, AnyRegistry: true})
	if err != nil {
		t.Fatal(err)
	}
	gw, err := rpc.NewServer(svc, rpc.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	c := New(Config{Store: store, Source: src, Gateway: gw, ChainID: 31337, ControlContract: contract})
	hs := httptest.NewServer(c.Handler())
	t.Cleanup(func() { c.Close(); hs.Close(); gw.Stop() })

	// What actions.js does: the payload as typed goes to /ui/api/permit ...
	payload := "{ \"approved\": true,\n  \"amount\": 18446744073709551617 }"
	pid := root.Pid(1)
	code, body := do(t, http.MethodPost, hs.URL+"/ui/api/permit",
		`{"action":"wake","owner":"`+owner.Hex()+`","pid":"`+pid+`","from":"`+owner.Hex()+`","payload":`+payload+`}`, true)
	if code != 200 {
		t.Fatalf("permit request: %d %s", code, body)
	}
	var pr PermitRequest
	if err := json.Unmarshal([]byte(body), &pr); err != nil || pr.Method != "xgr_wakeUpProcess" || !strings.Contains(string(pr.TypedData), `"primaryType":"ControlPermitV3"`) ||
		!strings.Contains(string(pr.TypedData), `"pid":"`+pid+`"`) {
		t.Fatalf("typed data: %s %v", body, err)
	}
	// ... the wallet signs it (eth_signTypedData_v4) ...
	var td apitypes.TypedData
	if err := json.Unmarshal(pr.TypedData, &td); err != nil {
		t.Fatal(err)
	}
	digest, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := crypto.Sign(digest, key)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	signed := strings.TrimSuffix(string(pr.TypedData), "}") + `,"signature":"` + hexutil.Encode(sig) + `"}`
	// ... and the page sends the same payload with it through /ui/rpc.
	wake := func(pid, payload string) string {
		_, body := do(t, http.MethodPost, hs.URL+"/ui/rpc",
			`{"jsonrpc":"2.0","id":1,"method":"xgr_wakeUpProcess","params":[{"processId":"`+pid+`","payload":`+payload+`,"permit":`+signed+`}]}`, true)
		return body
	}
	if body := wake(pid, `{"approved": true, "amount": 1}`); !strings.Contains(body, `"reason":"request-mismatch"`) {
		t.Fatalf("another payload: %s", body)
	}
	if body := wake(root.Pid(2), payload); !strings.Contains(body, `"reason":"request-mismatch"`) {
		t.Fatalf("another process: %s", body)
	}
	if body := wake(pid, payload); !strings.Contains(body, `"woken":1`) {
		t.Fatalf("the page's wake: %s", body)
	}
	p, _ := store.Process(ctx, root, 1)
	if !strings.Contains(string(p.ResumePlain), `"amount":18446744073709551617`) {
		t.Errorf("woken payload: %s", p.ResumePlain)
	}
	// A kill permit is the reference's ControlPermit.
	_, body = do(t, http.MethodPost, hs.URL+"/ui/api/permit", `{"action":"kill","owner":"`+owner.Hex()+`","rootPid":1,"from":"`+owner.Hex()+`"}`, true)
	if !strings.Contains(body, `"primaryType":"ControlPermit"`) {
		t.Errorf("kill permit: %s", body)
	}
}
