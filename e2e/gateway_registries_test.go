package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/rpc/client"
	"github.com/xgr-sidecar/xgr/rpc/permit"
	"github.com/xgr-sidecar/xgr/testenv"
)

// xgr run --rpc-listen serves the registries it follows only: a start
// against a registry that anyone deployed on the chain, with a permit its
// owner signed, is refused with -32007 and writes nothing to Redis; the
// followed registry starts as before.
func TestGatewayRefusesUnfollowedRegistry(t *testing.T) {
	g := startRunGateway(t)
	ctx := context.Background()
	owner := g.keys[0]
	approval := crypto.Keccak256Hash([]byte(approvalFlow))
	other, rcpt := testenv.DeployXRC729(t, g.anvil, chain.RegistryInit{IDs: []string{"approval"}, JSONs: [][]byte{[]byte(approvalFlow)}})
	// The indexer sees the deployment's block (and nothing of the
	// unfollowed registry); from here on only the calls write.
	idx := indexstore.New(g.rdb, uint64(g.chainID))
	eventually(t, 20*time.Second, "the indexer reaches the deployment's block", func() bool {
		h, ok, _ := idx.Head(ctx)
		return ok && h.Number >= rcpt.BlockNumber.Uint64()
	})
	s := g.nextID(t, owner)
	env, err := permit.SignSession(owner, big.NewInt(g.chainID), permit.SessionMsg{From: keyAddr(owner), OstcID: "approval", OstcHash: approval,
		SessionID: big.NewInt(s), MaxTotalGas: new(big.Int), Expiry: big.NewInt(time.Now().Add(10 * time.Minute).Unix())})
	if err != nil {
		t.Fatal(err)
	}
	req := map[string]any{"stepId": "S1", "orchestration": other.Address.Hex(), "permit": json.RawMessage(env)}
	before, n := redisState(t, g.rdb)
	_, fail := rpcCall(t, g.url, "xgr_validateDataTransfer", req)
	if fail == nil || fail.Code != -32007 || fail.Data.Reason != "registry-not-served" || fail.Data.Path != "orchestration" ||
		!strings.Contains(fail.Message, other.Address.Hex()) || !strings.Contains(fail.Message, "--rpc-any-registry") {
		t.Fatalf("a start of an unfollowed registry: %s", fail)
	}
	unchanged(t, g.rdb, "a start of an unfollowed registry", before, n)

	// The followed registry, same owner, same permit shape: started.
	req["orchestration"] = g.reg.Hex()
	var res struct{ SessionID, Ack string }
	rpcOK(t, g.url, &res, "xgr_validateDataTransfer", req)
	if res.SessionID != fmt.Sprint(s) || res.Ack != "queued" {
		t.Fatalf("start of the followed registry: %+v", res)
	}
}

// With discover: true (and no registries listed) the gateway serves the
// registries the indexer discovered.
func TestGatewayServesDiscoveredRegistry(t *testing.T) {
	g := startRunGatewayWith(t, func(common.Address) string { return "discover: true\n" })
	ctx := context.Background()
	c, err := client.Dial(ctx, g.url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.Start(ctx, g.keys[0], g.reg, "minimal_join", g.flows["minimal_join"], "A1", nil)
	if err != nil || res.Ack != "queued" {
		t.Fatalf("start of a discovered registry: %+v %v", res, err)
	}
	s := g.nextID(t, g.keys[0]) - 1
	g.waitFinished(t, s)
}
