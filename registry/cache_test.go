package registry

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

func entryFor(t testing.TB, id string) CacheEntry {
	o, err := Parse([]byte(doc(`"` + id + `":{"rule":"x"}`)))
	if err != nil {
		t.Fatal(err)
	}
	return CacheEntry{Hash: o.Hash, Version: 1, Orchestration: o}
}

func TestMemoryCache(t *testing.T) {
	ctx := context.Background()
	c := NewMemoryCache(2)
	key := func(id string) CacheKey {
		return CacheKey{ChainID: 1, Registry: common.HexToAddress("0x01"), OstcID: id}
	}

	if _, ok, err := c.Get(ctx, key("a")); ok || err != nil {
		t.Fatalf("empty cache hit: %v %v", ok, err)
	}
	a, b, d := entryFor(t, "A"), entryFor(t, "B"), entryFor(t, "D")
	for id, e := range map[string]CacheEntry{"a": a, "b": b} {
		if err := c.Put(ctx, key(id), e); err != nil {
			t.Fatal(err)
		}
	}
	if got, ok, _ := c.Get(ctx, key("a")); !ok || got.Hash != a.Hash { // a is now most recent
		t.Fatalf("Get(a) = %v %v", got, ok)
	}
	if err := c.Put(ctx, key("d"), d); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := c.Get(ctx, key("b")); ok {
		t.Errorf("least recently used entry b was not evicted")
	}
	if c.Len() != 2 {
		t.Errorf("Len = %d, want 2", c.Len())
	}

	// Text that does not hash to the claimed hash is never stored.
	bad := a
	bad.Hash = common.HexToHash("0xbad")
	if err := c.Put(ctx, key("x"), bad); !errors.Is(err, ErrHashMismatch) {
		t.Fatalf("Put with a wrong hash: %v", err)
	}
	if _, ok, _ := c.Get(ctx, key("x")); ok {
		t.Fatalf("mismatched entry was stored")
	}
	if err := c.Put(ctx, key("y"), CacheEntry{Hash: a.Hash}); err == nil {
		t.Fatalf("entry without orchestration accepted")
	}

	// Replacing keeps one entry; delete is idempotent.
	a2 := a
	a2.Version = 2
	_ = c.Put(ctx, key("a"), a2)
	if got, _, _ := c.Get(ctx, key("a")); got.Version != 2 {
		t.Errorf("replace: version %d", got.Version)
	}
	for i := 0; i < 2; i++ {
		if err := c.Delete(ctx, key("a")); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, _ := c.Get(ctx, key("a")); ok {
		t.Errorf("deleted entry still served")
	}
}

func TestMemoryCacheConcurrent(t *testing.T) {
	ctx := context.Background()
	c := NewMemoryCache(16)
	e := entryFor(t, "A")
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				k := CacheKey{ChainID: uint64(g), OstcID: fmt.Sprint(i % 20)}
				_ = c.Put(ctx, k, e)
				_, _, _ = c.Get(ctx, k)
				if i%7 == 0 {
					_ = c.Delete(ctx, k)
				}
			}
		}(g)
	}
	wg.Wait()
	if c.Len() > 16 {
		t.Fatalf("cache grew past its bound: %d", c.Len())
	}
}
