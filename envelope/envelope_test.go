package envelope_test

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/envelope"
)

const secretDoc = `{"payload":{"X":{"type":"int64"}},"rules":["[X] > 0"],"secret":"TOP-SECRET-PLAINTEXT"}`

func mustKey(t *testing.T) *envelope.ReadKey {
	t.Helper()
	k, err := envelope.GenerateReadKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// noLeak fails when an error text carries the plaintext or key material.
func noLeak(t *testing.T, err error, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && strings.Contains(err.Error(), s) {
			t.Fatalf("error leaks secret material: %v", err)
		}
	}
}

// flipHex changes the hex digit at i to another hex digit.
func flipHex(b []byte, i int) {
	if b[i] == '0' {
		b[i] = '1'
	} else {
		b[i] = '0'
	}
}

func TestSealRuleRoundTripAndRefusals(t *testing.T) {
	key, other := mustKey(t), mustKey(t)
	sr, err := envelope.SealRule([]byte(secretDoc), key.Public())
	if err != nil {
		t.Fatal(err)
	}
	blob, enc := sr.Sealed.String(), sr.Wrapped.String()
	if !strings.HasPrefix(blob, "XGR1.AESGCM256.0x"+sr.Sealed.RID.Hex()+".") || !strings.HasPrefix(enc, "XGRK2.P256HKDFGCM.04") || len(enc) != len("XGRK2.P256HKDFGCM.")+282 {
		t.Fatalf("blob %s\nencDEK %s", blob, enc)
	}
	if strings.Contains(blob, "TOP-SECRET") || !envelope.IsSealed([]byte(" \n"+blob)) || envelope.IsSealed([]byte(secretDoc)) {
		t.Fatal("IsSealed or the blob is wrong")
	}
	pt, err := envelope.OpenRule(blob, enc, key)
	if err != nil || string(pt) != secretDoc {
		t.Fatalf("open: %q, %v", pt, err)
	}
	// The stored form of the grant (0x-hex of 141 bytes) opens too.
	if pt, err := envelope.OpenRule(blob, "0x"+strings.TrimPrefix(enc, envelope.WrappedPrefix), key); err != nil || string(pt) != secretDoc {
		t.Fatalf("0x form: %v", err)
	}

	// Another reader's key.
	_, err = envelope.OpenRule(blob, enc, other)
	if !errors.Is(err, envelope.ErrNotOpened) {
		t.Fatalf("other key: %v", err)
	}
	noLeak(t, err, "TOP-SECRET")

	// Wrapped for the same key with scope 2: does not open as a rule.
	dek, _ := envelope.NewDEK()
	s, _ := envelope.Seal(dek, []byte(secretDoc))
	w2, _ := envelope.Wrap(dek, key.Public(), envelope.ScopeLog, s.RID)
	if _, err := envelope.OpenRule(s.String(), w2.String(), key); !errors.Is(err, envelope.ErrNotOpened) || !strings.Contains(err.Error(), "scope 1") {
		t.Fatalf("scope-2 wrap opened as rule: %v", err)
	}
	// Open is the same for logs, with scope 2 and the log bound.
	if pt, err := envelope.Open(s.String(), w2.String(), key, envelope.ScopeLog, envelope.MaxLogBytes); err != nil || string(pt) != secretDoc {
		t.Fatalf("Open scope 2: %q, %v", pt, err)
	}
	// A wrap for another RID (the same DEK) does not open this envelope.
	s2, _ := envelope.Seal(dek, []byte("other content"))
	wOther, _ := envelope.Wrap(dek, key.Public(), envelope.ScopeRule, s2.RID)
	if _, err := envelope.OpenRule(s.String(), wOther.String(), key); !errors.Is(err, envelope.ErrNotOpened) {
		t.Fatalf("foreign-rid wrap: %v", err)
	}

	// Tampered body: one ciphertext byte flipped. The RID no longer matches.
	body := blob[strings.LastIndexByte(blob, '.')+1:]
	raw, _ := base64.StdEncoding.DecodeString(body)
	raw[envelope.NonceSize] ^= 1
	tampered := blob[:strings.LastIndexByte(blob, '.')+1] + base64.StdEncoding.EncodeToString(raw)
	var fe *envelope.FormatError
	if _, err := envelope.OpenRule(tampered, enc, key); !errors.As(err, &fe) || fe.Part != "rid" || !errors.Is(err, envelope.ErrMalformed) {
		t.Fatalf("tampered ciphertext: %v", err)
	}
	// Tampered tag only (not covered by the RID): authentication fails.
	raw[envelope.NonceSize] ^= 1
	raw[len(raw)-1] ^= 1
	tamperedTag := blob[:strings.LastIndexByte(blob, '.')+1] + base64.StdEncoding.EncodeToString(raw)
	if _, err := envelope.OpenRule(tamperedTag, enc, key); !errors.Is(err, envelope.ErrNotOpened) {
		t.Fatalf("tampered tag: %v", err)
	}
	// Tampered wrap: a byte of the wrapped DEK's ciphertext.
	encRaw := []byte(enc)
	i := len(envelope.WrappedPrefix) + 2*(65+16+12) + 3
	flipHex(encRaw, i)
	if _, err := envelope.OpenRule(blob, string(encRaw), key); !errors.Is(err, envelope.ErrNotOpened) {
		t.Fatalf("tampered wrap: %v", err)
	}
	// Tampered writer key: not a point.
	encRaw = []byte(enc)
	flipHex(encRaw, len(envelope.WrappedPrefix)+10)
	if _, err := envelope.OpenRule(blob, string(encRaw), key); !errors.As(err, &fe) || fe.Part != "writerPub" {
		t.Fatalf("tampered writer key: %v", err)
	}
}

