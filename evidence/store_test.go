package evidence

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/internal/redisscan"
	"github.com/xgr-sidecar/xgr/testenv"
)

const (
	owner   = "0x00000000000000000000000000000000000000aa"
	auditor = "0x00000000000000000000000000000000000000bb"
	nokey   = "0x00000000000000000000000000000000000000cc"
	// secret is in every test bundle's payload: it must never reach Redis
	// in the clear when the bundle is encrypted.
	secret = "PASSPORT-X1234567-SECRET"
)

// orderBundle is a step of the demo's order flow (XRC137_A: an accepted
// order) with a KYC document number in its payload.
func orderBundle(iter int64) *Bundle {
	return &Bundle{Owner: owner, SessionID: 7, Pid: fmt.Sprintf("7:%d", iter), Iter: iter, Step: "A1",
		Rule: "0x5fbdb2315678afecb367f032d93f642f64180aa3", RuleHash: "0x" + strings.Repeat("3c", 32), Executed: iter,
		Payload:       json.RawMessage(`{"Order":"order-17","qty":3,"unitPrice":25,"customer":"` + secret + `","amount":123456789012345678901234567890}`),
		APISaves:      json.RawMessage(`{"fx":"1.0834"}`),
		ContractSaves: json.RawMessage(`{"balance":1000000000000000000}`),
		Outcome:       Outcome{Result: Valid, Output: json.RawMessage(`{"orderId":"order-17","qty":3,"unitPrice":25,"total":75,"orderStatus":"accepted"}`)},
		Receipt:       &Receipt{TxHash: "0x" + strings.Repeat("ab", 32), Block: 120, GasUsed: 51234, Status: "success"},
		Time:          1_800_000_000_000}
}

func newStore(t *testing.T, rdb redis.UniversalClient, mutate func(*Config)) *Store {
	t.Helper()
	cfg := Config{Grants: grant.New(rdb)}
	if mutate != nil {
		mutate(&cfg)
	}
	s, err := New(rdb, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPutOnce: a bundle is stored once with its TTL, the owner's and the
// branch's grants on its RID; a step committed again writes nothing; its
// JSON keeps numbers exact. Single Redis and a 3-master Cluster.
func TestPutOnce(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		s := newStore(t, rdb, nil)
		now := time.Now()
		b := orderBundle(1)
		p := Policy{ExpireDays: 7, Grants: []Reader{{Address: auditor, Rights: grant.Read, ExpireDays: 2}, {Address: owner, Rights: grant.Read}}}
		st, err := s.Put(ctx, b, p, now)
		if err != nil || !st.Created || st.RID != LogRID(owner, 7, 1) || st.Encrypted {
			t.Fatalf("put: %+v %v", st, err)
		}
		ttl, _ := s.TTL(ctx, owner, 7, 1)
		if ttl <= 7*24*time.Hour-time.Minute || ttl > 7*24*time.Hour {
			t.Fatalf("TTL %s, want 7 days", ttl)
		}
		body, err := s.Body(ctx, owner, 7, 1)
		if err != nil || !strings.Contains(body, `"amount":123456789012345678901234567890`) || !strings.Contains(body, `"sessionId":7`) {
			t.Fatalf("body: %s %v", body, err)
		}
		var back Bundle
		if err := json.Unmarshal([]byte(body), &back); err != nil || back.V != Version || back.Receipt.GasUsed != 51234 || back.Outcome.Result != Valid {
			t.Fatalf("decoded: %+v %v", back, err)
		}
		gs := grant.New(rdb)
		og, _ := gs.Get(ctx, st.RID, grant.ScopeLog, owner)
		ag, _ := gs.Get(ctx, st.RID, grant.ScopeLog, auditor)
		if !og.IsOwner || og.Rights != grant.All || og.SessionID != "7" || og.TxHash != b.Receipt.TxHash || og.RefAddr != b.Rule {
			t.Fatalf("owner grant: %+v", og)
		}
		if !grant.MayRead(ag, auditor, st.RID, grant.ScopeLog, now) || ag.ExpireAt.Sub(now).Round(time.Second) != 48*time.Hour {
			t.Fatalf("auditor grant: %+v", ag)
		}
		// Again, as after a crash between the step's commit and its ack:
		// nothing is written, the first bundle stays.
		b2 := orderBundle(1)
		b2.Time++
		st2, err := s.Put(ctx, b2, p, now.Add(time.Minute))
		if err != nil || st2.Created || st2.RID != st.RID {
			t.Fatalf("second put: %+v %v", st2, err)
		}
		if again, _ := s.Body(ctx, owner, 7, 1); again != body {
			t.Fatal("the second put changed the bundle")
		}
		keys, _ := redisscan.Keys(ctx, rdb, "xgr:log:*")
		if len(keys) != 1 || keys[0] != Key(owner, 7, 1) {
			t.Fatalf("bundle keys: %v", keys)
		}
		// Bad input creates no state.
		bad := orderBundle(2)
		bad.Pid = "7:3"
		if _, err := s.Put(ctx, bad, p, now); err == nil || !strings.Contains(err.Error(), "pid: want 7:2") {
			t.Fatalf("bad pid: %v", err)
		}
		if _, err := s.Head(ctx, owner, 7, 2); !errors.Is(err, ErrNotFound) {
			t.Fatalf("a refused bundle was stored: %v", err)
		}
	})
}

