package envelope

import (
	"bytes"
	"crypto/ecdh"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/xgr-sidecar/xgr/internal/toolbin"
)

// vector is one entry of testdata/vectors.json: every input of a seal and
// wrap, and the exact blob and wrapped key they give.
type vector struct {
	Name               string `json:"name"`
	Scope              Scope  `json:"scope"`
	Plaintext          string `json:"plaintext"`
	ReadKey            string `json:"readKey"`
	ReadPublicKey      string `json:"readPublicKey"`
	DEK                string `json:"dek"`
	Nonce              string `json:"nonce"`
	EphemeralKey       string `json:"ephemeralKey"`
	EphemeralPublicKey string `json:"ephemeralPublicKey"`
	Salt               string `json:"salt"`
	IV                 string `json:"iv"`
	RID                string `json:"rid"`
	Blob               string `json:"blob"`
	EncDEK             string `json:"encDEK"`
}

func loadVectors(t *testing.T) []vector {
	t.Helper()
	raw, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []vector
	if err := json.Unmarshal(raw, &vs); err != nil {
		t.Fatal(err)
	}
	if len(vs) < 3 {
		t.Fatalf("%d vectors, want at least 3", len(vs))
	}
	return vs
}

func unhex(t *testing.T, s string, n int) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != n {
		t.Fatalf("vector hex %q: %d bytes, %v; want %d", s, len(b), err, n)
	}
	return b
}

// The committed vectors, without node: Go produces exactly the blob and
// wrapped key from the fixed inputs, and opens them with the read key.
func TestVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			var dek DEK
			copy(dek[:], unhex(t, v.DEK, 32))
			var nonce [NonceSize]byte
			copy(nonce[:], unhex(t, v.Nonce, NonceSize))
			var salt [16]byte
			copy(salt[:], unhex(t, v.Salt, 16))
			var iv [NonceSize]byte
			copy(iv[:], unhex(t, v.IV, NonceSize))
			eph, err := ecdh.P256().NewPrivateKey(unhex(t, v.EphemeralKey, 32))
			if err != nil {
				t.Fatal(err)
			}
			if PublicHex(eph.PublicKey()) != v.EphemeralPublicKey {
				t.Fatalf("ephemeral public key %s, vector says %s", PublicHex(eph.PublicKey()), v.EphemeralPublicKey)
			}
			key, err := ParseReadKey([]byte(v.ReadKey))
			if err != nil {
				t.Fatal(err)
			}
			if PublicHex(key.Public()) != v.ReadPublicKey {
				t.Fatalf("read public key %s, vector says %s", PublicHex(key.Public()), v.ReadPublicKey)
			}

			s := sealWith(dek, nonce, []byte(v.Plaintext))
			if s.String() != v.Blob || s.RID.String() != v.RID {
				t.Fatalf("seal:\n got %s (rid %s)\nwant %s (rid %s)", s, s.RID, v.Blob, v.RID)
			}
			w, err := wrapWith(eph, salt, iv, dek, key.Public(), v.Scope, s.RID)
			if err != nil || w.String() != v.EncDEK {
				t.Fatalf("wrap: %v\n got %s\nwant %s", err, w, v.EncDEK)
			}

			ps, err := ParseSealed(v.Blob, MaxLogBytes)
			if err != nil || ps.RID.String() != v.RID {
				t.Fatalf("parse blob: %v", err)
			}
			pw, err := ParseWrapped(v.EncDEK)
			if err != nil {
				t.Fatal(err)
			}
			got, err := key.Unwrap(pw, v.Scope, ps.RID)
			if err != nil || got != dek {
				t.Fatalf("unwrap: %v (same DEK: %v)", err, got == dek)
			}
			pt, err := ps.Open(got)
			if err != nil || string(pt) != v.Plaintext {
				t.Fatalf("open: %q, %v", pt, err)
			}
			// The other scope does not open it.
			if _, err := key.Unwrap(pw, 3-v.Scope, ps.RID); err == nil {
				t.Fatal("unwrapped with the other scope")
			}
		})
	}
}

// node runs testdata/xgr1.mjs (WebCrypto) on jobs.
func node(t *testing.T, jobs any) []map[string]string {
	t.Helper()
	bin, err := toolbin.Find("node")
	if err != nil {
		t.Fatalf("%v\nthe interoperability test runs an independent WebCrypto implementation with Node.js (18 or later): install it (Debian: apt-get install nodejs; or https://nodejs.org), or point $%s at the binary", err, toolbin.EnvName("node"))
	}
	in, err := json.Marshal(jobs)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "testdata/xgr1.mjs")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node testdata/xgr1.mjs: %v\n%s", err, stderr.String())
	}
	var res []map[string]string
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("node output %q: %v", out, err)
	}
	return res
}

