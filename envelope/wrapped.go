package envelope

import (
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Scope binds a wrapped key to what it opens.
type Scope uint8

// The scopes of the public reference (3, fields, is reserved there and
// refused here).
const (
	ScopeRule Scope = 1 // XRC-137 rule documents
	ScopeLog  Scope = 2 // log bundles
)

// Valid reports whether s is 1 or 2.
func (s Scope) Valid() bool { return s == ScopeRule || s == ScopeLog }

// The XGRK2 wrapped key.
const (
	// WrappedPrefix starts every XGRK2 wrapped key.
	WrappedPrefix = "XGRK2.P256HKDFGCM."
	// WrappedSize is the wrap's length in bytes: writerPub(65) ‖ salt(16) ‖
	// iv(12) ‖ ct(32) ‖ tag(16).
	WrappedSize = PublicKeySize + 16 + NonceSize + 32 + TagSize
)

// Wrapped is a DEK wrapped for one reader.
type Wrapped struct {
	// Writer is the ephemeral public key (SEC1 uncompressed).
	Writer [PublicKeySize]byte
	Salt   [16]byte
	IV     [NonceSize]byte
	// Box is the DEK's ciphertext ‖ tag.
	Box [32 + TagSize]byte
}

// Info is the HKDF info of a scope and RID: "XGR|v=2|scope=<S>|rid=<hex>".
func Info(scope Scope, rid RID) string {
	return fmt.Sprintf("XGR|v=2|scope=%d|rid=%s", scope, rid.Hex())
}

// Wrap wraps dek for the reader's public key, bound to scope and rid.
func Wrap(dek DEK, to *ecdh.PublicKey, scope Scope, rid RID) (*Wrapped, error) {
	eph, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("XGRK2: ephemeral key: %w", err)
	}
	var salt [16]byte
	var iv [NonceSize]byte
	if _, err := rand.Read(salt[:]); err != nil {
		return nil, fmt.Errorf("XGRK2: salt: %w", err)
	}
	if _, err := rand.Read(iv[:]); err != nil {
		return nil, fmt.Errorf("XGRK2: iv: %w", err)
	}
	return wrapWith(eph, salt, iv, dek, to, scope, rid)
}

// wrapWith is Wrap with given randomness (test vectors).
func wrapWith(eph *ecdh.PrivateKey, salt [16]byte, iv [NonceSize]byte, dek DEK, to *ecdh.PublicKey, scope Scope, rid RID) (*Wrapped, error) {
	if !scope.Valid() {
		return nil, fmt.Errorf("XGRK2: scope %d: want 1 (rules) or 2 (logs)", scope)
	}
	if to == nil || to.Curve() != ecdh.P256() {
		return nil, fmt.Errorf("XGRK2: the reader's key is not a P-256 key")
	}
	kek, err := kekOf(eph, to, salt[:], scope, rid)
	if err != nil {
		return nil, err
	}
	w := &Wrapped{Salt: salt, IV: iv}
	copy(w.Writer[:], eph.PublicKey().Bytes())
	copy(w.Box[:], gcm(kek).Seal(nil, iv[:], dek[:], nil))
	return w, nil
}

// kekOf derives the key-encryption key: HKDF-SHA256 of the ECDH x
// coordinate with the salt and Info(scope, rid).
func kekOf(priv *ecdh.PrivateKey, pub *ecdh.PublicKey, salt []byte, scope Scope, rid RID) ([]byte, error) {
	shared, err := priv.ECDH(pub)
	if err != nil {
		return nil, fmt.Errorf("XGRK2: ECDH: %w", err)
	}
	kek, err := hkdf.Key(sha256.New, shared, salt, Info(scope, rid), 32)
	if err != nil {
		return nil, fmt.Errorf("XGRK2: HKDF: %w", err)
	}
	return kek, nil
}

// Unwrap opens w with the reader's key for scope and rid. Another reader's
// key, another scope or RID, or a changed wrap is ErrNotOpened.
func (k *ReadKey) Unwrap(w *Wrapped, scope Scope, rid RID) (DEK, error) {
	if !scope.Valid() {
		return DEK{}, fmt.Errorf("XGRK2: scope %d: want 1 (rules) or 2 (logs)", scope)
	}
	writer, err := ecdh.P256().NewPublicKey(w.Writer[:])
	if err != nil {
		return DEK{}, malformed("XGRK2", "writerPub", "not an uncompressed P-256 point")
	}
	kek, err := kekOf(k.priv, writer, w.Salt[:], scope, rid)
	if err != nil {
		return DEK{}, err
	}
	pt, err := gcm(kek).Open(nil, w.IV[:], w.Box[:], nil)
	if err != nil {
		return DEK{}, fmt.Errorf("XGRK2 for scope %d and rid %s: %w with this read key: wrapped for another key, scope or rid, or changed", scope, rid, ErrNotOpened)
	}
	var d DEK
	copy(d[:], pt)
	clear(pt)
	return d, nil
}

// Bytes is the 141-byte wrap (the grants' enc_dek).
func (w *Wrapped) Bytes() []byte {
	b := make([]byte, 0, WrappedSize)
	b = append(b, w.Writer[:]...)
	b = append(b, w.Salt[:]...)
	b = append(b, w.IV[:]...)
	return append(b, w.Box[:]...)
}

// String is "XGRK2.P256HKDFGCM." and the lowercase hex of Bytes.
func (w *Wrapped) String() string { return WrappedPrefix + hex.EncodeToString(w.Bytes()) }

// ParseWrapped reads an XGRK2 wrapped key: "XGRK2.P256HKDFGCM.<hex>", or
// "0x<hex>" as the grant listing returns it; the hex is 141 bytes. The
// writer key must be a P-256 point.
func ParseWrapped(s string) (*Wrapped, error) {
	const f = "XGRK2"
	var h string
	switch {
	case strings.HasPrefix(s, WrappedPrefix):
		h = s[len(WrappedPrefix):]
	case strings.HasPrefix(s, "0x"):
		h = s[2:]
	case strings.HasPrefix(s, "XGRK"):
		return nil, malformed(f, "prefix", "want %q (version 2, suite P256HKDFGCM)", WrappedPrefix)
	default:
		return nil, malformed(f, "prefix", "want %q or 0x-prefixed hex", WrappedPrefix)
	}
	if len(h) != 2*WrappedSize {
		if len(h) > 2*WrappedSize {
			return nil, tooLarge(f, "payload", "%d hex digits, want %d (%d bytes: writerPub 65, salt 16, iv 12, ct 32, tag 16)", len(h), 2*WrappedSize, WrappedSize)
		}
		return nil, malformed(f, "payload", "%d hex digits, want %d (%d bytes: writerPub 65, salt 16, iv 12, ct 32, tag 16)", len(h), 2*WrappedSize, WrappedSize)
	}
	var raw [WrappedSize]byte
	if _, err := hex.Decode(raw[:], []byte(h)); err != nil {
		return nil, malformed(f, "payload", "not hex")
	}
	var w Wrapped
	n := copy(w.Writer[:], raw[:])
	n += copy(w.Salt[:], raw[n:])
	n += copy(w.IV[:], raw[n:])
	copy(w.Box[:], raw[n:])
	if w.Writer[0] != 0x04 {
		return nil, malformed(f, "writerPub", "first byte 0x%02x, want 0x04 (SEC1 uncompressed)", w.Writer[0])
	}
	if _, err := ecdh.P256().NewPublicKey(w.Writer[:]); err != nil {
		return nil, malformed(f, "writerPub", "not a point on P-256")
	}
	return &w, nil
}
