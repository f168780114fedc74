package rule

import (
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// DocumentCache keeps parsed documents by the keccak256 hash of their exact
// bytes, so an executor that reads the same rule for every step parses it
// once. Only accepted documents are kept. It is safe for concurrent use.
type DocumentCache struct {
	// Max bounds the entries (default 1024); when full, half are dropped.
	Max int

	mu   sync.RWMutex
	docs map[common.Hash]*Document
}

// Parse returns the cached document for raw, parsing it on a miss.
func (c *DocumentCache) Parse(raw []byte) (*Document, error) {
	h := crypto.Keccak256Hash(raw)
	c.mu.RLock()
	d, ok := c.docs[h]
	c.mu.RUnlock()
	if ok {
		return d, nil
	}
	d, err := Parse(raw)
	if err != nil {
		return nil, err
	}
	max := c.Max
	if max <= 0 {
		max = 1024
	}
	c.mu.Lock()
	if c.docs == nil {
		c.docs = map[common.Hash]*Document{}
	}
	if len(c.docs) >= max {
		n := 0
		for k := range c.docs {
			delete(c.docs, k)
			if n++; n >= (max+1)/2 {
				break
			}
		}
	}
	c.docs[h] = d
	c.mu.Unlock()
	return d, nil
}

// Len is the number of cached documents.
func (c *DocumentCache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.docs)
}
