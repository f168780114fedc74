package envelope

import (
	"crypto/ecdh"
	"fmt"
	"io"
	"os"
	"strings"
)

// SealedRule is a rule sealed for its first reader: the envelope and the
// DEK wrapped for that reader with scope 1.
type SealedRule struct {
	Sealed  *Sealed
	Wrapped *Wrapped
}

// SealRule seals a rule document (at most MaxRuleBytes) under a fresh DEK
// and wraps the DEK for reader with scope 1.
func SealRule(doc []byte, reader *ecdh.PublicKey) (*SealedRule, error) {
	if len(doc) > MaxRuleBytes {
		return nil, fmt.Errorf("rule document: %d bytes, more than the %d an XRC-137 document may have", len(doc), MaxRuleBytes)
	}
	dek, err := NewDEK()
	if err != nil {
		return nil, err
	}
	defer clear(dek[:])
	s, err := Seal(dek, doc)
	if err != nil {
		return nil, err
	}
	w, err := Wrap(dek, reader, ScopeRule, s.RID)
	if err != nil {
		return nil, err
	}
	return &SealedRule{Sealed: s, Wrapped: w}, nil
}

// OpenRule opens a sealed rule: blob an XGR1 envelope of at most
// MaxRuleBytes of plaintext, wrapped the DEK wrapped for key with scope 1
// and the envelope's RID.
func OpenRule(blob, wrapped string, key *ReadKey) ([]byte, error) {
	return Open(blob, wrapped, key, ScopeRule, MaxRuleBytes)
}

// Open opens an XGR1 envelope (at most maxPlain bytes of plaintext) with a
// read key and the DEK wrapped for it with scope and the envelope's RID.
func Open(blob, wrapped string, key *ReadKey, scope Scope, maxPlain int) ([]byte, error) {
	s, err := ParseSealed(blob, maxPlain)
	if err != nil {
		return nil, err
	}
	w, err := ParseWrapped(wrapped)
	if err != nil {
		return nil, err
	}
	return s.OpenWith(key, w, scope)
}

// OpenWith opens the envelope with a read key and the DEK wrapped for it
// with scope and the envelope's RID; the DEK is cleared afterwards.
func (s *Sealed) OpenWith(key *ReadKey, w *Wrapped, scope Scope) ([]byte, error) {
	dek, err := key.Unwrap(w, scope, s.RID)
	if err != nil {
		return nil, err
	}
	defer clear(dek[:])
	return s.Open(dek)
}

// ReadRuleText reads the text of a rule's XGR1 envelope from file,
// surrounding white space dropped, refusing a file longer than the longest
// envelope of a MaxRuleBytes rule (with room for white space) before it is
// read whole. It does not parse the text (ParseSealed).
func ReadRuleText(file string) (string, error) {
	limit := int64(SealedTextLimit(MaxRuleBytes)) + 1024
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return "", err
	}
	if int64(len(data)) > limit {
		return "", fmt.Errorf("%s: larger than %d bytes, the longest envelope of a %d-byte rule", file, limit, MaxRuleBytes)
	}
	return strings.TrimSpace(string(data)), nil
}
