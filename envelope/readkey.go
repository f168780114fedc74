package envelope

import (
	"bytes"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// PublicKeySize is the length of an uncompressed SEC1 P-256 key.
const PublicKeySize = 65

// MaxReadKeyFile bounds a read-key file.
const MaxReadKeyFile = 16 << 10

// ReadKey is a P-256 read key: its public half is registered on chain
// (XRC-563) so that others can wrap data keys for it. Its String hides it.
type ReadKey struct {
	priv *ecdh.PrivateKey
}

// GenerateReadKey returns a new random read key.
func GenerateReadKey() (*ReadKey, error) {
	p, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate read key: %w", err)
	}
	return &ReadKey{priv: p}, nil
}

func (*ReadKey) String() string   { return "ReadKey(hidden)" }
func (*ReadKey) GoString() string { return "ReadKey(hidden)" }

// Public is the key to register and to wrap for.
func (k *ReadKey) Public() *ecdh.PublicKey { return k.priv.PublicKey() }

// PublicHex is the 65-byte uncompressed public key as 0x-hex.
func PublicHex(pub *ecdh.PublicKey) string { return "0x" + hex.EncodeToString(pub.Bytes()) }

// Fingerprint is xgr's short name of a public key: the first 8 bytes of
// SHA-256 of its 65 bytes, as 16 hex digits.
func Fingerprint(pub *ecdh.PublicKey) string {
	h := sha256.Sum256(pub.Bytes())
	return hex.EncodeToString(h[:8])
}

// ParsePublicKey reads a registered read key: 65 bytes, 0x04 ‖ X ‖ Y, a
// point on P-256. Compressed keys (33 bytes) are refused.
func ParsePublicKey(b []byte) (*ecdh.PublicKey, error) {
	const f = "public key"
	switch {
	case len(b) == 33 && (b[0] == 2 || b[0] == 3):
		return nil, malformed(f, "form", "a compressed 33-byte key; xgr wraps only for the 65-byte uncompressed SEC1 key (0x04 ‖ X ‖ Y)")
	case len(b) != PublicKeySize:
		return nil, malformed(f, "length", "%d bytes, want %d (SEC1 uncompressed P-256: 0x04 ‖ X ‖ Y)", len(b), PublicKeySize)
	case b[0] != 0x04:
		return nil, malformed(f, "form", "first byte 0x%02x, want 0x04 (SEC1 uncompressed)", b[0])
	}
	pub, err := ecdh.P256().NewPublicKey(b)
	if err != nil {
		return nil, malformed(f, "point", "not a point on P-256")
	}
	return pub, nil
}

// ParsePublicHex reads a public key written as 0x-hex (130 digits).
func ParsePublicHex(s string) (*ecdh.PublicKey, error) {
	h, ok := strings.CutPrefix(s, "0x")
	if !ok {
		return nil, malformed("public key", "prefix", "want 0x and 130 hex digits (65 bytes, SEC1 uncompressed)")
	}
	if len(h) > 2*PublicKeySize {
		return nil, tooLarge("public key", "length", "%d hex digits, want %d", len(h), 2*PublicKeySize)
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return nil, malformed("public key", "hex", "not hex")
	}
	return ParsePublicKey(b)
}

