// Package toolbin finds the external binaries that tests and dev modes start
// (redis-server, redis-cli, anvil, solcjs, dot, chromium): first an XGR_<NAME>_BIN
// environment override, then the repository's tool folder (.tools/bin, filled
// by `make tools`), then PATH. A missing binary is an error that says how to
// install it, never a silent skip.
package toolbin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// install says how to get each known binary.
var install = map[string]string{
	"redis-server": "run `make tools` (installs the apt package redis-server) or `apt-get install redis-server`",
	"redis-cli":    "run `make tools` (installs the apt package redis-server) or `apt-get install redis-server`",
	"anvil":        "run `make tools` (installs the npm package @foundry-rs/anvil-linux-amd64 into .tools/)",
	"solcjs":       "run `make tools` (installs the npm package solc into .tools/)",
	"dot":          "run `make tools` (installs the apt package graphviz) or `apt-get install graphviz`",
	"chromium":     "run `make tools` (installs the apt package chromium) or `apt-get install chromium`; the console's browser tests drive it headless",
	"node":         "install Node.js with npm (`apt-get install nodejs npm`), then run `make tools` (installs the pinned ethers module into .tools/)",
}

// EnvName is the variable that overrides the location of a binary:
// XGR_REDIS_SERVER_BIN for redis-server.
func EnvName(name string) string {
	return "XGR_" + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(name)) + "_BIN"
}

// Find returns the path of the named binary.
func Find(name string) (string, error) {
	if p := os.Getenv(EnvName(name)); p != "" {
		if isExecutable(p) {
			return p, nil
		}
		return "", fmt.Errorf("%s=%q is not an executable file", EnvName(name), p)
	}
	if dir, err := ToolDir(); err == nil {
		if p := filepath.Join(dir, "bin", name); isExecutable(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	how := install[name]
	if how == "" {
		how = "install it or set " + EnvName(name)
	}
	return "", fmt.Errorf("%s not found (looked at $%s, .tools/bin and PATH): %s", name, EnvName(name), how)
}

// ToolDir returns the repository's .tools folder, found by walking up from
// the working directory to the directory holding go.mod.
func ToolDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, ".tools"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}
