package main

import (
	"context"
	"io"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
)

// xgr dev checks every port before it deploys anything: a taken one exits
// 2 naming its flag and variable.
func TestDevChecksPortsFirst(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	taken := l.Addr().String()
	for _, tc := range []struct{ flag, env string }{{"listen", "XGR_LISTEN"}, {"rpc-listen", "XGR_RPC_LISTEN"}, {"chain-listen", "XGR_DEV_CHAIN_LISTEN"}} {
		args := append(devArgs(), "--"+tc.flag, taken)
		_, stderr, code := runBinary(t, nil, args...)
		want := "dev: --" + tc.flag + " " + taken + " (" + tc.env + "): listen tcp " + taken + ": bind: address already in use"
		if code != 2 || !strings.Contains(stderr, want) || strings.Contains(stderr, "registry") {
			t.Errorf("--%s on a taken port: exit %d, want 2 with %q before anything is deployed:\n%s", tc.flag, code, want, stderr)
		}
	}
}

// xgr dev serves its chain's JSON-RPC on the port it prints: the registry
// it deployed is there for wallets and scripts.
func TestDevServesItsChain(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- runApp(ctx, newApp(&out, io.Discard), append([]string{"xgr"}, devArgs("--orders", "0", "--wake-flow=false")...))
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("xgr dev: %v", err)
		}
	}()
	urlRe := regexp.MustCompile(`the chain's JSON-RPC is (http://127\.0\.0\.1:\d+)`)
	regRe := regexp.MustCompile(`registry (0x[0-9a-fA-F]{40})`)
	waitFor(t, 60*time.Second, "the chain's JSON-RPC URL", &out, func() bool { return urlRe.MatchString(out.String()) })
	url, reg := urlRe.FindStringSubmatch(out.String())[1], regRe.FindStringSubmatch(out.String())
	if reg == nil {
		t.Fatalf("no registry address printed:\n%s", out.String())
	}
	cl, err := ethclient.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	code, err := cl.CodeAt(ctx, common.HexToAddress(reg[1]), nil)
	if id, _ := cl.ChainID(ctx); err != nil || len(code) == 0 || id == nil || id.Int64() != 1337 {
		t.Fatalf("over %s: chain %v, %d bytes of code at the registry %s (%v)", url, id, len(code), reg[1], err)
	}
}
