package indexstore

import (
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// prefixOf is the prefix of every key of chain chainID's index.
func prefixOf(chainID uint64) string {
	return "xgr:{idx:" + strconv.FormatUint(chainID, 10) + "}:"
}

func (x *Index) head() string         { return x.prefix + "head" }
func (x *Index) blocks() string       { return x.prefix + "blocks" }
func (x *Index) undo(n uint64) string { return x.prefix + "undo:" + strconv.FormatUint(n, 10) }
func (x *Index) mismatches() string   { return x.prefix + "mismatch" }
func (x *Index) pending() string      { return x.prefix + "pending" }
func (x *Index) ranges() string       { return x.prefix + "ranges" }

// OSTCKey is the cache entry of an orchestration, relative to the index.
func OSTCKey(registry common.Address, id string) string {
	return "ostc:" + strings.ToLower(registry.Hex()) + ":" + id
}

// OwnerKey is the cache entry of a registry's owner, relative to the index.
func OwnerKey(registry common.Address) string {
	return "owner:" + strings.ToLower(registry.Hex())
}

// StartKey is the record of a trigger start, relative to the index.
func StartKey(key string) string { return "start:" + key }
