package execution

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

// KeyEnv is the environment variable that may hold the executor key as
// hex. The key is never taken from a command-line flag.
const KeyEnv = "XGR_EXECUTOR_KEY"

// maxKeystoreBytes bounds a keystore or password file read (a v3 keystore
// is under 1 KiB).
const maxKeystoreBytes = 64 << 10

// ErrNoKey: no executor key is configured.
var ErrNoKey = errors.New("no executor key: set " + KeyEnv + " or pass --executor-keystore FILE --password-file FILE")

// LoadKey returns the executor key: from the go-ethereum keystore (v3 JSON)
// file keystorePath decrypted with the first line of passwordFile, or from
// the environment variable XGR_EXECUTOR_KEY (64 hex digits, 0x optional)
// read through env. Exactly one source may be given; none is ErrNoKey.
// Errors name the source and what is wrong, never the key or the password.
func LoadKey(keystorePath, passwordFile string, env func(string) string) (*ecdsa.PrivateKey, error) {
	hexKey := ""
	if env != nil {
		hexKey = strings.TrimSpace(env(KeyEnv))
	}
	switch {
	case hexKey != "" && keystorePath != "":
		return nil, fmt.Errorf("two executor keys given (%s and --executor-keystore %s): use one", KeyEnv, keystorePath)
	case hexKey != "":
		return keyFromHex(hexKey)
	case keystorePath != "":
		return keyFromKeystore(keystorePath, passwordFile)
	case passwordFile != "":
		return nil, errors.New("--password-file given without --executor-keystore")
	}
	return nil, ErrNoKey
}

func keyFromHex(s string) (*ecdsa.PrivateKey, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(s) != 64 {
		return nil, fmt.Errorf("%s: an executor key is 64 hex digits (0x optional); the value has %d characters", KeyEnv, len(s))
	}
	k, err := crypto.HexToECDSA(s)
	if err != nil {
		return nil, fmt.Errorf("%s: not a valid secp256k1 private key (64 hex digits, not zero, below the curve order)", KeyEnv)
	}
	return k, nil
}

func keyFromKeystore(path, passwordFile string) (*ecdsa.PrivateKey, error) {
	if passwordFile == "" {
		return nil, fmt.Errorf("--executor-keystore %s needs --password-file FILE (a password is never taken from a flag)", path)
	}
	blob, err := readSmall(path, "keystore")
	if err != nil {
		return nil, err
	}
	pw, err := readSmall(passwordFile, "password file")
	if err != nil {
		return nil, err
	}
	password, _, _ := strings.Cut(string(pw), "\n")
	password = strings.TrimSuffix(password, "\r")
	k, err := keystore.DecryptKey(blob, password)
	if err != nil {
		if errors.Is(err, keystore.ErrDecrypt) {
			return nil, fmt.Errorf("executor keystore %s: the password in %s does not decrypt it", path, passwordFile)
		}
		// The decoder's message may quote the file; a file given by mistake
		// may hold a raw key, so it is not repeated.
		return nil, fmt.Errorf("executor keystore %s: not a readable v3 keystore file (JSON with crypto.cipher, kdf and mac, as geth account new writes)", path)
	}
	return k.PrivateKey, nil
}

func readSmall(path, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read executor %s: %w", what, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxKeystoreBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read executor %s %s: %w", what, path, err)
	}
	if len(b) > maxKeystoreBytes {
		return nil, fmt.Errorf("executor %s %s is over %d bytes; a keystore or password file is far smaller", what, path, maxKeystoreBytes)
	}
	return b, nil
}
