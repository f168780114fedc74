package devnet

import (
	"crypto/ecdsa"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/crypto"
)

// DevMnemonic is the well-known development mnemonic that anvil (and hardhat)
// fund by default. Keys derived from it are public: never use them on a real
// network.
const DevMnemonic = "test test test test test test test test test test test junk"

// DevAccounts is how many development accounts the chains fund.
const DevAccounts = 10

// hardened marks a hardened BIP-32 child index.
const hardened = 1 << 31

// DevKeys derives the first n keys of DevMnemonic on the Ethereum path
// m/44'/60'/0'/0/i (BIP-39 seed, BIP-32 derivation), the accounts anvil funds.
func DevKeys(n int) ([]*ecdsa.PrivateKey, error) {
	seed, err := pbkdf2.Key(sha512.New, DevMnemonic, []byte("mnemonic"), 2048, 64)
	if err != nil {
		return nil, err
	}
	keys := make([]*ecdsa.PrivateKey, n)
	for i := range keys {
		path := []uint32{44 + hardened, 60 + hardened, 0 + hardened, 0, uint32(i)}
		if keys[i], err = deriveKey(seed, path); err != nil {
			return nil, fmt.Errorf("derive m/44'/60'/0'/0/%d: %w", i, err)
		}
	}
	return keys, nil
}

// deriveKey walks a BIP-32 path of private-key derivations from a seed.
func deriveKey(seed []byte, path []uint32) (*ecdsa.PrivateKey, error) {
	n := crypto.S256().Params().N
	i := hmacSHA512([]byte("Bitcoin seed"), seed)
	key, chainCode := i[:32], i[32:]
	for _, index := range path {
		var data []byte
		if index >= hardened {
			data = append([]byte{0}, key...)
		} else {
			parent, err := crypto.ToECDSA(key)
			if err != nil {
				return nil, err
			}
			data = crypto.CompressPubkey(&parent.PublicKey)
		}
		data = binary.BigEndian.AppendUint32(data, index)
		i = hmacSHA512(chainCode, data)
		tweak := new(big.Int).SetBytes(i[:32])
		if tweak.Cmp(n) >= 0 {
			return nil, errors.New("invalid child key (tweak >= n); the next index would be used")
		}
		child := tweak.Add(tweak, new(big.Int).SetBytes(key))
		child.Mod(child, n)
		if child.Sign() == 0 {
			return nil, errors.New("invalid child key (zero)")
		}
		key, chainCode = child.FillBytes(make([]byte, 32)), i[32:]
	}
	return crypto.ToECDSA(key)
}

func hmacSHA512(key, data []byte) []byte {
	m := hmac.New(sha512.New, key)
	m.Write(data)
	return m.Sum(nil)
}