// MarshalPEM is the key as a PEM "PRIVATE KEY" (PKCS#8), the read-key file.
func (k *ReadKey) MarshalPEM() ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(k.priv)
	if err != nil {
		return nil, fmt.Errorf("encode read key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// ParseReadKey reads a read key: PEM "PRIVATE KEY" (PKCS#8) or "EC PRIVATE
// KEY" (SEC1) of a P-256 key, or its 32-byte scalar as 64 hex digits
// (0x optional).
func ParseReadKey(data []byte) (*ReadKey, error) {
	const f = "read key"
	if len(data) > MaxReadKeyFile {
		return nil, tooLarge(f, "size", "%d bytes, more than %d", len(data), MaxReadKeyFile)
	}
	trimmed := bytes.TrimSpace(data)
	if !bytes.HasPrefix(trimmed, []byte("-----BEGIN")) {
		h := strings.TrimPrefix(string(trimmed), "0x")
		if len(h) != 64 {
			return nil, malformed(f, "form", "want a PEM private key (PKCS#8 or SEC1) or a 32-byte P-256 scalar as 64 hex digits")
		}
		s, err := hex.DecodeString(h)
		if err != nil {
			return nil, malformed(f, "scalar", "not hex")
		}
		p, err := ecdh.P256().NewPrivateKey(s)
		clear(s)
		if err != nil {
			return nil, malformed(f, "scalar", "not a valid P-256 private key (zero or not below the group order)")
		}
		return &ReadKey{priv: p}, nil
	}
	block, rest := pem.Decode(trimmed)
	if block == nil {
		return nil, malformed(f, "PEM", "not a PEM block")
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return nil, malformed(f, "PEM", "more than one PEM block")
	}
	var key any
	var err error
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	default:
		return nil, malformed(f, "PEM", "block type %q, want \"PRIVATE KEY\" (PKCS#8) or \"EC PRIVATE KEY\"", block.Type)
	}
	if err != nil {
		return nil, malformed(f, "PEM", "does not decode as a private key")
	}
	var p *ecdh.PrivateKey
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		if p, err = k.ECDH(); err != nil || p.Curve() != ecdh.P256() {
			return nil, malformed(f, "curve", "not a P-256 key")
		}
	case *ecdh.PrivateKey:
		if k.Curve() != ecdh.P256() {
			return nil, malformed(f, "curve", "not a P-256 key")
		}
		p = k
	default:
		return nil, malformed(f, "curve", "%T is not a P-256 key", key)
	}
	return &ReadKey{priv: p}, nil
}

// LoadReadKeyFile reads a read-key file (see ParseReadKey), at most
// MaxReadKeyFile bytes.
func LoadReadKeyFile(path string) (*ReadKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read key file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxReadKeyFile+1))
	if err != nil {
		return nil, fmt.Errorf("read key file %s: %w", path, err)
	}
	defer clear(data)
	k, err := ParseReadKey(data)
	if err != nil {
		return nil, fmt.Errorf("read key file %s: %w", path, err)
	}
	return k, nil
}

// ErrKeyFileExists: WriteReadKeyFile does not overwrite.
var ErrKeyFileExists = errors.New("file exists; a read key is never overwritten (move it away first)")

// WriteReadKeyFile writes k to a new file with mode 0600; an existing file
// is refused with ErrKeyFileExists.
func WriteReadKeyFile(path string, k *ReadKey) error {
	data, err := k.MarshalPEM()
	if err != nil {
		return err
	}
	defer clear(data)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%s: %w", path, ErrKeyFileExists)
		}
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return err
	}
	return nil
}

// Environment variables of the engine's own read key.
const (
	// ReadKeyFileEnv names the read-key file (the --read-key-file flag's
	// variable).
	ReadKeyFileEnv = "XGR_READ_KEY_FILE"
	// ReadKeyEnv holds the key itself (PEM or 64 hex digits); never a flag.
	ReadKeyEnv = "XGR_READ_KEY"
)

// ErrNoReadKey: neither a file nor $XGR_READ_KEY gives a read key.
var ErrNoReadKey = errors.New("no read key: give --read-key-file (or $" + ReadKeyFileEnv + ") or set $" + ReadKeyEnv)

// FindReadKey is the read key a command was given: LoadReadKey of file
// and env, with ok false (and no error) when neither is given. Every
// command that takes a read key looks it up here; one that lets its flag
// win over $XGR_READ_KEY passes env "" when the flag is set.
func FindReadKey(file, env string) (key *ReadKey, ok bool, err error) {
	if file == "" && env == "" {
		return nil, false, nil
	}
	k, err := LoadReadKey(file, env)
	if err != nil {
		return nil, false, err
	}
	return k, true, nil
}

// LoadReadKey is the engine's read key: from file when it is not empty,
// else from env (the value of $XGR_READ_KEY). Both set is refused, so one
// cannot silently shadow the other.
func LoadReadKey(file, env string) (*ReadKey, error) {
	switch {
	case file != "" && env != "":
		return nil, fmt.Errorf("read key: both a file (%s) and $%s are given; use one", file, ReadKeyEnv)
	case file != "":
		return LoadReadKeyFile(file)
	case env != "":
		k, err := ParseReadKey([]byte(env))
		if err != nil {
			return nil, fmt.Errorf("$%s: %w", ReadKeyEnv, err)
		}
		return k, nil
	}
	return nil, ErrNoReadKey
}
