package contracts_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/contracts/metareader"
	"github.com/xgr-sidecar/xgr/internal/chain"
	"github.com/xgr-sidecar/xgr/internal/testenv"
)

var metaReader = metareader.NewMetaReader()

// deployless is the data of an eth_call without `to` that runs MetaReader's
// constructor over the given reads.
func deployless(regs []common.Address, ids []string) []byte {
	return append(common.FromHex(metareader.MetaReaderMetaData.Bin), metaReader.PackConstructor(regs, ids)...)
}

// Run without being deployed, MetaReader answers every getOSTCMeta of an
// XRC-729 registry with exactly the registry's return data, and marks as
// not ok every read that does not return three words: a missing id, an
// account without code, a contract of another kind.
func TestMetaReaderDeployless(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	g, _ := testenv.DeployXRC729(t, a, chain.RegistryInit{IDs: []string{"a", "b"}, JSONs: [][]byte{[]byte(`{"a":1}`), []byte(`{"b":2}`)}})
	rule, _ := testenv.DeployXRC137(t, a, `{"payload":{},"rules":[]}`)
	regs := []common.Address{g.Address, a.Address(3), g.Address, rule.Address, g.Address}
	ids := []string{"a", "a", "missing", "a", "b"}
	out, err := a.Client.CallContract(ctx, ethereum.CallMsg{Data: deployless(regs, ids)}, nil)
	if err != nil {
		t.Fatalf("eth_call without to: %v", err)
	}
	answers, err := metaReader.UnpackRead(out)
	if err != nil || len(answers) != len(ids) {
		t.Fatalf("answers %v, %v", answers, err)
	}
	for i, want := range []bool{true, false, false, false, true} {
		if answers[i].Ok != want {
			t.Fatalf("read %d (%s at %s): ok %v, want %v", i, ids[i], regs[i].Hex(), answers[i].Ok, want)
		}
		if !want {
			if answers[i].Words != [3][32]byte{} {
				t.Fatalf("read %d is not ok but carries words %x", i, answers[i].Words)
			}
			continue
		}
		direct := must(reg729.Instance(a.Client, g.Address).CallRaw(nil, reg729.PackGetOSTCMeta(ids[i])))(t)
		w := answers[i].Words
		if got := bytes.Join([][]byte{w[0][:], w[1][:], w[2][:]}, nil); !bytes.Equal(got, direct) {
			t.Fatalf("read %d: words %x, getOSTCMeta returns %x", i, got, direct)
		}
	}
	if code, _ := a.Client.PendingCodeAt(ctx, common.Address{}); len(code) != 0 {
		t.Fatal("something was deployed")
	}
	_, err = a.Client.CallContract(ctx, ethereum.CallMsg{Data: deployless(regs[:1], ids)}, nil)
	if re, ok := chain.AsRevert("MetaReader", err); !ok || re.Reason != "MetaReader: length mismatch" {
		t.Fatalf("registries and ids of different lengths: %v", err)
	}
}

// A call of chain.MetasPerCall reads with long ids stays far below a block
// gas limit (30 million on anvil) and its answer below the 24,576-byte code
// size limit the constructor's return is subject to.
func TestMetaReaderFullCallFits(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	n := chain.MetasPerCall
	ids := make([]string, n)
	docs := make([][]byte, n)
	regs := make([]common.Address, n)
	for i := range ids {
		ids[i], docs[i] = fmt.Sprintf("%s-%03d", strings.Repeat("x", 60), i), []byte(`{}`)
	}
	g, _ := testenv.DeployXRC729(t, a, chain.RegistryInit{IDs: ids[:n/2], JSONs: docs[:n/2]})
	for i := range regs {
		regs[i] = g.Address // half of the ids are missing: those reads revert
	}
	msg := ethereum.CallMsg{Data: deployless(regs, ids)}
	out, err := a.Client.CallContract(ctx, msg, nil)
	if err != nil {
		t.Fatal(err)
	}
	answers, err := metaReader.UnpackRead(out)
	if err != nil || len(answers) != n || !answers[0].Ok || answers[n-1].Ok {
		t.Fatalf("%d answers, %v", len(answers), err)
	}
	if len(out) > 24576 {
		t.Fatalf("the answer is %d bytes, over the code size limit", len(out))
	}
	gas, err := a.Client.EstimateGas(ctx, msg)
	if err != nil || gas > 10_000_000 {
		t.Fatalf("a full call takes %d gas (%v); keep it well under the block gas limit", gas, err)
	}
	t.Logf("%d reads: %d gas, %d bytes of data, %d bytes of answer", n, gas, len(msg.Data), len(out))
}
