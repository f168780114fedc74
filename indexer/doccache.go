package indexer

import (
	"container/list"
	"sync"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/registry"
)

// doc is an orchestration text whose keccak256 is its key, with what the
// indexer derives from it: whether it parses, the problems if not, and the
// XRC-137 rules its steps name.
type doc struct {
	text     string
	valid    bool
	problems string
	rules    []common.Address
}

// newDoc parses text once for everything the indexer needs from it.
func newDoc(text string) *doc {
	d := &doc{text: text, valid: true}
	o, err := registry.Parse([]byte(text))
	if err != nil {
		d.valid, d.problems = false, err.Error()
		return d
	}
	for _, s := range o.Steps {
		if common.IsHexAddress(s.Rule) {
			d.rules = append(d.rules, common.HexToAddress(s.Rule))
		}
	}
	return d
}

// docCache keeps verified orchestration texts by their hash, so a text
// that many entries share (or that a later version restores) is read from
// the chain and parsed once. Only text whose keccak256 equals its key goes
// in. It holds at most maxBytes of text, evicting the least recently used;
// it is safe for concurrent use.
type docCache struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int
	order    *list.List // front = most recently used; values are common.Hash
	items    map[common.Hash]docItem
}

type docItem struct {
	doc  *doc
	elem *list.Element
}

// defaultDocCacheBytes bounds the texts the follower remembers (32 MiB:
// 128 orchestrations at the 256 KiB cap, thousands of typical ones).
const defaultDocCacheBytes = 32 << 20

func newDocCache(maxBytes int) *docCache {
	return &docCache{maxBytes: maxBytes, order: list.New(), items: map[common.Hash]docItem{}}
}

// get returns the document with hash h, if cached.
func (c *docCache) get(h common.Hash) (*doc, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	it, ok := c.items[h]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(it.elem)
	return it.doc, true
}

// put parses and caches text if it hashes to h; it returns the document
// and whether the text matched h (a mismatching text is not cached).
func (c *docCache) put(h common.Hash, text []byte) (*doc, bool) {
	if registry.Hash(text) != h {
		return nil, false
	}
	if d, ok := c.get(h); ok {
		return d, true
	}
	d := newDoc(string(text))
	c.mu.Lock()
	defer c.mu.Unlock()
	if it, ok := c.items[h]; ok {
		return it.doc, true
	}
	if len(d.text) > c.maxBytes {
		return d, true // verified, but too large to keep
	}
	c.items[h] = docItem{doc: d, elem: c.order.PushFront(h)}
	c.bytes += len(d.text)
	for c.bytes > c.maxBytes {
		last := c.order.Back()
		c.order.Remove(last)
		old := last.Value.(common.Hash)
		c.bytes -= len(c.items[old].doc.text)
		delete(c.items, old)
	}
	return d, true
}

// rules returns the XRC-137 rules a cached entry's text names, from the
// cache when its hash is there.
func (c *docCache) rules(h common.Hash, text string) []common.Address {
	if d, ok := c.get(h); ok && d.text == text {
		return d.rules
	}
	if d, ok := c.put(h, []byte(text)); ok {
		return d.rules
	}
	return newDoc(text).rules
}
