package indexer

import (
	"fmt"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/xgr-sidecar/xgr/contracts/xrc729"
)

var registryABI = xrc729.NewXRC729().GetABI()

// Registry event topics (topic0) the follower asks for.
var (
	TopicOSTCUpdated        = registryABI.Events["OSTCUpdated"].ID
	TopicOSTCDeletedIndexed = registryABI.Events["OSTCDeletedIndexed"].ID
	TopicXRC729Deployed     = registryABI.Events["XRC729Deployed"].ID
)

// The non-indexed fields of the two events Decode reads, worked out once.
var (
	updatedData = registryABI.Events["OSTCUpdated"].Inputs.NonIndexed()
	deletedData = registryABI.Events["OSTCDeletedIndexed"].Inputs.NonIndexed()
)

// Change is what one registry log means for the cache.
type Change struct {
	Registry common.Address
	ID       string
	// Deleted is true for OSTCDeletedIndexed; otherwise the id was set to
	// text with Hash at Version.
	Deleted bool
	Hash    common.Hash
	Version uint64
	// Block and Log locate the log.
	Block     uint64
	BlockHash common.Hash
	TxHash    common.Hash
	Index     uint
}

// Decode reads an XRC-729 registry log. ok is false for logs that are not
// OSTCUpdated or OSTCDeletedIndexed.
func Decode(l types.Log) (Change, bool, error) {
	if len(l.Topics) == 0 {
		return Change{}, false, nil
	}
	c := Change{Registry: l.Address, Block: l.BlockNumber, BlockHash: l.BlockHash, TxHash: l.TxHash, Index: l.Index}
	var name string
	var data abi.Arguments
	switch l.Topics[0] {
	case TopicOSTCUpdated:
		name, data = "OSTCUpdated", updatedData
	case TopicOSTCDeletedIndexed:
		name, data = "OSTCDeletedIndexed", deletedData
		c.Deleted = true
	default:
		return Change{}, false, nil
	}
	vals, err := data.Unpack(l.Data)
	if err != nil {
		return Change{}, false, fmt.Errorf("log %d of block %d from %s: %s: %w", l.Index, l.BlockNumber, l.Address.Hex(), name, err)
	}
	// OSTCUpdated:        ostcHash, id, version, updatedAt
	// OSTCDeletedIndexed: previousOstcHash, id, previousVersion
	c.Hash = common.Hash(vals[0].([32]byte))
	c.ID = vals[1].(string)
	if !c.Deleted {
		c.Version = vals[2].(interface{ Uint64() uint64 }).Uint64()
	}
	return c, true, nil
}
