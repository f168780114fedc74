package anvil

import (
	"context"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/internal/toolbin"
)

func TestStartAndStop(t *testing.T) {
	p, err := Start(context.Background())
	if err != nil {
		t.Fatalf("start anvil: %v", err)
	}
	if p.ChainID.Int64() != 31337 || !strings.HasPrefix(p.URL, "http://127.0.0.1:") {
		t.Errorf("chain %v at %s", p.ChainID, p.URL)
	}
	p.Stop()
	p.Stop() // a second stop does nothing
	select {
	case <-p.exited:
	default:
		t.Fatal("anvil still running after Stop")
	}
}

func TestMissingBinarySaysHowToInstall(t *testing.T) {
	t.Setenv(toolbin.EnvName("anvil"), "/nonexistent/anvil")
	if _, err := Start(context.Background()); err == nil || !strings.Contains(err.Error(), "XGR_ANVIL_BIN") {
		t.Fatalf("want an error naming the override, got %v", err)
	}
	t.Setenv(toolbin.EnvName("anvil"), "")
	t.Setenv("PATH", t.TempDir())
	t.Chdir(t.TempDir()) // no .tools above
	if _, err := Start(context.Background()); err == nil || !strings.Contains(err.Error(), "make tools") {
		t.Fatalf("want an error saying `make tools`, got %v", err)
	}
}
