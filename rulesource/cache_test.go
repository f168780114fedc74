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

// openerFunc is an Opener from a function.
type openerFunc func(ctx context.Context, contract common.Address, blob string) ([]byte, error)

func (f openerFunc) OpenRule(ctx context.Context, contract common.Address, blob string) ([]byte, error) {
	return f(ctx, contract, blob)
}

// A sealed rule the indexer caches is opened like one read from chain:
// refused without an opener, opened with one, and opened again at every
// load.
func TestChainOpensSealedRulesFromTheRuleCache(t *testing.T) {
	text := `{"payload":{},"rules":[],"onValid":{"payload":{"v":"1"}}}`
	blob := "XGR1.AESGCM256.0x" + common.Hash{7}.Hex()[2:] + ".AAAA"
	addr := common.HexToAddress("0x01")
	c := NewChain(nil)
	c.Cache = fakeCache{addr: {blob, crypto.Keccak256Hash([]byte(blob)).Hex()}}
	if _, err := c.Load(context.Background(), addr.Hex()); !errors.Is(err, ErrEncrypted) {
		t.Fatalf("no opener: %v", err)
	}
	opened := 0
	c.Opener = openerFunc(func(_ context.Context, contract common.Address, b string) ([]byte, error) {
		if contract != addr || b != blob {
			t.Errorf("opener got %s %q", contract.Hex(), b)
		}
		opened++
		if opened > 2 {
			return nil, ErrNoGrant
		}
		return []byte(text), nil
	})
	for i := 0; i < 2; i++ {
		if l, err := c.Load(context.Background(), addr.Hex()); err != nil || l.Doc.Hash != crypto.Keccak256Hash([]byte(text)) {
			t.Fatalf("load %d: %+v %v", i, l, err)
		}
	}
	if _, err := c.Load(context.Background(), addr.Hex()); !errors.Is(err, ErrNoGrant) || opened != 3 {
		t.Fatalf("grant gone: %v (opened %d times)", err, opened)
	}
}