// TestBundleExpires: a bundle and its grants live for the branch's
// logExpireDays (days shortened to 100ms here), then read nothing.
func TestBundleExpires(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		s := newStore(t, rdb, func(c *Config) { c.Day = 100 * time.Millisecond })
		now := time.Now()
		st, err := s.Put(ctx, orderBundle(3), Policy{ExpireDays: 8, Grants: []Reader{{Address: auditor, Rights: grant.Read}}}, now)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Head(ctx, owner, 7, 3); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1200 * time.Millisecond)
		if _, err := s.Head(ctx, owner, 7, 3); !errors.Is(err, ErrNotFound) {
			t.Fatalf("bundle after its TTL: %v", err)
		}
		if _, err := s.Body(ctx, owner, 7, 3); !errors.Is(err, ErrNotFound) {
			t.Fatalf("body after its TTL: %v", err)
		}
		if g, _ := grant.New(rdb).Get(ctx, st.RID, grant.ScopeLog, auditor); g != nil {
			t.Fatalf("grant after the bundle's TTL: %+v", g)
		}
		left, _ := redisscan.Keys(ctx, rdb, "xgr:*")
		if len(left) != 0 {
			t.Fatalf("keys left after every TTL: %v", left)
		}
	})
}

func TestLifetime(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never dialled
	s := newStore(t, rdb, func(c *Config) { c.DefaultDays, c.MaxDays = 30, 90 })
	for days, want := range map[uint64]time.Duration{0: 30 * 24 * time.Hour, 1: 24 * time.Hour, 90: 90 * 24 * time.Hour, 1 << 31: 90 * 24 * time.Hour} {
		if got := s.Lifetime(days); got != want {
			t.Errorf("Lifetime(%d) = %s, want %s", days, got, want)
		}
	}
	for _, c := range []Config{{Grants: grant.New(rdb), MaxDays: HardMaxDays + 1}, {Grants: grant.New(rdb), DefaultDays: 40, MaxDays: 30}, {Grants: grant.New(rdb), MaxBytes: 100}, {}} {
		if _, err := New(rdb, c); err == nil {
			t.Errorf("config %+v accepted", c)
		}
	}
}

// TestEncodeTruncates: over the cap, the largest sections are replaced by
// markers with their size and hash; a bundle that cannot fit is refused.
func TestEncodeTruncates(t *testing.T) {
	b := orderBundle(1)
	big := `{"blob":"` + strings.Repeat("x", 10000) + `"}`
	b.Payload = json.RawMessage(big)
	b.Outcome.Reasons = []string{strings.Repeat("r", 5000)}
	out, tr, err := Encode(b, 4096)
	if err != nil || len(out) > 4096 || len(tr) != 1 || tr[0] != "payload" {
		t.Fatalf("%d bytes, truncated %v, %v", len(out), tr, err)
	}
	var back Bundle
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	var m Marker
	sum := sha256.Sum256([]byte(big))
	if json.Unmarshal(back.Payload, &m) != nil || !m.Truncated || m.Bytes != len(big) || m.SHA256 != fmt.Sprintf("0x%x", sum) {
		t.Fatalf("marker: %s", back.Payload)
	}
	if len(back.Outcome.Reasons[0]) > MaxReasonSize+20 || string(b.Payload) != big {
		t.Fatal("reasons not cut, or the caller's bundle changed")
	}
	b.Step = strings.Repeat("s", MaxStep)
	b.Outcome.Reasons = make([]string, MaxReasons)
	for i := range b.Outcome.Reasons {
		b.Outcome.Reasons[i] = strings.Repeat("r", MaxReasonSize)
	}
	if _, _, err := Encode(b, 4096); err == nil || !strings.Contains(err.Error(), "over the cap of 4096") {
		t.Fatalf("a bundle that cannot fit: %v", err)
	}
}

