package registry

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Hash is keccak256 over the exact bytes of an OSTC, as the XRC-729 contract
// computes ostcHash in setOSTC (keccak256(bytes(json))). No normalisation:
// one changed space is a different orchestration.
func Hash(raw []byte) common.Hash {
	return crypto.Keccak256Hash(raw)
}
