// Package signkey loads a secp256k1 signing key from one of two sources:
// hex in an environment variable, or a go-ethereum keystore (v3 JSON)
// decrypted with the first line of a password file. chain.LoadKey (the
// CLI's signer) and execution.LoadKey (the executor key) both load here;
// they differ only in the names their messages use. Errors name the
// source and what is wrong, never the key or the password.
package signkey

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"
)

// Source is where a key comes from and what messages call it.
type Source struct {
	// Hex is the value of the environment variable Env ("" when unset).
	Hex string
	// Keystore is the keystore file (the flag KeystoreFlag), PasswordFile
	// the file holding its password.
	Keystore, PasswordFile string
	// Role names the key in messages ("signing", "executor"); Env and
	// KeystoreFlag name its two sources.
	Role, Env, KeystoreFlag string
	// None is the error when no source is given.
	None error
}

// maxFileBytes bounds a keystore or password file read (a v3 keystore is
// under 1 KiB).
const maxFileBytes = 64 << 10

// Load returns the key the source names: exactly one of Hex and Keystore
// may be given; none is s.None.
func Load(s Source) (*ecdsa.PrivateKey, error) {
	hexKey := strings.TrimSpace(s.Hex)
	switch {
	case hexKey != "" && s.Keystore != "":
		return nil, fmt.Errorf("two %s keys given (%s and %s %s): use one", s.Role, s.Env, s.KeystoreFlag, s.Keystore)
	case hexKey != "":
		return FromHex(hexKey, s.Env, s.Role)
	case s.Keystore != "":
		return fromKeystore(s)
	case s.PasswordFile != "":
		return nil, fmt.Errorf("--password-file given without %s", s.KeystoreFlag)
	}
	return nil, s.None
}

// FromHex parses a secp256k1 private key written as 64 hex digits, with or
// without a 0x prefix; messages say it came from where and is a role key.
func FromHex(v, where, role string) (*ecdsa.PrivateKey, error) {
	v = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(v), "0x"), "0X")
	if len(v) != 64 {
		return nil, fmt.Errorf("%s: a %s key is 64 hex digits (0x optional); the value has %d characters", where, role, len(v))
	}
	k, err := crypto.HexToECDSA(v)
	if err != nil {
		return nil, fmt.Errorf("%s: not a valid secp256k1 private key (64 hex digits, not zero, below the curve order)", where)
	}
	return k, nil
}

func fromKeystore(s Source) (*ecdsa.PrivateKey, error) {
	if s.PasswordFile == "" {
		return nil, fmt.Errorf("%s %s needs --password-file FILE (a password is never taken from a flag)", s.KeystoreFlag, s.Keystore)
	}
	blob, err := readSmall(s.Keystore, s.Role+" keystore")
	if err != nil {
		return nil, err
	}
	pw, err := readSmall(s.PasswordFile, s.Role+" password file")
	if err != nil {
		return nil, err
	}
	password, _, _ := strings.Cut(string(pw), "\n")
	password = strings.TrimSuffix(password, "\r")
	k, err := keystore.DecryptKey(blob, password)
	if err != nil {
		if errors.Is(err, keystore.ErrDecrypt) {
			return nil, fmt.Errorf("%s keystore %s: the password in %s does not decrypt it", s.Role, s.Keystore, s.PasswordFile)
		}
		// The decoder's message may quote the file; a file given by mistake
		// may hold a raw key, so it is not repeated.
		return nil, fmt.Errorf("%s keystore %s: not a readable v3 keystore file (JSON with crypto.cipher, kdf and mac, as geth account new writes)", s.Role, s.Keystore)
	}
	return k.PrivateKey, nil
}

func readSmall(path, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", what, path, err)
	}
	if len(b) > maxFileBytes {
		return nil, fmt.Errorf("%s %s is over %d bytes; a keystore or password file is far smaller", what, path, maxFileBytes)
	}
	return b, nil
}