// fakeSealer encrypts with AES-GCM under a fresh key (a stand-in for
// package envelope: the test checks what reaches Redis, not the suite).
// Readers in noKey have no read key.
type fakeSealer struct {
	noKey map[string]bool
	fail  error
	calls int
}

func (f *fakeSealer) Seal(_ context.Context, plain []byte, readers []string) (*Sealed, error) {
	f.calls++
	if f.fail != nil {
		return nil, f.fail
	}
	key := make([]byte, 32)
	nonce := make([]byte, 12)
	rand.Read(key)
	rand.Read(nonce)
	blk, _ := aes.NewCipher(key)
	gcm, _ := cipher.NewGCM(blk)
	ct := gcm.Seal(nil, nonce, plain, nil)
	rid := grant.RID(sha256.Sum256(append(append([]byte{}, nonce...), ct...)))
	out := &Sealed{RID: rid, Blob: "XGR1.AESGCM256." + rid.String() + "." + base64.StdEncoding.EncodeToString(append(nonce, ct...)), Wrapped: map[string]string{}}
	for _, r := range readers {
		if f.noKey[r] {
			out.Missing = append(out.Missing, r)
			continue
		}
		out.Wrapped[r] = "XGRK2.P256HKDFGCM." + fmt.Sprintf("%x", sha256.Sum256([]byte(r+string(key))))
	}
	return out, nil
}

// dump is every key and value in Redis, as text.
func dump(t *testing.T, rdb redis.UniversalClient) string {
	t.Helper()
	ctx := context.Background()
	keys, err := redisscan.Keys(ctx, rdb, "*")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(keys)
	var sb strings.Builder
	for _, k := range keys {
		sb.WriteString(k + "\n")
		switch rdb.Type(ctx, k).Val() {
		case "hash":
			fmt.Fprintln(&sb, rdb.HGetAll(ctx, k).Val())
		case "zset":
			fmt.Fprintln(&sb, rdb.ZRangeWithScores(ctx, k, 0, -1).Val())
		case "string":
			fmt.Fprintln(&sb, rdb.Get(ctx, k).Val())
		default:
			t.Fatalf("%s: unexpected type %s", k, rdb.Type(ctx, k).Val())
		}
	}
	return sb.String()
}

