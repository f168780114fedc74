// Command report is `make test`'s first step: it prints where the tests'
// servers run (testenv/provider) and checks that every tool the
// suite needs is present (testenv/preflight). It exits 1, listing
// each missing thing with how to install it, when anything is missing or
// no provider can serve.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/xgr-sidecar/xgr/internal/toolbin"
	"github.com/xgr-sidecar/xgr/testenv/preflight"
	"github.com/xgr-sidecar/xgr/testenv/provider"
)

func main() {
	tools, err := toolbin.ToolDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, "preflight:", err)
		os.Exit(1)
	}
	root := filepath.Dir(tools)
	choice := provider.Current()
	problems := preflight.Check(preflight.Probe{
		Find:         toolbin.Find,
		ReadFile:     func(rel string) ([]byte, error) { return os.ReadFile(filepath.Join(root, rel)) },
		GoVersion:    runtime.Version(),
		LocalServers: choice.Kind == provider.Local,
	})
	if len(problems) == 0 && choice.Err == nil {
		fmt.Fprintln(os.Stderr, "preflight: go, redis-server, anvil, solcjs, node, ethers, dot and chromium found")
		return
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "preflight: %d thing(s) the tests need are missing; on Debian `make tools` installs them (apt: redis-server graphviz chromium systemd; npm: anvil, solc and ethers into .tools/) given Go and Node.js with npm (apt: nodejs npm):\n", len(problems))
		for _, p := range problems {
			fmt.Fprintln(os.Stderr, "  -", p)
		}
	}
	os.Exit(1)
}
