package rulesource

import (
	"context"
	"fmt"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/internal/chain"
	"github.com/xgr-sidecar/xgr/rule"
)

// Chain loads rules from XRC-137 contracts. It is safe for concurrent use.
type Chain struct {
	backend chain.Backend
	// Max bounds the cached documents (default 1024); when full, the cache
	// starts over.
	Max int

	// Cache, when set, serves rules the indexer follows (checked against
	// ruleHash when it stored them) without an eth_call; rules it does not
	// hold are read from the contract.
	Cache RuleCache

	mu    sync.Mutex
	docs  map[chainKey]*rule.Document
	rules map[common.Address]*chain.Rule
	parse rule.DocumentCache
}

// RuleCache is a verified cache of XRC-137 rules (the indexer's).
type RuleCache interface {
	Rule(ctx context.Context, addr common.Address) (text string, hash common.Hash, ok bool, err error)
}

type chainKey struct {
	addr common.Address
	hash common.Hash
}

// NewChain returns a chain rule source on backend.
func NewChain(b chain.Backend) *Chain {
	return &Chain{backend: b, docs: map[chainKey]*rule.Document{}, rules: map[common.Address]*chain.Rule{}}
}

// Load implements Source for contract addresses alone.
func (c *Chain) Load(ctx context.Context, ref string) (*Loaded, error) {
	return (&Loader{Chain: c}).Load(ctx, ref)
}

// Cached is the number of cached documents.
func (c *Chain) Cached() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.docs)
}

// load reads the rule of the contract at addr: ruleHash first, and only
// when (addr, ruleHash) is not cached, the text at one block.
func (c *Chain) load(ctx context.Context, ref string, addr common.Address) (*Loaded, error) {
	origin := "XRC-137 " + addr.Hex()
	fail := func(err error) (*Loaded, error) { return nil, &Error{Ref: ref, Origin: origin, Err: err} }
	// read marks a failed eth_call that the node, not the contract,
	// caused: no definite answer.
	read := func(err error) (*Loaded, error) {
		if chain.IsTransient(err) {
			err = fmt.Errorf("%w: %w", rule.ErrUnavailable, err)
		}
		return fail(err)
	}
	if c.Cache != nil {
		if l, ok, err := c.cached(ctx, ref, addr, origin); err != nil || ok {
			if err != nil {
				return fail(err)
			}
			return l, nil
		}
	}
	r := c.contract(addr)
	h, err := r.Hash(ctx)
	if err != nil {
		return read(err)
	}
	loaded := &Loaded{Ref: ref, Origin: origin, Address: addr}
	c.mu.Lock()
	loaded.Doc = c.docs[chainKey{addr, h}]
	c.mu.Unlock()
	if loaded.Doc != nil {
		return loaded, nil
	}
	st, err := r.Stored(ctx)
	if err != nil {
		return read(err)
	}
	if got := crypto.Keccak256Hash([]byte(st.Text)); got != st.Hash {
		return fail(fmt.Errorf("%w at block %d: ruleHash %s, keccak256 of the %d bytes read %s", ErrHashMismatch, st.Block, st.Hash.Hex(), len(st.Text), got.Hex()))
	}
	if st.Encrypted {
		return fail(fmt.Errorf("%w: isEncrypted() is true at block %d; only plain JSON rules can be evaluated", ErrEncrypted, st.Block))
	}
	if err := checkPlain([]byte(st.Text)); err != nil {
		return fail(err)
	}
	if loaded.Doc, err = c.parse.Parse([]byte(st.Text)); err != nil {
		return fail(err)
	}
	c.remember(chainKey{addr, st.Hash}, loaded.Doc)
	return loaded, nil
}

// remember caches a parsed document, starting over when the cache is full.
func (c *Chain) remember(k chainKey, doc *rule.Document) {
	c.mu.Lock()
	defer c.mu.Unlock()
	max := c.Max
	if max <= 0 {
		max = 1024
	}
	if len(c.docs) >= max {
		clear(c.docs)
	}
	c.docs[k] = doc
}

func (c *Chain) contract(addr common.Address) *chain.Rule {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.rules[addr]
	if !ok {
		if len(c.rules) >= 4096 {
			clear(c.rules)
		}
		r = chain.NewRule(addr, c.backend)
		c.rules[addr] = r
	}
	return r
}

// cached serves a rule from the rule cache; ok is false when the cache does
// not hold it.
func (c *Chain) cached(ctx context.Context, ref string, addr common.Address, origin string) (*Loaded, bool, error) {
	text, h, ok, err := c.Cache.Rule(ctx, addr)
	if err != nil {
		// The cache (the indexer's Redis) did not answer.
		return nil, false, fmt.Errorf("%w: rule cache: %w", rule.ErrUnavailable, err)
	}
	if !ok {
		return nil, false, nil
	}
	loaded := &Loaded{Ref: ref, Origin: origin + " (cached)", Address: addr}
	c.mu.Lock()
	loaded.Doc = c.docs[chainKey{addr, h}]
	c.mu.Unlock()
	if loaded.Doc != nil {
		return loaded, true, nil
	}
	if got := crypto.Keccak256Hash([]byte(text)); got != h {
		return nil, false, fmt.Errorf("%w in the rule cache: ruleHash %s, keccak256 %s", ErrHashMismatch, h.Hex(), got.Hex())
	}
	if err := checkPlain([]byte(text)); err != nil {
		return nil, false, err
	}
	if loaded.Doc, err = c.parse.Parse([]byte(text)); err != nil {
		return nil, false, err
	}
	c.remember(chainKey{addr, h}, loaded.Doc)
	return loaded, true, nil
}
