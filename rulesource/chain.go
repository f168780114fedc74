package rulesource

import (
	"context"
	"fmt"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/envelope"
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

	// Opener, when set, opens encrypted rules (XGR1 envelopes); without
	// it they are refused with ErrEncrypted. An opened rule is opened again
	// at every load, so a revoked or expired grant stops it at the next
	// step.
	Opener Opener

	mu    sync.Mutex
	docs  map[chainKey]entry
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

// entry is a cached document; sealed is the envelope it was opened from
// ("" for a plain rule).
type entry struct {
	doc    *rule.Document
	sealed string
}

// NewChain returns a chain rule source on backend.
func NewChain(b chain.Backend) *Chain {
	return &Chain{backend: b, docs: map[chainKey]entry{}, rules: map[common.Address]*chain.Rule{}}
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
	loaded := &Loaded{Ref: ref, Origin: origin, Address: addr, Hash: h}
	if doc, ok, err := c.hit(ctx, chainKey{addr, h}); ok || err != nil {
		if err != nil {
			return fail(err)
		}
		loaded.Doc = doc
		return loaded, nil
	}
	st, err := r.Stored(ctx)
	if err != nil {
		return read(err)
	}
	if got := crypto.Keccak256Hash([]byte(st.Text)); got != st.Hash {
		return fail(fmt.Errorf("%w at block %d: ruleHash %s, keccak256 of the %d bytes read %s", ErrHashMismatch, st.Block, st.Hash.Hex(), len(st.Text), got.Hex()))
	}
	if st.Encrypted && c.Opener == nil {
		return fail(fmt.Errorf("%w: isEncrypted() is true at block %d; only plain JSON rules can be evaluated", ErrEncrypted, st.Block))
	}
	loaded.Hash = st.Hash
	if loaded.Doc, err = c.document(ctx, addr, chainKey{addr, st.Hash}, st.Text, st.Encrypted); err != nil {
		return fail(err)
	}
	return loaded, nil
}

// hit serves a cached document; an opened rule is opened again (its grant
// may be gone).
func (c *Chain) hit(ctx context.Context, k chainKey) (*rule.Document, bool, error) {
	c.mu.Lock()
	e, ok := c.docs[k]
	c.mu.Unlock()
	if !ok {
		return nil, false, nil
	}
	if e.sealed != "" {
		if c.Opener == nil {
			return nil, false, fmt.Errorf("%w: the text is an XGR1 envelope and no read key is configured", ErrEncrypted)
		}
		plain, err := c.Opener.OpenRule(ctx, k.addr, e.sealed)
		clear(plain)
		if err != nil {
			return nil, false, err
		}
	}
	return e.doc, true, nil
}

// document parses the text of a rule (checked against its ruleHash) and
// caches it under k: plain JSON, or an XGR1 envelope that Opener opens
// (encrypted says the contract marks it so).
func (c *Chain) document(ctx context.Context, addr common.Address, k chainKey, text string, encrypted bool) (*rule.Document, error) {
	if !encrypted && !envelope.IsSealed([]byte(text)) {
		doc, err := c.parse.Parse([]byte(text))
		if err != nil {
			return nil, err
		}
		c.remember(k, entry{doc: doc})
		return doc, nil
	}
	if c.Opener == nil {
		return nil, checkPlain([]byte(text))
	}
	if !envelope.IsSealed([]byte(text)) {
		return nil, fmt.Errorf("%w: isEncrypted() is true, but the text is not an XGR1 envelope", ErrEncrypted)
	}
	plain, err := c.Opener.OpenRule(ctx, addr, text)
	if err != nil {
		return nil, err
	}
	defer clear(plain)
	if envelope.IsSealed(plain) {
		return nil, fmt.Errorf("%w: the opened rule is itself an XGR1 envelope", ErrEncrypted)
	}
	doc, err := c.parse.Parse(plain)
	if err != nil {
		return nil, err
	}
	c.remember(k, entry{doc: doc, sealed: text})
	return doc, nil
}

// remember caches a parsed document, starting over when the cache is full.
func (c *Chain) remember(k chainKey, e entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	max := c.Max
	if max <= 0 {
		max = 1024
	}
	if len(c.docs) >= max {
		clear(c.docs)
	}
	c.docs[k] = e
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
	loaded := &Loaded{Ref: ref, Origin: origin + " (cached)", Address: addr, Hash: h}
	if doc, ok, err := c.hit(ctx, chainKey{addr, h}); ok || err != nil {
		loaded.Doc = doc
		return loaded, ok, err
	}
	if got := crypto.Keccak256Hash([]byte(text)); got != h {
		return nil, false, fmt.Errorf("%w in the rule cache: ruleHash %s, keccak256 %s", ErrHashMismatch, h.Hex(), got.Hex())
	}
	if loaded.Doc, err = c.document(ctx, addr, chainKey{addr, h}, text, false); err != nil {
		return nil, false, err
	}
	return loaded, true, nil
}
