package indexer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexstore"
)

// TopicOwnershipTransferred is topic0 of OwnershipTransferred, which an
// XRC-729 registry emits in its constructor (previous owner zero) and on
// every transferOwnership.
var TopicOwnershipTransferred = registryABI.Events["OwnershipTransferred"].ID

// OwnerChange is what one OwnershipTransferred log of a registry means: from
// its block on, Owner is the registry's owner.
type OwnerChange struct {
	Registry common.Address
	Previous common.Address
	Owner    common.Address
	// Block, BlockHash, TxHash and Index locate the log.
	Block     uint64
	BlockHash common.Hash
	TxHash    common.Hash
	Index     uint
}

// DecodeOwnership reads an OwnershipTransferred log. Both addresses are
// indexed, so the log alone says who the owner is. ok is false for logs of
// other events; a log with the event's signature but not its shape (three
// topics, each address left-padded with zeros) is an error.
func DecodeOwnership(l types.Log) (OwnerChange, bool, error) {
	if len(l.Topics) == 0 || l.Topics[0] != TopicOwnershipTransferred {
		return OwnerChange{}, false, nil
	}
	where := fmt.Sprintf("log %d of block %d from %s: OwnershipTransferred", l.Index, l.BlockNumber, l.Address.Hex())
	if len(l.Topics) != 3 {
		return OwnerChange{}, false, fmt.Errorf("%s has %d topics; want 3 (the signature, previousOwner and newOwner, both indexed)", where, len(l.Topics))
	}
	var addrs [2]common.Address
	for i, t := range l.Topics[1:] {
		if common.BytesToHash(t[common.HashLength-common.AddressLength:]) != t {
			return OwnerChange{}, false, fmt.Errorf("%s: topic %d is %s; want an address (12 zero bytes, then 20 address bytes)", where, i+1, t.Hex())
		}
		addrs[i] = common.BytesToAddress(t[common.HashLength-common.AddressLength:])
	}
	return OwnerChange{Registry: l.Address, Previous: addrs[0], Owner: addrs[1],
		Block: l.BlockNumber, BlockHash: l.BlockHash, TxHash: l.TxHash, Index: l.Index}, true, nil
}

// Entry is the cache change an ownership transfer makes: the registry's
// owner entry (indexstore.OwnerKey) with owner (lower-case 0x address),
// block and tx.
func (o OwnerChange) Entry() indexstore.Change {
	return indexstore.Change{Block: o.Block, Key: indexstore.OwnerKey(o.Registry), Fields: map[string]string{
		"owner": strings.ToLower(o.Owner.Hex()), "block": strconv.FormatUint(o.Block, 10), "tx": o.TxHash.Hex(),
	}}
}

// ErrOwnerUnknown is returned (wrapped) by CacheSource.Owner when the index
// holds no owner for a registry and there is no chain to read it from.
var ErrOwnerUnknown = errors.New("registry owner unknown")

// Owner returns the current owner of an XRC-729 registry: the account whose
// signature a SessionPermit for it needs.
//
// When the index holds an owner entry (the registry is followed and its
// constructor or a later transferOwnership lies at or above the indexer's
// start block), that entry is the answer, without an eth_call. It is as
// fresh as the indexer's checkpoint: the owner as of the last indexed block.
// The follower indexes up to the node's head (finality only gates trigger
// starts), so a transfer in a block that a reorg later drops is undone with
// the rest of the cache; a transfer newer than the checkpoint is not seen
// until the follower's next step.
//
// Otherwise (the registry is not followed, or it was deployed before the
// start block and never transferred since) Owner is a live read of owner()
// at the node's latest block through Chain, not cached. Without a Chain that
// case is an error wrapping ErrOwnerUnknown.
func (s *CacheSource) Owner(ctx context.Context, registry common.Address) (common.Address, error) {
	e, err := s.Index.Entry(ctx, indexstore.OwnerKey(registry))
	if err != nil {
		return common.Address{}, fmt.Errorf("read the cached owner of registry %s: %w", registry.Hex(), err)
	}
	if e != nil {
		return parseOwnerEntry(registry, e)
	}
	if s.Chain == nil {
		return common.Address{}, fmt.Errorf("%w: registry %s has no owner entry in the index (not followed, or deployed before the indexer's start block and not transferred since) and no chain is configured to read owner() from", ErrOwnerUnknown, registry.Hex())
	}
	owner, err := chain.NewRegistry(registry, s.Chain).Owner(ctx)
	if err != nil {
		return common.Address{}, fmt.Errorf("read the owner of registry %s from the chain: %w", registry.Hex(), err)
	}
	return owner, nil
}

// parseOwnerEntry reads the owner field of a cached owner entry.
func parseOwnerEntry(registry common.Address, e map[string]string) (common.Address, error) {
	o := e["owner"]
	if !common.IsHexAddress(o) || !strings.HasPrefix(o, "0x") {
		return common.Address{}, fmt.Errorf("the index's owner entry of registry %s holds owner %q; want an 0x address (the entry is corrupt)", registry.Hex(), o)
	}
	return common.HexToAddress(o), nil
}
