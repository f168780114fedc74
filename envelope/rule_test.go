package envelope_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/envelope"
)

// A rule's envelope is read from a file without its surrounding white
// space, a file longer than any rule's envelope is refused, and OpenWith
// opens it with the reader's key only.
func TestReadRuleTextAndOpenWith(t *testing.T) {
	reader, other := mustKey(t), mustKey(t)
	sr, err := envelope.SealRule([]byte(secretDoc), reader.Public())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "rule.xgr1")
	if err := os.WriteFile(file, []byte("\n  "+sr.Sealed.String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	text, err := envelope.ReadRuleText(file)
	if err != nil || text != sr.Sealed.String() {
		t.Fatalf("ReadRuleText = %q, %v", text, err)
	}
	s, err := envelope.ParseSealed(text, envelope.MaxRuleBytes)
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := s.OpenWith(reader, sr.Wrapped, envelope.ScopeRule); err != nil || string(plain) != secretDoc {
		t.Fatalf("OpenWith = %q, %v", plain, err)
	}
	if _, err := s.OpenWith(other, sr.Wrapped, envelope.ScopeRule); !errors.Is(err, envelope.ErrNotOpened) {
		t.Errorf("another reader's key: %v", err)
	}
	if _, err := s.OpenWith(reader, sr.Wrapped, envelope.ScopeLog); !errors.Is(err, envelope.ErrNotOpened) {
		t.Errorf("another scope: %v", err)
	}

	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, envelope.SealedTextLimit(envelope.MaxRuleBytes)+1025), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := envelope.ReadRuleText(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized file: %v", err)
	}
	if _, err := envelope.ReadRuleText(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
