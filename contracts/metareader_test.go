package contracts_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/contracts/metareader"
	"github.com/xgr-sidecar/xgr/testenv"
)

var metaReader = metareader.NewMetaReader()

// deployless is the data of an eth_call without `to` that runs MetaReader's
// constructor over the given reads, packed as the contract documents.
func deployless(regs []common.Address, ids []string) []byte {
	var packed []byte
	for i, r := range regs {
		packed = append(append(append(packed, r[:]...), byte(len(ids[i])>>8), byte(len(ids[i]))), ids[i]...)
	}
	return append(common.FromHex(metareader.MetaReaderMetaData.Bin), metaReader.PackConstructor(packed)...)
}

// Run without being deployed, MetaReader answers every getOSTCMeta of an
// XRC-729 registry with the hash the registry returns, and with zero every
// read that does not return three words: a missing id, an account without
// code, a contract of another kind.
func TestMetaReaderDeployless(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	long := strings.Repeat("ü", 300) // 600 bytes: an id over two words, not ASCII
	g, _ := testenv.DeployXRC729(t, a, chain.RegistryInit{IDs: []string{"a", "b", long}, JSONs: [][]byte{[]byte(`{"a":1}`), []byte(`{"b":2}`), []byte(`{"l":3}`)}})
	rule, _ := testenv.DeployXRC137(t, a, `{"payload":{},"rules":[]}`)
	regs := []common.Address{g.Address, a.Address(3), g.Address, rule.Address, g.Address, g.Address}
	ids := []string{"a", "a", "missing", "a", long, "b"}
	out, err := a.Client.CallContract(ctx, ethereum.CallMsg{Data: deployless(regs, ids)}, nil)
	if err != nil {
		t.Fatalf("eth_call without to: %v", err)
	}
	hashes, err := metaReader.UnpackRead(out)
	if err != nil || len(hashes) != len(ids) {
		t.Fatalf("answer %v, %v", hashes, err)
	}
	for i, ok := range []bool{true, false, false, false, true, true} {
		if !ok {
			if hashes[i] != ([32]byte{}) {
				t.Fatalf("read %d (%s at %s) answered %x, want zero", i, ids[i], regs[i].Hex(), hashes[i])
			}
			continue
		}
		direct := must(reg729.Instance(a.Client, g.Address).CallRaw(nil, reg729.PackGetOSTCMeta(ids[i])))(t)
		if !bytes.Equal(hashes[i][:], direct[:32]) {
			t.Fatalf("read %d: hash %x, getOSTCMeta returns %x", i, hashes[i], direct)
		}
	}
	// No reads: an empty answer.
	out, err = a.Client.CallContract(ctx, ethereum.CallMsg{Data: deployless(nil, nil)}, nil)
	if hashes, uerr := metaReader.UnpackRead(out); err != nil || uerr != nil || len(hashes) != 0 {
		t.Fatalf("no reads: %v %v %v", hashes, err, uerr)
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
	hashes, err := metaReader.UnpackRead(out)
	if err != nil || len(hashes) != n || hashes[0] == ([32]byte{}) || hashes[n-1] != ([32]byte{}) {
		t.Fatalf("%d answers, %v", len(hashes), err)
	}
	if len(out) > 24576 {
		t.Fatalf("the answer is %d bytes, over the code size limit", len(out))
	}
	gas, err := a.Client.EstimateGas(ctx, msg)
	if err != nil || gas > 5_000_000 {
		t.Fatalf("a full call takes %d gas (%v); keep it well under the block gas limit", gas, err)
	}
	t.Logf("%d reads: %d gas, %d bytes of data, %d bytes of answer", n, gas, len(msg.Data), len(out))
}