// TestEncryptedBundle: with encryptLogs only the XGR1 envelope is stored;
// no key or value in Redis holds any of the plaintext; the owner and the
// auditor get grants with their wrapped keys; a grantee without a read
// key is reported and gets no grant. A failing sealer, or an owner without
// a key, stores nothing and its error holds no plaintext.
func TestEncryptedBundle(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		seal := &fakeSealer{noKey: map[string]bool{nokey: true}}
		s := newStore(t, rdb, func(c *Config) { c.Sealer = seal })
		now := time.Now()
		p := Policy{Encrypt: true, Grants: []Reader{{Address: auditor, Rights: grant.Read}, {Address: nokey, Rights: grant.Read}}}
		st, err := s.Put(ctx, orderBundle(4), p, now)
		if err != nil || !st.Created || !st.Encrypted || len(st.Unwrapped) != 1 || st.Unwrapped[0] != nokey {
			t.Fatalf("put: %+v %v", st, err)
		}
		h, err := s.Head(ctx, owner, 7, 4)
		if err != nil || !h.Encrypted || h.RID != st.RID || h.RID == LogRID(owner, 7, 4) {
			t.Fatalf("head: %+v %v", h, err)
		}
		body, _ := s.Body(ctx, owner, 7, 4)
		if !strings.HasPrefix(body, "XGR1.AESGCM256."+st.RID.String()+".") {
			t.Fatalf("body is not the envelope: %.80s", body)
		}
		all := dump(t, rdb)
		for _, plain := range []string{secret, "order-17", "123456789012345678901234567890", "accepted", `"payload"`, "1.0834", "unitPrice"} {
			if strings.Contains(all, plain) {
				t.Fatalf("Redis holds plaintext %q of an encrypted bundle", plain)
			}
		}
		gs := grant.New(rdb)
		og, _ := gs.Get(ctx, st.RID, grant.ScopeLog, owner)
		ag, _ := gs.Get(ctx, st.RID, grant.ScopeLog, auditor)
		ng, _ := gs.Get(ctx, st.RID, grant.ScopeLog, nokey)
		if og == nil || !strings.HasPrefix(og.EncDEK, "XGRK2.") || ag == nil || !strings.HasPrefix(ag.EncDEK, "XGRK2.") || ng != nil {
			t.Fatalf("grants: owner %+v auditor %+v no-key %+v", og, ag, ng)
		}
		// Again: no second sealing, no second grant set.
		if st2, err := s.Put(ctx, orderBundle(4), p, now); err != nil || st2.Created || st2.RID != st.RID || seal.calls != 1 {
			t.Fatalf("second put: %+v %v, %d seals", st2, err, seal.calls)
		}

		// Fail closed.
		before := dump(t, rdb)
		for name, tc := range map[string]struct {
			sealer Sealer
			grants []Reader
		}{
			"sealer fails":     {&fakeSealer{fail: errors.New("read key of 0x…bb: not registered")}, nil},
			"owner has no key": {&fakeSealer{noKey: map[string]bool{owner: true}}, nil},
			"no sealer":        {nil, nil},
		} {
			s := newStore(t, rdb, func(c *Config) { c.Sealer = tc.sealer })
			_, err := s.Put(ctx, orderBundle(5), Policy{Encrypt: true, Grants: tc.grants}, now)
			if !errors.Is(err, ErrSeal) {
				t.Fatalf("%s: %v, want ErrSeal", name, err)
			}
			for _, plain := range []string{secret, "order-17", "accepted"} {
				if strings.Contains(err.Error(), plain) {
					t.Fatalf("%s: the error holds plaintext: %v", name, err)
				}
			}
			if after := dump(t, rdb); after != before {
				t.Fatalf("%s: a refused encrypted bundle wrote to Redis", name)
			}
		}
	})
}

// TestConcurrentPuts: replicas committing the same step at once store one
// bundle; the grants of every losing sealing are removed, so only the
// stored bundle's RID has grants. Run with -race.
func TestConcurrentPuts(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		seal := &lockedSealer{}
		s := newStore(t, rdb, func(c *Config) { c.Sealer = seal })
		now := time.Now()
		const n = 8
		res := make(chan *Stored, n)
		for i := 0; i < n; i++ {
			go func() {
				st, err := s.Put(ctx, orderBundle(6), Policy{Encrypt: true, Grants: []Reader{{Address: auditor, Rights: grant.Read}}}, now)
				if err != nil {
					t.Error(err)
				}
				res <- st
			}()
		}
		created := 0
		for i := 0; i < n; i++ {
			if st := <-res; st != nil && st.Created {
				created++
			}
		}
		if created != 1 {
			t.Fatalf("%d puts created the bundle, want 1", created)
		}
		t.Logf("%d of %d puts sealed the bundle", seal.f.calls, n)
		h, err := s.Head(ctx, owner, 7, 6)
		if err != nil {
			t.Fatal(err)
		}
		rids, _ := redisscan.Keys(ctx, rdb, "xgr:{gr:*}:2:grantees")
		if len(rids) != 1 || !strings.Contains(rids[0], h.RID.Hex()) {
			t.Fatalf("grant indexes %v, want only the stored bundle's RID %s", rids, h.RID)
		}
	})
}

// lockedSealer is fakeSealer for concurrent use.
type lockedSealer struct {
	mu sync.Mutex
	f  fakeSealer
}

func (l *lockedSealer) Seal(ctx context.Context, plain []byte, readers []string) (*Sealed, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Seal(ctx, plain, readers)
}
