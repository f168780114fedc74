package chain

import (
	"crypto/ecdsa"
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/internal/signkey"
)

// PrivateKeyEnv is the environment variable that may hold the signing key as
// hex. Keys are never taken from command-line flags, where they would end up
// in shell history and process listings.
const PrivateKeyEnv = "XGR_PRIVATE_KEY"

// KeySource says where the signing key comes from: exactly one of a hex key
// (normally the value of XGR_PRIVATE_KEY) or a keystore file with the file
// holding its password.
type KeySource struct {
	Hex          string
	Keystore     string
	PasswordFile string
}

// ErrNoKey is returned by LoadKey when no key source is given.
var ErrNoKey = errors.New("no signing key: set " + PrivateKeyEnv + " or pass --keystore FILE --password-file FILE")

// LoadKey returns the private key the source names. Error messages never
// contain key material.
func LoadKey(src KeySource) (*ecdsa.PrivateKey, error) {
	return signkey.Load(signkey.Source{Hex: src.Hex, Keystore: src.Keystore, PasswordFile: src.PasswordFile,
		Role: "signing", Env: PrivateKeyEnv, KeystoreFlag: "--keystore", None: ErrNoKey})
}

// KeyFromHex parses a secp256k1 private key written as 64 hex digits, with
// or without a 0x prefix.
func KeyFromHex(s string) (*ecdsa.PrivateKey, error) {
	return signkey.FromHex(s, PrivateKeyEnv, "private")
}

// Address is the account of a private key.
func Address(key *ecdsa.PrivateKey) common.Address {
	return crypto.PubkeyToAddress(key.PublicKey)
}