// Interoperability with an independent implementation (Node.js WebCrypto):
// from the vectors' fixed inputs it produces the same bytes; with fresh
// randomness it seals and wraps what Go opens, and opens what Go seals and
// wraps, for both scopes.
func TestNodeInterop(t *testing.T) {
	vs := loadVectors(t)
	var jobs []map[string]any
	for _, v := range vs {
		jobs = append(jobs, map[string]any{"op": "seal", "readerPublicKey": v.ReadPublicKey, "scope": v.Scope, "plaintext": v.Plaintext,
			"fixed": map[string]string{"dek": v.DEK, "nonce": v.Nonce, "ephemeralKey": v.EphemeralKey, "ephemeralPublicKey": v.EphemeralPublicKey, "salt": v.Salt, "iv": v.IV}})
	}
	res := node(t, jobs)
	for i, v := range vs {
		if res[i]["error"] != "" || res[i]["blob"] != v.Blob || res[i]["encDEK"] != v.EncDEK || res[i]["rid"] != v.RID {
			t.Errorf("%s: node gave %v\nwant blob %s\n     encDEK %s", v.Name, res[i], v.Blob, v.EncDEK)
		}
	}

	key, err := GenerateReadKey()
	if err != nil {
		t.Fatal(err)
	}
	scalar := hex.EncodeToString(key.priv.Bytes())
	doc := `{"payload":{"X":{"type":"int64"}},"rules":["[X] > 0"],"note":"ünïcode ✓"}`

	// Node seals and wraps (fresh randomness); Go opens.
	jobs = nil
	for _, scope := range []Scope{ScopeRule, ScopeLog} {
		jobs = append(jobs, map[string]any{"op": "seal", "readerPublicKey": PublicHex(key.Public()), "scope": scope, "plaintext": doc})
	}
	res = node(t, jobs)
	for i, scope := range []Scope{ScopeRule, ScopeLog} {
		if res[i]["error"] != "" {
			t.Fatalf("node seal: %s", res[i]["error"])
		}
		s, err := ParseSealed(res[i]["blob"], MaxRuleBytes)
		if err != nil {
			t.Fatal(err)
		}
		w, err := ParseWrapped(res[i]["encDEK"])
		if err != nil {
			t.Fatal(err)
		}
		dek, err := key.Unwrap(w, scope, s.RID)
		if err != nil {
			t.Fatalf("scope %d: %v", scope, err)
		}
		pt, err := s.Open(dek)
		if err != nil || string(pt) != doc {
			t.Fatalf("scope %d: open %q, %v", scope, pt, err)
		}
		if scope == ScopeRule {
			if pt, err := OpenRule(res[i]["blob"], res[i]["encDEK"], key); err != nil || string(pt) != doc {
				t.Fatalf("OpenRule: %q, %v", pt, err)
			}
		}
	}

	// Go seals and wraps; node opens. A wrong scope fails there too.
	sr, err := SealRule([]byte(doc), key.Public())
	if err != nil {
		t.Fatal(err)
	}
	dek, err := NewDEK()
	if err != nil {
		t.Fatal(err)
	}
	logBlob, err := Seal(dek, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	logWrap, err := Wrap(dek, key.Public(), ScopeLog, logBlob.RID)
	if err != nil {
		t.Fatal(err)
	}
	open := func(blob, enc string, scope Scope) map[string]any {
		return map[string]any{"op": "open", "readKey": scalar, "readPublicKey": PublicHex(key.Public()), "scope": scope, "blob": blob, "encDEK": enc}
	}
	res = node(t, []map[string]any{
		open(sr.Sealed.String(), sr.Wrapped.String(), ScopeRule),
		open(logBlob.String(), logWrap.String(), ScopeLog),
		open(logBlob.String(), logWrap.String(), ScopeRule),
	})
	for i, r := range res[:2] {
		if r["error"] != "" || r["plaintext"] != doc {
			t.Errorf("node open %d: %v", i, r)
		}
	}
	if res[2]["error"] == "" {
		t.Errorf("node opened a scope-2 key as scope 1: %v", res[2])
	}
}
