package chain_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/testenv"
)

func TestDialFailsClearly(t *testing.T) {
	ctx := context.Background()
	if _, _, err := chain.Dial(ctx, ""); err == nil || !strings.Contains(err.Error(), "XGR_RPC") {
		t.Fatalf("empty URL: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, _, err := chain.Dial(ctx, "http://127.0.0.1:1"); err == nil || !strings.Contains(err.Error(), "does not answer") {
		t.Fatalf("closed port: %v", err)
	}
	a := testenv.StartAnvil(t)
	c, id, err := chain.Dial(ctx, a.URL)
	if err != nil || id.Int64() != 31337 {
		t.Fatalf("Dial(anvil) = %v, %v", id, err)
	}
	c.Close()
}
