package chain

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
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
	hexKey := strings.TrimSpace(src.Hex)
	switch {
	case hexKey != "" && src.Keystore != "":
		return nil, fmt.Errorf("two signing keys given (%s and --keystore %s): use one", PrivateKeyEnv, src.Keystore)
	case hexKey != "":
		return KeyFromHex(hexKey)
	case src.Keystore != "":
		return KeyFromKeystore(src.Keystore, src.PasswordFile)
	case src.PasswordFile != "":
		return nil, errors.New("--password-file given without --keystore")
	}
	return nil, ErrNoKey
}

// KeyFromHex parses a secp256k1 private key written as 64 hex digits, with
// or without a 0x prefix.
func KeyFromHex(s string) (*ecdsa.PrivateKey, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(s), "0x"), "0X")
	if len(s) != 64 {
		return nil, fmt.Errorf("%s: a private key is 64 hex digits (optionally 0x-prefixed), got %d characters", PrivateKeyEnv, len(s))
	}
	key, err := crypto.HexToECDSA(s)
	if err != nil {
		return nil, fmt.Errorf("%s: not a valid secp256k1 private key (64 hex digits expected)", PrivateKeyEnv)
	}
	return key, nil
}

// KeyFromKeystore decrypts an Ethereum keystore (v3 JSON) file with the
// password in passwordFile: its first line, without the line ending.
func KeyFromKeystore(file, passwordFile string) (*ecdsa.PrivateKey, error) {
	if passwordFile == "" {
		return nil, fmt.Errorf("--keystore %s needs --password-file FILE (the password is never taken from a flag)", file)
	}
	blob, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read keystore: %w", err)
	}
	pw, err := os.ReadFile(passwordFile)
	if err != nil {
		return nil, fmt.Errorf("read password file: %w", err)
	}
	password, _, _ := strings.Cut(string(pw), "\n")
	password = strings.TrimSuffix(password, "\r")
	k, err := keystore.DecryptKey(blob, password)
	if err != nil {
		return nil, fmt.Errorf("keystore %s: %w (is the password file right?)", file, err)
	}
	return k.PrivateKey, nil
}

// Address is the account of a private key.
func Address(key *ecdsa.PrivateKey) common.Address {
	return crypto.PubkeyToAddress(key.PublicKey)
}
