package txmanager

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// keys names the Redis keys of one sender on one chain. Every key carries
// the hash tag {txm:<chainId>:<sender>} (the sender in lower case), so each
// transition touches one Redis Cluster slot.
type keys struct {
	tag string
}

func newKeys(chainID *big.Int, sender common.Address) keys {
	return keys{tag: "xgr:txm:{txm:" + chainID.String() + ":" + strings.ToLower(sender.Hex()) + "}:"}
}

// sender is the sender's hash: next (the next nonce to assign), lease,
// leaseUntil, fence (the lease token), queueSeq, finalNext (one above the
// highest nonce used in a final block: by a final key, or by a foreign
// transaction).
func (k keys) sender() string { return k.tag + "sender" }

// record is one execution's hash (see Record for its fields).
func (k keys) record(key string) string { return k.tag + "x:" + key }

// attempts is the list of a key's signed attempts, oldest first, each a
// JSON object {n, hash, raw, tip, feeCap, gasPrice, block, at}.
func (k keys) attempts(key string) string { return k.tag + "a:" + key }

// queue holds keys waiting for a nonce, by arrival (zset, score = sequence).
func (k keys) queue() string { return k.tag + "queue" }

// pending holds keys with a nonce that are not mined: reserved or signed
// (zset, score = nonce). Its size is the sender's in-flight count.
func (k keys) pending() string { return k.tag + "pending" }

// included holds mined keys that are not final yet (zset, score = nonce).
func (k keys) included() string { return k.tag + "included" }

// finalNonce names the key that holds nonce n final (a string: the key,
// or "foreign:<key>" when a foreign transaction used the nonce in a final
// block); it expires with that key's record. With the sender's finalNext
// it lets the tick find what a reorg past finality took from the chain.
func (k keys) finalNonce(n uint64) string { return k.tag + "n:" + strconv.FormatUint(n, 10) }

// void is the list of a key's attempts under a nonce a foreign
// transaction used (resign.lua moves them there); they are never sent.
func (k keys) void(key string) string { return k.tag + "o:" + key }