func TestParseSealedRefusals(t *testing.T) {
	dek, _ := envelope.NewDEK()
	s, _ := envelope.Seal(dek, []byte(`{"a":1}`))
	good := s.String()
	rid := s.RID.String()
	otherRID := s.RID
	otherRID[0] ^= 0xff
	body := good[strings.LastIndexByte(good, '.')+1:]
	for _, tc := range []struct {
		text, part string
		tooLarge   bool
	}{
		{"", "prefix", false},
		{"{\"rules\":[]}", "prefix", false},
		{"XGR2.AESGCM256." + rid + "." + body, "prefix", false},
		{"XGR1.CHACHA20." + rid + "." + body, "suite", false},
		{"XGR1.AESGCM256", "suite", false},
		{"XGR1.AESGCM256." + rid, "rid", false},
		{"XGR1.AESGCM256." + rid[2:] + "." + body, "rid", false},
		{"XGR1.AESGCM256.0x" + strings.Repeat("zz", 32) + "." + body, "rid", false},
		{"XGR1.AESGCM256." + otherRID.String() + "." + body, "rid", false},
		{"XGR1.AESGCM256." + rid + "." + body[:len(body)-1], "body", false},
		{"XGR1.AESGCM256." + rid + "." + body + "\n", "body", false},
		{"XGR1.AESGCM256." + rid + ".AAAA", "body", false},
		{"XGR1.AESGCM256." + rid + "." + strings.Repeat("A", envelope.SealedTextLimit(64)), "envelope", true},
	} {
		_, err := envelope.ParseSealed(tc.text, 64)
		var fe *envelope.FormatError
		if !errors.As(err, &fe) || fe.Part != tc.part || fe.Format != "XGR1" || errors.Is(err, envelope.ErrTooLarge) != tc.tooLarge {
			t.Errorf("ParseSealed(%.60q…): %v; want part %q (too large %v)", tc.text, err, tc.part, tc.tooLarge)
		}
	}
	if _, err := envelope.ParseSealed(good, 64); err != nil {
		t.Fatal(err)
	}
	// The rule bound is the public MaxXRC137Bytes.
	big := make([]byte, envelope.MaxRuleBytes+1)
	if _, err := envelope.SealRule(big, mustKey(t).Public()); err == nil {
		t.Fatal("sealed a rule over MaxRuleBytes")
	}
	sb, _ := envelope.Seal(dek, big)
	if _, err := envelope.ParseSealed(sb.String(), envelope.MaxRuleBytes); !errors.Is(err, envelope.ErrTooLarge) {
		t.Fatalf("over MaxRuleBytes: %v", err)
	}
}

func TestParseWrappedRefusals(t *testing.T) {
	key := mustKey(t)
	dek, _ := envelope.NewDEK()
	w, _ := envelope.Wrap(dek, key.Public(), envelope.ScopeRule, envelope.RID{1})
	h := strings.TrimPrefix(w.String(), envelope.WrappedPrefix)
	for _, tc := range []struct{ text, part string }{
		{"", "prefix"},
		{"XGRK1.P256HKDFGCM." + h, "prefix"},
		{"XGRK2.X25519." + h, "prefix"},
		{envelope.WrappedPrefix + h[:len(h)-2], "payload"},
		{envelope.WrappedPrefix + h + "00", "payload"},
		{envelope.WrappedPrefix + "zz" + h[2:], "payload"},
		{envelope.WrappedPrefix + "03" + h[2:], "writerPub"},
		{envelope.WrappedPrefix + "04" + strings.Repeat("00", 64) + h[130:], "writerPub"},
	} {
		_, err := envelope.ParseWrapped(tc.text)
		var fe *envelope.FormatError
		if !errors.As(err, &fe) || fe.Part != tc.part || fe.Format != "XGRK2" {
			t.Errorf("ParseWrapped(%.40q…): %v; want part %q", tc.text, err, tc.part)
		}
	}
	if _, err := envelope.Wrap(dek, key.Public(), 3, envelope.RID{}); err == nil {
		t.Error("wrapped for reserved scope 3")
	}
}

func TestReadKeyFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "read.key")
	k := mustKey(t)
	if err := envelope.WriteReadKeyFile(path, k); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v; want 0600", st.Mode(), err)
	}
	if err := envelope.WriteReadKeyFile(path, mustKey(t)); !errors.Is(err, envelope.ErrKeyFileExists) {
		t.Fatalf("overwrite: %v", err)
	}
	back, err := envelope.LoadReadKeyFile(path)
	if err != nil || envelope.PublicHex(back.Public()) != envelope.PublicHex(k.Public()) {
		t.Fatalf("load: %v", err)
	}
	pem, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(pem), "-----BEGIN PRIVATE KEY-----") {
		t.Fatalf("file is not PEM PKCS#8:\n%s", pem)
	}
	// The engine's key: file, or $XGR_READ_KEY, not both, not neither.
	if got, err := envelope.LoadReadKey("", string(pem)); err != nil || envelope.PublicHex(got.Public()) != envelope.PublicHex(k.Public()) {
		t.Fatalf("from env: %v", err)
	}
	if _, err := envelope.LoadReadKey(path, string(pem)); err == nil {
		t.Fatal("file and env both accepted")
	}
	if _, err := envelope.LoadReadKey("", ""); !errors.Is(err, envelope.ErrNoReadKey) {
		t.Fatalf("none: %v", err)
	}
	pub := k.Public().Bytes()
	if len(pub) != 65 || pub[0] != 4 || len(envelope.PublicHex(k.Public())) != 132 || len(envelope.Fingerprint(k.Public())) != 16 {
		t.Fatalf("public key %x", pub)
	}
	if fmtd := k.String(); strings.Contains(string(pem), fmtd) || fmtd != "ReadKey(hidden)" {
		t.Fatal("String shows the key")
	}

	for _, tc := range []struct{ in, part string }{
		{"", "form"},
		{"0x" + strings.Repeat("00", 32), "scalar"},
		{strings.Repeat("ff", 32), "scalar"},
		{"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "PEM"},
		{"-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n", "PEM"},
		{string(pem) + string(pem), "PEM"},
		{strings.Repeat("a", envelope.MaxReadKeyFile+1), "size"},
	} {
		_, err := envelope.ParseReadKey([]byte(tc.in))
		var fe *envelope.FormatError
		if !errors.As(err, &fe) || fe.Part != tc.part {
			t.Errorf("ParseReadKey(%.30q): %v; want part %q", tc.in, err, tc.part)
		}
	}
	for _, tc := range []struct{ in, part string }{
		{"04" + strings.Repeat("00", 64), "prefix"},
		{"0x02" + strings.Repeat("11", 32), "form"},
		{"0x04" + strings.Repeat("11", 63), "length"},
		{"0x05" + strings.Repeat("11", 64), "form"},
		{"0x04" + strings.Repeat("11", 64), "point"},
		{"0x" + strings.Repeat("11", 66), "length"},
	} {
		_, err := envelope.ParsePublicHex(tc.in)
		var fe *envelope.FormatError
		if !errors.As(err, &fe) || fe.Part != tc.part {
			t.Errorf("ParsePublicHex(%.30q): %v; want part %q", tc.in, err, tc.part)
		}
	}
}

// BenchmarkLogBundle is the cost per step of an encrypted 4 KiB log
// bundle: seal and wrap for one reader, then unwrap and open.
func BenchmarkLogBundle(b *testing.B) {
	key, _ := envelope.GenerateReadKey()
	bundle := make([]byte, 4096)
	for i := range bundle {
		bundle[i] = byte('a' + i%26)
	}
	var s *envelope.Sealed
	var w *envelope.Wrapped
	b.Run("seal+wrap", func(b *testing.B) {
		for b.Loop() {
			dek, _ := envelope.NewDEK()
			s, _ = envelope.Seal(dek, bundle)
			w, _ = envelope.Wrap(dek, key.Public(), envelope.ScopeLog, s.RID)
		}
	})
	text, enc := s.String(), w.String()
	b.Run("unwrap+open", func(b *testing.B) {
		for b.Loop() {
			ps, err := envelope.ParseSealed(text, envelope.MaxLogBytes)
			if err != nil {
				b.Fatal(err)
			}
			pw, _ := envelope.ParseWrapped(enc)
			dek, err := key.Unwrap(pw, envelope.ScopeLog, ps.RID)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := ps.Open(dek); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A DEK or read key printed by mistake shows nothing of the key.
func TestKeysDoNotPrint(t *testing.T) {
	dek, _ := envelope.NewDEK()
	k := mustKey(t)
	pem, _ := k.MarshalPEM()
	for _, s := range []string{fmt.Sprintf("%v %s %x %+v %#v", dek, dek, dek, dek, dek), fmt.Sprintf("%v %s %+v %#v", k, k, k, k)} {
		if strings.Contains(s, hex.EncodeToString(dek[:4])) || strings.Contains(s, string(pem[30:60])) || !strings.Contains(s, "hidden") {
			t.Fatalf("printed: %s", s)
		}
	}
}
