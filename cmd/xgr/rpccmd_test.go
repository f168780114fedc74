package main

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rpc"
	"github.com/xgr-sidecar/xgr/testenv"
)

type fixedOwner common.Address

// Facts implements authority.Reader: o owns every contract, none has an
// executor list.
func (o fixedOwner) Facts(_ context.Context, cs []common.Address) ([]authority.Facts, error) {
	out := make([]authority.Facts, len(cs))
	for i, c := range cs {
		out[i] = authority.Facts{Contract: c, Owner: common.Address(o)}
	}
	return out, nil
}

// xgr rpc start|list|alive|executed|wake|kill against a gateway, with the
// key from XGR_PRIVATE_KEY.
func TestRPCVerbs(t *testing.T) {
	flow := "../../examples/ostc/minimal_join.json"
	o, err := loadOSTC(flow)
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := testenv.DevKeys(2)
	owner := crypto.PubkeyToAddress(keys[0].PublicKey)
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	svc, err := rpc.NewService(rpc.Config{Store: store, Source: reactor.NewStaticSource([]*registry.Orchestration{o}...), Authority: authority.NewChecker(fixedOwner(owner)).WithRules(scriptedRules),
		Registries: &indexer.Followed{Registries: []common.Address{common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")}},
		ChainID:    big.NewInt(31337), ControlContract: common.HexToAddress(DefaultPrecompile)})
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := rpc.NewServer(svc, rpc.ServerConfig{})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ep := []string{"--endpoint", hs.URL}
	reg := "0x5FbDB2315678afecb367f032d93F642f64180aa3"
	t.Setenv("XGR_PRIVATE_KEY", common.Bytes2Hex(crypto.FromECDSA(keys[1])))
	out, code := run(t, append([]string{"rpc", "start", flow, "--orchestration", reg}, ep...)...)
	if code != 1 || !strings.Contains(out, `"reason":"runner-not-authorized"`) {
		t.Fatalf("a non-owner's start: %d %s", code, out)
	}
	t.Setenv("XGR_PRIVATE_KEY", "0x"+common.Bytes2Hex(crypto.FromECDSA(keys[0])))
	payload := writeFile(t, "p.json", `{"big": 123456789012345678901234567890}`)
	out, code = run(t, append([]string{"rpc", "start", flow, "--orchestration", reg, "--payload", payload, "--json"}, ep...)...)
	var started rpc.DataTransferResult
	if code != 0 || json.Unmarshal([]byte(out), &started) != nil || started.ProcessID != "1:1" || !strings.Contains(string(started.Payload), "123456789012345678901234567890") {
		t.Fatalf("start: %d %s", code, out)
	}
	o1 := owner.Hex()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"rpc", "list"}, "1:1      A1           waiting  minimal_join"},
		{[]string{"rpc", "alive", o1, "1"}, "true"},
		{[]string{"rpc", "executed", o1, "1", "1"}, "false"},
		{[]string{"rpc", "executed", o1, "1", "7"}, "null"},
		{[]string{"rpc", "wake", "1:1"}, "woke 1 process(es) of session 1"},
		{[]string{"rpc", "kill", "1"}, "session 1 of " + strings.ToLower(o1) + " killed: 1 processes affected"},
		{[]string{"rpc", "alive", o1, "1"}, "false"},
		{[]string{"rpc", "kill", "1"}, "killed: 0 processes affected"},
	} {
		out, code := run(t, append(tc.args, ep...)...)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: %d %q, want %q", tc.args, code, out, tc.want)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"rpc", "wake", "1:1", "--expiry", "6m"}, 1, `"reason":"not-waiting"`}, // the same permit again would be a replay
		{[]string{"rpc", "kill", "x"}, 2, `"x" is not a session id`},
		{[]string{"rpc", "executed", "0xnope", "1", "1"}, 2, "is not an address"},
		{[]string{"rpc", "list", "--runner", o1}, 2, "allow mode needs --runner ADDR and --session N"},
	} {
		out, code := run(t, append(tc.args, ep...)...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("%v: %d %q, want %d %q", tc.args, code, out, tc.code, tc.want)
		}
	}
}

// xgr rpc start and wake sign bound permits by default: a gateway that
// requires them serves them, and refuses the reference's unbound ones
// (--unbound-permits) with unbound-permit.
func TestRPCVerbsSignBoundPermits(t *testing.T) {
	flow := "../../examples/ostc/minimal_join.json"
	o, err := loadOSTC(flow)
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := testenv.DevKeys(1)
	owner := crypto.PubkeyToAddress(keys[0].PublicKey)
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	svc, err := rpc.NewService(rpc.Config{Store: store, Source: reactor.NewStaticSource([]*registry.Orchestration{o}...), Authority: authority.NewChecker(fixedOwner(owner)).WithRules(scriptedRules),
		ChainID: big.NewInt(31337), ControlContract: common.HexToAddress(DefaultPrecompile), RequireBoundPermits: true, AnyRegistry: true})
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := rpc.NewServer(svc, rpc.ServerConfig{})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ep := []string{"--endpoint", hs.URL}
	reg := "0x5FbDB2315678afecb367f032d93F642f64180aa3"
	t.Setenv("XGR_PRIVATE_KEY", "0x"+common.Bytes2Hex(crypto.FromECDSA(keys[0])))
	payload := writeFile(t, "p.json", "{\n  \"big\": 123456789012345678901234567890,\n  \"s\": \"<&>\"\n}\n")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"rpc", "start", flow, "--orchestration", reg, "--payload", payload, "--unbound-permits"}, 1, `"reason":"unbound-permit"`},
		{[]string{"rpc", "start", flow, "--orchestration", reg, "--payload", payload}, 0, "queued: session 1 of"},
		{[]string{"rpc", "wake", "1:1", "--payload", payload, "--unbound-permits"}, 1, `"reason":"unbound-permit"`},
		{[]string{"rpc", "wake", "1:1", "--payload", payload}, 0, "woke 1 process(es) of session 1"},
		{[]string{"rpc", "kill", "1"}, 0, "killed"},
	} {
		out, code := run(t, append(tc.args, ep...)...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("%v: %d %q, want %d %q", tc.args, code, out, tc.code, tc.want)
		}
	}
}
