// Package preflight checks, before `make test` compiles anything heavy,
// that everything the test suite needs is present: the Go toolchain go.mod
// asks for, redis-server and redis-cli, anvil, solc-js, node with the
// pinned ethers module, graphviz's dot and chromium. It answers within
// seconds and lists every missing thing with how to install it, instead of
// a run of minutes that fails a dozen packages one by one.
//
// The decision is pure (Check over a Probe); the report command under
// report/ wires the real file system, PATH and toolchain.
package preflight

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Probe is what Check may ask of the machine.
type Probe struct {
	// Find locates a binary the way internal/toolbin does (XGR_<NAME>_BIN,
	// .tools/bin, PATH) and returns an error naming how to install it.
	Find func(name string) (string, error)
	// ReadFile reads a file relative to the repository root.
	ReadFile func(rel string) ([]byte, error)
	// GoVersion is the running toolchain, as runtime.Version ("go1.26.8").
	GoVersion string
	// LocalServers is true when the tests' Redis cluster comes from local
	// binaries (provider local); redis-cli is then needed as well.
	LocalServers bool
}

// Problem is one missing or unusable requirement.
type Problem struct {
	// What names the requirement ("anvil", "ethers", "go").
	What string
	// Detail says what is wrong and how to install it.
	Detail string
}

func (p Problem) String() string { return p.What + ": " + p.Detail }

// Binaries lists the binaries every run of the suite needs and which
// tests need them; redis-cli is added for the local provider.
var Binaries = []struct{ Name, UsedBy string }{
	{"redis-server", "every Redis test and xgr's private servers (dev, simulate, scenario run, bench)"},
	{"anvil", "the chain tests, xgr dev and the documentation checks"},
	{"solcjs", "xgr scenario run (compiles setup contracts)"},
	{"node", "the ethers.js permit cross-checks and solc-js"},
	{"dot", "the graph test of xgr ostc graph"},
	{"chromium", "the console's browser tests (headless, no chromedriver)"},
	{"systemd-analyze", "the checks of deploy/systemd/xgr.service (verify, security rating)"},
}

// binariesFor is Binaries, with redis-cli after redis-server when the
// servers are local.
func binariesFor(local bool) []struct{ Name, UsedBy string } {
	out := make([]struct{ Name, UsedBy string }, 0, len(Binaries)+1)
	for _, b := range Binaries {
		out = append(out, b)
		if b.Name == "redis-server" && local {
			out = append(out, struct{ Name, UsedBy string }{"redis-cli", "the 3-master cluster of the local provider"})
		}
	}
	return out
}

// Check returns every problem found, in a fixed order; none means the
// suite can run.
func Check(p Probe) []Problem {
	var out []Problem
	if pr := checkGo(p); pr != nil {
		out = append(out, *pr)
	}
	for _, b := range binariesFor(p.LocalServers) {
		if _, err := p.Find(b.Name); err != nil {
			out = append(out, Problem{What: b.Name, Detail: err.Error() + " (needed by " + b.UsedBy + ")"})
		}
	}
	if pr := checkEthers(p); pr != nil {
		out = append(out, *pr)
	}
	return out
}

var goLine = regexp.MustCompile(`(?m)^go\s+(\d+(?:\.\d+){0,2})\s*$`)

// checkGo compares the running toolchain with go.mod's go line.
func checkGo(p Probe) *Problem {
	mod, err := p.ReadFile("go.mod")
	if err != nil {
		return &Problem{"go", "cannot read go.mod: " + err.Error()}
	}
	m := goLine.FindSubmatch(mod)
	if m == nil {
		return &Problem{"go", "go.mod has no go line"}
	}
	want := string(m[1])
	if compareVersions(strings.TrimPrefix(p.GoVersion, "go"), want) < 0 {
		return &Problem{"go", fmt.Sprintf("the toolchain is %s, go.mod asks for go %s: install it from https://go.dev/dl (or let GOTOOLCHAIN=auto fetch it)", p.GoVersion, want)}
	}
	return nil
}

var ethersPin = regexp.MustCompile(`(?m)^ETHERS_VERSION=(\S+)$`)
var versionField = regexp.MustCompile(`"version"\s*:\s*"([^"]+)"`)

// checkEthers looks for the ethers module pinned by scripts/install-tools.sh
// in .tools/npm/node_modules (what testenv.Ethers loads).
func checkEthers(p Probe) *Problem {
	script, err := p.ReadFile("scripts/install-tools.sh")
	if err != nil {
		return &Problem{"ethers", "cannot read scripts/install-tools.sh: " + err.Error()}
	}
	m := ethersPin.FindSubmatch(script)
	if m == nil {
		return &Problem{"ethers", "scripts/install-tools.sh pins no ETHERS_VERSION"}
	}
	pinned := string(m[1])
	manifest, err := p.ReadFile(".tools/npm/node_modules/ethers/package.json")
	if err != nil {
		return &Problem{"ethers", fmt.Sprintf("ethers %s is not installed in .tools/npm/node_modules: run `make tools` (npm install of the pinned module; needs npm, apt package npm)", pinned)}
	}
	v := versionField.FindSubmatch(manifest)
	if v == nil || string(v[1]) != pinned {
		got := "no version"
		if v != nil {
			got = string(v[1])
		}
		return &Problem{"ethers", fmt.Sprintf("ethers in .tools/npm/node_modules is %s, scripts/install-tools.sh pins %s: run `make tools`", got, pinned)}
	}
	return nil
}

// compareVersions compares dotted numeric versions ("1.26.8", "1.26");
// a pre-release suffix ("1.27rc1") counts as its numeric prefix.
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) || i < len(bs); i++ {
		x, y := num(as, i), num(bs, i)
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

func num(parts []string, i int) int {
	if i >= len(parts) {
		return 0
	}
	s := parts[i]
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, _ := strconv.Atoi(s[:end])
	return n
}
