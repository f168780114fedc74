package rulesource_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/testenv"
)

const runConfig = `registries: ["0x5FbDB2315678afecb367f032d93F642f64180aa3"]
# rule contracts of the test-suite bundle
addresses:
  FEED: "0x00000000000000000000000000000000000000aa"   # ${addr:FEED}
  Iterationstep-Addr: "0x00000000000000000000000000000000000000bb"
  "<Quorum-Addr>": "0x00000000000000000000000000000000000000cc"

finality: confirmations
`

// The operator's config binds the references the public test-suite
// bundles and examples write (${addr:ALIAS}; <Iterationstep-Addr> in the
// published IterationOfPi orchestration); the rest of the file is left for
// the indexer's reader with its line numbers unchanged.
func TestParseAddresses(t *testing.T) {
	addrs, rest, err := rulesource.ParseAddresses("run.yaml", []byte(runConfig))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"FEED": "0x00000000000000000000000000000000000000aa", "Iterationstep-Addr": "0x00000000000000000000000000000000000000bb", "Quorum-Addr": "0x00000000000000000000000000000000000000cc"}
	if len(addrs) != len(want) {
		t.Fatalf("bindings: %v", addrs)
	}
	for name, a := range want {
		if addrs[name] != common.HexToAddress(a) {
			t.Errorf("%s = %s, want %s", name, addrs[name].Hex(), a)
		}
	}
	lines := strings.Split(string(rest), "\n")
	if len(lines) != strings.Count(runConfig, "\n")+1 || lines[0] != strings.Split(runConfig, "\n")[0] || lines[7] != "finality: confirmations" || strings.Contains(string(rest), "addresses") || strings.Contains(string(rest), "0x00000000000000000000000000000000000000aa") {
		t.Errorf("rest of the config:\n%s", rest)
	}
	for doc, msg := range map[string]string{
		"addresses:\n  FEED: 0x1234\n":                                             `run.yaml:2:9: addresses.FEED: expected a 0x address (40 hex digits), found "0x1234"`,
		"addresses:\n  bad name: \"0x00000000000000000000000000000000000000aa\"\n": `run.yaml:2:3: addresses.bad name: "bad name" is not a rule name`,
		"addresses: [1]\n": "run.yaml:1:12: addresses: expected a mapping",
		"addresses:\n  A: \"0x00000000000000000000000000000000000000aa\"\n  <A>: \"0x00000000000000000000000000000000000000bb\"\n": `"A" is bound twice`,
	} {
		if _, _, err := rulesource.ParseAddresses("run.yaml", []byte(doc)); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want %q", doc, err, msg)
		}
	}
	if addrs, rest, err := rulesource.ParseAddresses("run.yaml", []byte("window: 64\n")); err != nil || addrs != nil || string(rest) != "window: 64\n" {
		t.Errorf("no section: %v %q %v", addrs, rest, err)
	}
}

// xgr run resolves ${addr:ALIAS} and <NAME> rule references through the
// config's addresses (issue 28.8), reads the bound contract, and refuses an
// unbound alias by name.
func TestLoaderResolvesAliasesFromConfig(t *testing.T) {
	sim := testenv.StartSim(t)
	r, w := testenv.DeployXRC137(t, sim, v1)
	l := &rulesource.Loader{Chain: rulesource.NewChain(sim.Backend()), Addresses: rulesource.Addresses{"FEED": r.Address, "Iterationstep-Addr": r.Address}}
	ctx := context.Background()
	for _, ref := range []string{"${addr:FEED}", "<Iterationstep-Addr>"} {
		got, err := l.Load(ctx, ref)
		if err != nil || got.Doc.Hash != w.Hash || got.Address != r.Address || got.Ref != ref {
			t.Errorf("%s: %+v, %v", ref, got, err)
		}
	}
	_, err := l.Load(ctx, "${addr:PRICE}")
	if !errors.Is(err, rulesource.ErrUnbound) || !errors.Is(err, rulesource.ErrNotCovered) || !strings.Contains(err.Error(), `names "PRICE", which the addresses: section of the config (--config) does not bind`) {
		t.Errorf("unbound alias: %v", err)
	}
	noChain := &rulesource.Loader{Addresses: rulesource.Addresses{"FEED": r.Address}}
	if _, err := noChain.Load(ctx, "${addr:FEED}"); err == nil || errors.Is(err, rulesource.ErrNotCovered) || !strings.Contains(err.Error(), "no chain backend") {
		t.Errorf("bound without a chain: %v", err)
	}
}
