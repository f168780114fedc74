package rpc_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/rpc"
	"github.com/xgr-sidecar/xgr/rpc/client"
	"github.com/xgr-sidecar/xgr/session"
	"github.com/xgr-sidecar/xgr/testenv"
)

// BenchmarkPermitStarts compares, on one redis-server, three ways to start
// a session of the same orchestration, one after the other in each
// iteration (one client, no concurrency):
//
//	gateway    the Go client over HTTP, as a dApp: xgr_getNextProcessId,
//	           sign a SessionPermit with the registry owner's key,
//	           xgr_validateDataTransfer (verify the EIP-712 signature and the
//	           expiry, check the owner, the orchestration and the root id,
//	           then the start use case, session.Starter)
//	reactor    session.Starter directly, trusted (no permit, no authority:
//	           payload and orchestration checks, joinstore.Start)
//	joinstore  joinstore.Store.Start directly (the start_session script)
//
// Each is reported as starts/s; gateway/reactor is the share of the direct
// rate the permit path keeps. ns/op is left out: an op is all three starts.
func BenchmarkPermitStarts(b *testing.B) {
	ctx := context.Background()
	o, err := registry_Parse(flowText)
	if err != nil {
		b.Fatal(err)
	}
	keys, err := testenv.DevKeys(3)
	if err != nil {
		b.Fatal(err)
	}
	store := joinstore.New(testenv.StartRedis(b).Client(), joinstore.Config{SessionTTL: time.Hour})
	source := reactor.NewStaticSource(o)
	svc, err := rpc.NewService(rpc.Config{Store: store, Source: source, Authority: authority.NewChecker(&owners{m: map[common.Address]common.Address{xrc729: addr(keys[0])}}).WithRules(scriptedRules),
		Registries: &indexer.Followed{Registries: []common.Address{xrc729}},
		ChainID:    chainID, ControlContract: precomp, Skew: time.Second, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := rpc.NewServer(svc, rpc.ServerConfig{})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer func() { hs.Close(); srv.Stop() }()
	c, err := client.Dial(ctx, hs.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if _, err := c.CoreAddrs(ctx); err != nil { // cached by the client, as a dApp would
		b.Fatal(err)
	}
	direct, bare := lower(addr(keys[1])), lower(addr(keys[2]))
	payload := json.RawMessage(`{"amount": 18446744073709551617}`)

	var viaGateway, viaReactor, viaStore time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		res, err := c.Start(ctx, keys[0], xrc729, o.ID, o.Hash, "A1", payload)
		if err != nil || res.Ack != "queued" {
			b.Fatalf("gateway start %d: %+v %v", i, res, err)
		}
		t1 := time.Now()
		r, err := session.Starter{Store: store, Source: source, Trusted: true, Now: func() time.Time { return t1 }}.Start(ctx, session.Request{Owner: direct, Registry: xrc729.Hex(), OstcID: o.ID, OstcHash: o.Hash.Hex(),
			Step: "A1", Payload: payload, Key: "bench:" + strconv.Itoa(i)})
		if err != nil || r.Ack != "queued" {
			b.Fatalf("reactor start %d: %+v %v", i, r, err)
		}
		t2 := time.Now()
		sr, err := store.Start(ctx, joinstore.StartRequest{Owner: bare, XRC729: xrc729.Hex(), OstcID: o.ID, OstcHash: o.Hash.Hex(),
			StartStep: "A1", Payload: payload, IdempotencyKey: "bench:" + strconv.Itoa(i), Now: t2})
		if err != nil || sr.Ack != "queued" {
			b.Fatalf("joinstore start %d: %+v %v", i, sr, err)
		}
		t3 := time.Now()
		viaGateway, viaReactor, viaStore = viaGateway+t1.Sub(t0), viaReactor+t2.Sub(t1), viaStore+t3.Sub(t2)
	}
	b.StopTimer()
	if next, _ := store.NextRootPid(ctx, lower(addr(keys[0]))); next != int64(b.N)+1 {
		b.Fatalf("the gateway started %d sessions for %d iterations", next-1, b.N)
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(b.N)/viaGateway.Seconds(), "gateway-starts/s")
	b.ReportMetric(float64(b.N)/viaReactor.Seconds(), "reactor-starts/s")
	b.ReportMetric(float64(b.N)/viaStore.Seconds(), "joinstore-starts/s")
	b.ReportMetric(viaReactor.Seconds()/viaGateway.Seconds(), "gateway/reactor")
}

// BenchmarkRefusedWake is the cost of one refused step-mode wake of a
// session of 321 processes (288 waiting on W1) whose payloads are 64 KiB
// each, by a signer the session's allow list does not name (a fresh key
// each time, as an attacker rotating keys): B/op is what the gateway and
// its client allocate per refused call, procreads/op the Redis commands on
// process records.
func BenchmarkRefusedWake(b *testing.B) {
	g, fan := newFanGateway(b, nil)
	ctx := context.Background()
	runnerKey, delegate := g.keys[0], g.keys[1]
	root := g.fanSession(fan, runnerKey, `{"big": "`+strings.Repeat("x", 64<<10)+`", "__wakeUp": {"steps": {"W1": {"rpc": ["`+lower(addr(delegate))+`"]}}}}`)
	keys := make([]*ecdsa.PrivateKey, b.N)
	for i := range keys {
		keys[i], _ = crypto.GenerateKey()
	}
	log := hook(b, g)
	b.ReportAllocs()
	b.ResetTimer()
	cmds := log.during(func() {
		for i := 0; i < b.N; i++ {
			if _, err := g.client.Wake(ctx, keys[i], addr(runnerKey), root.RootPid, "", "W1", nil); err == nil {
				b.Fatal("a stranger's wake was accepted")
			}
		}
	})
	b.ReportMetric(float64(processReads(cmds))/float64(b.N), "procreads/op")
}
