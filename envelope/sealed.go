package envelope

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// The XGR1 envelope.
const (
	// SealedPrefix starts every XGR1 envelope.
	SealedPrefix = "XGR1."
	// Suite is the only content suite: AES-256-GCM.
	Suite = "AESGCM256"
	// NonceSize and TagSize are AES-GCM's.
	NonceSize = 12
	TagSize   = 16

	// MaxRuleBytes bounds a rule's plaintext: MaxXRC137Bytes of the public
	// XDaLa limits, the largest decrypted XRC-137 document.
	MaxRuleBytes = 131072
	// MaxLogBytes bounds a log bundle's plaintext. The public limits give
	// none; this is xgr's cap.
	MaxLogBytes = 1 << 20
)

// DEK is a data key: AES-256, fresh for every envelope. Its String hides
// the key, so a DEK printed by mistake shows nothing.
type DEK [32]byte

// NewDEK returns 32 random bytes.
func NewDEK() (DEK, error) {
	var d DEK
	if _, err := rand.Read(d[:]); err != nil {
		return DEK{}, fmt.Errorf("new data key: %w", err)
	}
	return d, nil
}

func (DEK) String() string   { return "DEK(hidden)" }
func (DEK) GoString() string { return "DEK(hidden)" }

// RID identifies an envelope: SHA-256(nonce ‖ ciphertext).
type RID [32]byte

// String is the RID as an envelope and the grant methods write it: "0x" and
// 64 lowercase hex digits.
func (r RID) String() string { return "0x" + hex.EncodeToString(r[:]) }

// Hex is the RID as the HKDF info writes it: 64 lowercase hex digits.
func (r RID) Hex() string { return hex.EncodeToString(r[:]) }

// ParseRID reads 64 hex digits, with or without "0x".
func ParseRID(s string) (RID, error) {
	var r RID
	h := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(h) != 64 {
		return r, malformed("RID", "rid", "want 32 bytes as 64 hex digits (optionally 0x-prefixed), got %d characters", len(s))
	}
	if _, err := hex.Decode(r[:], []byte(h)); err != nil {
		return RID{}, malformed("RID", "rid", "not hex")
	}
	return r, nil
}

// Sealed is an XGR1 envelope.
type Sealed struct {
	RID   RID
	Nonce [NonceSize]byte
	// Box is ciphertext ‖ tag.
	Box []byte
}

// Seal encrypts plaintext under dek with a random nonce.
func Seal(dek DEK, plaintext []byte) (*Sealed, error) {
	var nonce [NonceSize]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, fmt.Errorf("XGR1: nonce: %w", err)
	}
	return sealWith(dek, nonce, plaintext), nil
}

// sealWith is Seal with a given nonce (test vectors).
func sealWith(dek DEK, nonce [NonceSize]byte, plaintext []byte) *Sealed {
	box := gcm(dek[:]).Seal(nil, nonce[:], plaintext, nil)
	return &Sealed{RID: ridOf(nonce[:], box[:len(box)-TagSize]), Nonce: nonce, Box: box}
}

// ridOf is SHA-256(nonce ‖ ciphertext).
func ridOf(nonce, ciphertext []byte) RID {
	h := sha256.New()
	h.Write(nonce)
	h.Write(ciphertext)
	var r RID
	h.Sum(r[:0])
	return r
}

// String is the envelope's text.
func (s *Sealed) String() string {
	body := make([]byte, 0, NonceSize+len(s.Box))
	body = append(append(body, s.Nonce[:]...), s.Box...)
	return SealedPrefix + Suite + "." + s.RID.String() + "." + base64.StdEncoding.EncodeToString(body)
}

// Open decrypts the envelope with dek. A wrong key or changed content is
// ErrNotOpened.
func (s *Sealed) Open(dek DEK) ([]byte, error) {
	pt, err := gcm(dek[:]).Open(nil, s.Nonce[:], s.Box, nil)
	if err != nil {
		return nil, fmt.Errorf("XGR1 %s: %w: wrong data key, or the content was changed", s.RID, ErrNotOpened)
	}
	return pt, nil
}

// SealedTextLimit is the longest envelope text whose plaintext fits in
// maxPlain bytes.
func SealedTextLimit(maxPlain int) int {
	return len(SealedPrefix+Suite+".") + 66 + 1 + base64.StdEncoding.EncodedLen(NonceSize+maxPlain+TagSize)
}

// ParseSealed reads an XGR1 envelope whose plaintext is at most maxPlain
// bytes (MaxRuleBytes, MaxLogBytes); the length is checked before anything
// is decoded. The rid must be SHA-256(nonce ‖ ciphertext) of the body.
func ParseSealed(text string, maxPlain int) (*Sealed, error) {
	const f = "XGR1"
	if limit := SealedTextLimit(maxPlain); len(text) > limit {
		return nil, tooLarge(f, "envelope", "%d bytes, more than the %d of a %d-byte plaintext", len(text), limit, maxPlain)
	}
	rest, ok := strings.CutPrefix(text, SealedPrefix)
	if !ok {
		return nil, malformed(f, "prefix", "want %q", SealedPrefix)
	}
	suite, rest, ok := strings.Cut(rest, ".")
	if !ok {
		return nil, malformed(f, "suite", "want %q followed by \".<rid>.<body>\"", Suite)
	}
	if suite != Suite {
		return nil, malformed(f, "suite", "%d-character suite is not supported; want %q", len(suite), Suite)
	}
	ridText, body, ok := strings.Cut(rest, ".")
	if !ok {
		return nil, malformed(f, "rid", "want \"0x\" and 64 hex digits followed by \".<body>\"")
	}
	if len(ridText) != 66 || !strings.HasPrefix(ridText, "0x") {
		return nil, malformed(f, "rid", "want \"0x\" and 64 hex digits, got %d characters", len(ridText))
	}
	var s Sealed
	if _, err := hex.Decode(s.RID[:], []byte(ridText[2:])); err != nil {
		return nil, malformed(f, "rid", "not hex")
	}
	if strings.ContainsAny(body, "\r\n") {
		return nil, malformed(f, "body", "contains a line break; want one line of standard base64")
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(body)
	if err != nil {
		return nil, malformed(f, "body", "not standard padded base64 (%v)", err)
	}
	if len(raw) < NonceSize+TagSize {
		return nil, malformed(f, "body", "%d bytes, shorter than nonce (%d) and tag (%d)", len(raw), NonceSize, TagSize)
	}
	copy(s.Nonce[:], raw)
	s.Box = raw[NonceSize:]
	if got := ridOf(s.Nonce[:], s.Box[:len(s.Box)-TagSize]); got != s.RID {
		return nil, malformed(f, "rid", "%s is not SHA-256(nonce ‖ ciphertext) of the body (%s): the header or the body was changed", s.RID, got)
	}
	return &s, nil
}

// IsSealed reports whether doc (a rule as stored on chain, leading white
// space allowed) is an XGR1 envelope rather than plain JSON.
func IsSealed(doc []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(doc[:min(len(doc), 64)], " \t\r\n"), []byte(SealedPrefix))
}

// gcm is AES-256-GCM under a 32-byte key.
func gcm(key []byte) cipher.AEAD {
	b, err := aes.NewCipher(key)
	if err != nil {
		panic("envelope: AES-256 key: " + err.Error()) // keys are 32 bytes by type
	}
	a, err := cipher.NewGCM(b)
	if err != nil {
		panic("envelope: GCM: " + err.Error())
	}
	return a
}
