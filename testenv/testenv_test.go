package testenv

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/devnet"
	"github.com/xgr-sidecar/xgr/internal/toolbin"
	"github.com/xgr-sidecar/xgr/testenv/provider"
)

// The first account of the development mnemonic, as published by every
// Ethereum dev chain (anvil, hardhat): a fixed point for the derivation.
const firstDevAccount = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"

func TestDevKeysDeriveTheWellKnownFirstAccount(t *testing.T) {
	keys, err := DevKeys(2)
	if err != nil {
		t.Fatal(err)
	}
	if got := chain.Address(keys[0]); got != common.HexToAddress(firstDevAccount) {
		t.Fatalf("account 0 = %s, want %s", got.Hex(), firstDevAccount)
	}
	if chain.Address(keys[0]) == chain.Address(keys[1]) {
		t.Fatal("accounts 0 and 1 are equal")
	}
}

func TestAnvilFundsTheDerivedAccounts(t *testing.T) {
	eachProvider(t, []string{"anvil"}, func(t *testing.T, k provider.Kind) { checkAnvil(t, startAnvil(t, k)) })
}

func checkAnvil(t *testing.T, a *Anvil) {
	ctx := context.Background()
	var accounts []common.Address
	if err := a.Client.Client().CallContext(ctx, &accounts, "eth_accounts"); err != nil {
		t.Fatal(err)
	}
	if len(accounts) != DevAccounts {
		t.Fatalf("anvil has %d accounts, want %d", len(accounts), DevAccounts)
	}
	for i, acc := range accounts {
		if acc != a.Address(i) {
			t.Errorf("anvil account %d = %s, derived %s", i, acc.Hex(), a.Address(i).Hex())
		}
	}
	bal, err := a.Client.BalanceAt(ctx, a.Address(DevAccounts-1), nil)
	if err != nil || bal.Cmp(devnet.Balance) != 0 {
		t.Fatalf("balance of the last account = %v, %v; want %v", bal, err, devnet.Balance)
	}
	if !strings.HasPrefix(a.URL, "http://127.0.0.1:") {
		t.Fatalf("URL %q is not on loopback", a.URL)
	}
	if a.ChainID().Int64() != 31337 {
		t.Fatalf("chain id %v, want 31337", a.ChainID())
	}
	before, _ := a.Client.BlockNumber(ctx)
	a.Mine(t, 3)
	if after, _ := a.Client.BlockNumber(ctx); after != before+3 {
		t.Fatalf("mined 3 blocks: head %d -> %d", before, after)
	}
	if !strings.Contains(a.Log(), "Listening on") {
		t.Errorf("anvil log lacks its listening line:\n%s", a.Log())
	}
}

func TestMissingAnvilSaysHowToInstall(t *testing.T) {
	t.Setenv(toolbin.EnvName("anvil"), "/nonexistent/anvil")
	ft := &fatalRecorder{TB: t}
	func() {
		defer func() { _ = recover() }()
		startAnvil(ft, provider.Local)
	}()
	if !ft.failed || !strings.Contains(ft.msg, "make tools") && !strings.Contains(ft.msg, "not an executable") {
		t.Fatalf("StartAnvil without a binary: failed=%v msg=%q; want a failure naming the fix", ft.failed, ft.msg)
	}
}

func TestDeployHelpersOnBothChains(t *testing.T) {
	chains := map[string]func(t *testing.T) Chain{
		"anvil": func(t *testing.T) Chain { return StartAnvil(t) },
		"sim":   func(t *testing.T) Chain { return StartSim(t) },
	}
	for name, start := range chains {
		t.Run(name, func(t *testing.T) {
			c := start(t)
			ctx := context.Background()
			reg, r := DeployXRC729(t, c, chain.RegistryInit{IDs: []string{"a"}, JSONs: [][]byte{[]byte(`{"id":"a"}`)}})
			if r.Status != 1 || reg.Address != r.ContractAddress {
				t.Fatalf("deploy receipt status %d, address %s vs %s", r.Status, reg.Address.Hex(), r.ContractAddress.Hex())
			}
			owner, err := reg.Owner(ctx)
			if err != nil || owner != c.Address(0) {
				t.Fatalf("owner = %s, %v; want %s", owner.Hex(), err, c.Address(0).Hex())
			}
			got, err := reg.Get(ctx, "a")
			if err != nil || string(got) != `{"id":"a"}` {
				t.Fatalf("getOSTC(a) = %q, %v", got, err)
			}
			rule, w := DeployXRC137(t, c, `{"x":1}`)
			if w.Version != 1 {
				t.Fatalf("rule version after deploy = %d, want 1", w.Version)
			}
			info, err := rule.Info(ctx)
			if err != nil || info.Text != `{"x":1}` {
				t.Fatalf("rule info = %+v, %v", info, err)
			}
			if rc := Receipt(t, c, w.Receipt.TxHash); rc.BlockNumber.Cmp(w.Receipt.BlockNumber) != 0 {
				t.Fatalf("Receipt found block %v, deploy reported %v", rc.BlockNumber, w.Receipt.BlockNumber)
			}
		})
	}
}

// fatalRecorder captures Fatalf instead of ending the test.
type fatalRecorder struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.failed = true
	f.msg = strings.TrimSpace(fmt.Sprintf(format, args...))
	panic("fatal")
}

func (f *fatalRecorder) Helper() {}
