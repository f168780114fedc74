package devnet

import (
	"context"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
)

// WithHTTP serves the chain over JSON-RPC: a transaction a client sends
// there is mined, and a port that is taken is refused before anything runs.
func TestServesJSONRPC(t *testing.T) {
	c, err := New(WithHTTP("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !strings.HasPrefix(c.URL, "http://127.0.0.1:") {
		t.Fatalf("URL %q", c.URL)
	}
	ctx := context.Background()
	cl, err := ethclient.Dial(c.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	id, err := cl.ChainID(ctx)
	if err != nil || id.Int64() != 1337 {
		t.Fatalf("chain id %v %v", id, err)
	}
	from := c.Address(1)
	nonce, _ := cl.PendingNonceAt(ctx, from)
	tip := big.NewInt(1e9)
	head, _ := cl.HeaderByNumber(ctx, nil)
	tx, err := types.SignNewTx(c.Key(1), types.LatestSignerForChainID(id), &types.DynamicFeeTx{ChainID: id, Nonce: nonce, GasTipCap: tip,
		GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip), Gas: 21000, To: &from, Value: big.NewInt(1)})
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if r, err := cl.TransactionReceipt(ctx, tx.Hash()); err == nil && r.Status == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a transaction sent over JSON-RPC was not mined within 5s")
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := New(WithHTTP(l.Addr().String())); err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("a taken port: %v", err)
	}
}
