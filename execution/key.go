package execution

import (
	"crypto/ecdsa"
	"errors"

	"github.com/xgr-sidecar/xgr/internal/signkey"
)

// KeyEnv is the environment variable that may hold the executor key as
// hex. The key is never taken from a command-line flag.
const KeyEnv = "XGR_EXECUTOR_KEY"

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
		hexKey = env(KeyEnv)
	}
	return signkey.Load(signkey.Source{Hex: hexKey, Keystore: keystorePath, PasswordFile: passwordFile,
		Role: "executor", Env: KeyEnv, KeystoreFlag: "--executor-keystore", None: ErrNoKey})
}
