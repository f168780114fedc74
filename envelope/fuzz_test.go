package envelope_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/xgr-sidecar/xgr/envelope"
)

// wantFormatError fails unless err is a *FormatError that is malformed or
// too large.
func wantFormatError(t *testing.T, err error) {
	t.Helper()
	var fe *envelope.FormatError
	if !errors.As(err, &fe) || !(errors.Is(err, envelope.ErrMalformed) || errors.Is(err, envelope.ErrTooLarge)) {
		t.Fatalf("error %v (%T) is not a FormatError", err, err)
	}
}

// FuzzParseSealed: any text either parses into an envelope that prints and
// parses back to the same, with the RID the hash of its body, or is a
// FormatError; the plaintext bound holds.
func FuzzParseSealed(f *testing.F) {
	f.Add("XGR1.AESGCM256.0x8c1a2b53d9e8e1e3a7b3fa90ef0a9f7d0f8be0c9f99fd28d0d7fa9b6b5c3a1b2.SGVsbG8gV29ybGQ=")
	f.Add("XGR1.AESGCM256.0xaaa1e7950ce9fe82ce455b274f319348b03d1f7f7badccccae3d158ebd12124e.td4kXA2gZM5SWW+wLHQNInjTaqxHCu4q2HtUpB4KlqLxGu5BwX7159bCG5MkuBYT94ikxscFnGpRGF0aPhH0MfG9swxSf4HSDjOcJpQVTTArcnvpYNxAm/+Tfarmw8FYVkjtET+Q3M+YuLiqe7PjkEqGmx3XNENe")
	f.Add("XGR1.AESGCM256..")
	f.Add("XGR1...")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := envelope.ParseSealed(text, 256)
		if err != nil {
			wantFormatError(t, err)
			return
		}
		if len(s.Box) < envelope.TagSize || len(s.Box)-envelope.TagSize > 256 {
			t.Fatalf("accepted a %d-byte box over the bound", len(s.Box))
		}
		again, err := envelope.ParseSealed(s.String(), 256)
		if err != nil || again.RID != s.RID || again.Nonce != s.Nonce || !bytes.Equal(again.Box, s.Box) {
			t.Fatalf("round trip: %v", err)
		}
		// A random DEK does not open it (and does not panic).
		dek, _ := envelope.NewDEK()
		if _, err := s.Open(dek); !errors.Is(err, envelope.ErrNotOpened) {
			t.Fatalf("opened with a random key: %v", err)
		}
	})
}

// FuzzParseWrapped: any text either parses into a 141-byte wrap that
// prints and parses back to the same, or is a FormatError; unwrapping a
// parsed wrap with an unrelated key fails cleanly.
func FuzzParseWrapped(f *testing.F) {
	f.Add("XGRK2.P256HKDFGCM.04f5f5cfb41fde8a4017de73a011d7d12b56a7b03bb7845406a141a7b605f06a2b0ee3b17be1d69dd5076f7d8639b043dbcad06731c28b3491c0dc8a8fed4b00c9a9b4cf65eba7bbdedd8f08722f218177454364a6c3fdbd5548e155e4ad9708dfc6844e1d6e067fa5080b4272c77404ecaf8f8361f6be3966ca81ec17298feab2dd754d3118e75c336ad6a390")
	f.Add("0x04f5f5cfb41fde8a4017de73a011d7d12b56a7b03bb7845406a141a7b605f06a2b0ee3b17be1d69dd5076f7d8639b043dbcad06731c28b3491c0dc8a8fed4b00c9a9b4cf65eba7bbdedd8f08722f218177454364a6c3fdbd5548e155e4ad9708dfc6844e1d6e067fa5080b4272c77404ecaf8f8361f6be3966ca81ec17298feab2dd754d3118e75c336ad6a390")
	f.Add("XGRK2.P256HKDFGCM.")
	f.Add("XGRK1.")
	key, err := envelope.GenerateReadKey()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		w, err := envelope.ParseWrapped(text)
		if err != nil {
			wantFormatError(t, err)
			return
		}
		if len(w.Bytes()) != envelope.WrappedSize {
			t.Fatalf("%d bytes", len(w.Bytes()))
		}
		again, err := envelope.ParseWrapped(w.String())
		if err != nil || *again != *w {
			t.Fatalf("round trip: %v", err)
		}
		if _, err := key.Unwrap(w, envelope.ScopeRule, envelope.RID{}); !errors.Is(err, envelope.ErrNotOpened) {
			t.Fatalf("unwrap with an unrelated key: %v", err)
		}
	})
}

// FuzzParseReadKey: any file content is a P-256 key or a FormatError.
func FuzzParseReadKey(f *testing.F) {
	f.Add([]byte("a57bb909cb1c3eebc1af267f27df6e83091e2c607518506b74dd7dd9b62d8e3d"))
	f.Add([]byte("-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgpXu5Ccs=\n-----END PRIVATE KEY-----\n"))
	f.Add([]byte("-----BEGIN EC PRIVATE KEY-----\n\n-----END EC PRIVATE KEY-----\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := envelope.ParseReadKey(data)
		if err != nil {
			wantFormatError(t, err)
			return
		}
		if len(k.Public().Bytes()) != envelope.PublicKeySize {
			t.Fatal("public key is not 65 bytes")
		}
	})
}

// FuzzParsePublicHex: any text is a 65-byte P-256 key or a FormatError.
func FuzzParsePublicHex(f *testing.F) {
	f.Add("0x042b8d8a013427f9690318fe2f06e2a48e3002a8d8861615428dc82b38e8fd1ffb6e41351b6e22a3038a333b29de44af064432adbfe0a2988c0d62ce5fa3bdf820")
	f.Add("0x02")
	f.Fuzz(func(t *testing.T, text string) {
		pub, err := envelope.ParsePublicHex(text)
		if err != nil {
			wantFormatError(t, err)
			return
		}
		if envelope.PublicHex(pub) != text && len(text) != 132 {
			t.Fatalf("accepted %q as %s", text, envelope.PublicHex(pub))
		}
	})
}
