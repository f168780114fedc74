package registry

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ethereum/go-ethereum/common"
)

// CacheKey names one orchestration on one chain.
type CacheKey struct {
	ChainID  uint64
	Registry common.Address
	OstcID   string
}

func (k CacheKey) String() string {
	return fmt.Sprintf("%d/%s/%s", k.ChainID, k.Registry.Hex(), k.OstcID)
}

// CacheEntry is a verified orchestration: its text hashed to Hash, which is
// the hash the registry reported for Version.
type CacheEntry struct {
	Hash          common.Hash
	Version       uint64
	Orchestration *Orchestration
}

// ErrHashMismatch is returned when an entry's text does not hash to the
// hash it claims; such text is never stored.
var ErrHashMismatch = errors.New("orchestration text does not match its hash")

// Cache is the verified orchestration cache: it only ever serves text whose
// keccak256 equals the hash recorded next to it. The indexer fills it from
// chain events; the reactor reads it before falling back to the chain.
type Cache interface {
	// Get returns the entry and true, or false when the key is not cached.
	Get(ctx context.Context, key CacheKey) (CacheEntry, bool, error)
	// Put stores a verified entry; it returns ErrHashMismatch (and stores
	// nothing) when Hash(entry.Orchestration.Raw()) != entry.Hash.
	Put(ctx context.Context, key CacheKey, entry CacheEntry) error
	// Delete removes the key; deleting a missing key is not an error.
	Delete(ctx context.Context, key CacheKey) error
}

// Verify checks that an entry is internally consistent: its orchestration is
// present and its exact text hashes to the entry's hash.
func (e CacheEntry) Verify() error {
	if e.Orchestration == nil {
		return errors.New("cache entry has no orchestration")
	}
	if got := Hash(e.Orchestration.raw); got != e.Hash {
		return fmt.Errorf("%w: text hashes to %s, entry claims %s", ErrHashMismatch, got.Hex(), e.Hash.Hex())
	}
	return nil
}

// MemoryCache is a bounded, concurrency-safe, in-memory Cache that evicts the
// least recently used entry when full.
type MemoryCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // front = most recently used; values are CacheKey
	items map[CacheKey]memoryItem
}

type memoryItem struct {
	entry CacheEntry
	elem  *list.Element
}

var _ Cache = (*MemoryCache)(nil)

// NewMemoryCache returns a cache holding at most max entries (at least 1).
func NewMemoryCache(max int) *MemoryCache {
	if max < 1 {
		max = 1
	}
	return &MemoryCache{max: max, order: list.New(), items: make(map[CacheKey]memoryItem)}
}

// Get implements Cache.
func (c *MemoryCache) Get(_ context.Context, key CacheKey) (CacheEntry, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	it, ok := c.items[key]
	if !ok {
		return CacheEntry{}, false, nil
	}
	c.order.MoveToFront(it.elem)
	return it.entry, true, nil
}

// Put implements Cache.
func (c *MemoryCache) Put(_ context.Context, key CacheKey, entry CacheEntry) error {
	if err := entry.Verify(); err != nil {
		return fmt.Errorf("cache %s: %w", key, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if it, ok := c.items[key]; ok {
		it.entry = entry
		c.items[key] = it
		c.order.MoveToFront(it.elem)
		return nil
	}
	c.items[key] = memoryItem{entry: entry, elem: c.order.PushFront(key)}
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(CacheKey))
	}
	return nil
}

// Delete implements Cache.
func (c *MemoryCache) Delete(_ context.Context, key CacheKey) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if it, ok := c.items[key]; ok {
		c.order.Remove(it.elem)
		delete(c.items, key)
	}
	return nil
}

// Len returns the number of cached entries.
func (c *MemoryCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}
