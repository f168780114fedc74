package anvil

import (
	"context"
	"net"
	"testing"

	"github.com/xgr-sidecar/xgr/internal/toolbin"
)

// Start retries on another port when anvil reports its port taken; this
// checks that anvil's report is recognised as such.
func TestTakenPortIsRecognised(t *testing.T) {
	bin, err := toolbin.Find("anvil")
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	p, err := start(context.Background(), bin, l.Addr().(*net.TCPAddr).Port)
	if err == nil {
		p.Stop()
	}
	if err == nil || !portTaken(err) {
		t.Fatalf("anvil on a taken port: %v; want an error portTaken recognises", err)
	}
}

func TestStartAndStop(t *testing.T) {
	p, err := Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p.ChainID == nil || p.ChainID.Sign() <= 0 {
		t.Errorf("chain id %v", p.ChainID)
	}
	p.Stop()
	p.Stop() // a second Stop does nothing
}
