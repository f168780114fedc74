package rulesource

import (
	"context"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

type fakeCache map[common.Address][2]string // text, hash

func (f fakeCache) Rule(_ context.Context, a common.Address) (string, common.Hash, bool, error) {
	e, ok := f[a]
	return e[0], common.HexToHash(e[1]), ok, nil
}

// A rule the indexer caches is served without touching the chain; a cached
// text that does not hash to its recorded hash is refused.
func TestChainServesFromTheRuleCache(t *testing.T) {
	text := `{"payload":{},"rules":[],"onValid":{"payload":{"v":"1"}}}`
	good, bad := common.HexToAddress("0x01"), common.HexToAddress("0x02")
	c := NewChain(nil) // no backend: any chain read would panic
	c.Cache = fakeCache{
		good: {text, crypto.Keccak256Hash([]byte(text)).Hex()},
		bad:  {text, common.Hash{1}.Hex()},
	}
	l, err := c.Load(context.Background(), good.Hex())
	if err != nil || l.Doc == nil || l.Origin != "XRC-137 "+good.Hex()+" (cached)" {
		t.Fatalf("cached rule: %+v %v", l, err)
	}
	if _, err := c.Load(context.Background(), bad.Hex()); !errors.Is(err, ErrHashMismatch) {
		t.Fatalf("mismatching cache entry: %v", err)
	}
}
