package evidence

import (
	"context"
	"crypto/sha256"
	"embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/internal/luascript"
)

//go:embed lua/*.lua
var luaFS embed.FS

var scriptPut = luascript.New("evidence", luaFS).Load("put_bundle")

// Defaults and caps of a bundle's lifetime and size.
const (
	// DefaultDays is a bundle's lifetime when its branch has no
	// logExpireDays and the operator set none.
	DefaultDays = 30
	// DefaultMaxDays caps logExpireDays unless the operator sets another
	// cap (at most HardMaxDays).
	DefaultMaxDays = 365
	HardMaxDays    = 3650
	// DefaultMaxBytes caps a bundle's JSON (Encode truncates to it); at
	// most HardMaxBytes.
	DefaultMaxBytes = 512 << 10
	HardMaxBytes    = 4 << 20
)

// ErrNotFound: no bundle for that process (never written, or expired).
var ErrNotFound = errors.New("evidence: no log bundle for that process (never written or expired)")

// Config is a store's policy.
type Config struct {
	// DefaultDays, MaxDays: a bundle's lifetime without logExpireDays, and
	// the cap of logExpireDays (0: DefaultDays, DefaultMaxDays).
	DefaultDays, MaxDays uint64
	// MaxBytes caps a bundle's JSON (0: DefaultMaxBytes).
	MaxBytes int
	// Day is the length of a day of the lifetimes (0: 24h; tests shorten
	// it).
	Day time.Duration
	// Grants stores the bundles' grants (required).
	Grants *grant.Store
	// Sealer encrypts bundles of encryptLogs branches (nil: such bundles
	// are refused, nothing is stored).
	Sealer Sealer
}

// Store keeps log bundles in Redis.
type Store struct {
	rdb redis.UniversalClient
	cfg Config
}

// New checks cfg and returns a store on rdb.
func New(rdb redis.UniversalClient, cfg Config) (*Store, error) {
	if cfg.DefaultDays == 0 {
		cfg.DefaultDays = DefaultDays
	}
	if cfg.MaxDays == 0 {
		cfg.MaxDays = DefaultMaxDays
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.Day == 0 {
		cfg.Day = 24 * time.Hour
	}
	switch {
	case cfg.Grants == nil:
		return nil, fmt.Errorf("evidence: a grant store is required")
	case cfg.MaxDays > HardMaxDays || cfg.DefaultDays > cfg.MaxDays:
		return nil, fmt.Errorf("evidence: log lifetime: default %d days, cap %d days: want default <= cap <= %d", cfg.DefaultDays, cfg.MaxDays, HardMaxDays)
	case cfg.MaxBytes < 4096 || cfg.MaxBytes > HardMaxBytes:
		return nil, fmt.Errorf("evidence: bundle size cap %d bytes: want 4096..%d", cfg.MaxBytes, HardMaxBytes)
	case cfg.Day < 0:
		return nil, fmt.Errorf("evidence: day length %s is negative", cfg.Day)
	}
	return &Store{rdb: rdb, cfg: cfg}, nil
}

// Key is the key of the bundle of process iter of session (owner, rootPid).
func Key(owner string, rootPid, iter int64) string {
	return "xgr:log:{" + owner + ":" + strconv.FormatInt(rootPid, 10) + "}:" + strconv.FormatInt(iter, 10)
}

// LogRID is the RID of a plaintext bundle: SHA-256 of
// "xgr/log/v1|<owner>|<rootPid>|<iter>", so that a step committed again
// names the same grants. (An encrypted bundle's RID is its XGR1
// envelope's.)
func LogRID(owner string, rootPid, iter int64) grant.RID {
	return sha256.Sum256([]byte("xgr/log/v1|" + owner + "|" + strconv.FormatInt(rootPid, 10) + "|" + strconv.FormatInt(iter, 10)))
}

// Reader is a grant a branch gives on its bundles (rule Branch.grants).
type Reader struct {
	Address string
	Rights  uint8
	// ExpireDays is the grant's lifetime (0: the bundle's).
	ExpireDays uint64
}

// Policy is what the step's selected branch says about its bundle.
type Policy struct {
	// ExpireDays is logExpireDays (0: the operator's default); capped.
	ExpireDays uint64
	// Encrypt is encryptLogs.
	Encrypt bool
	// Grants are the branch's grants.
	Grants []Reader
}

// Lifetime is how long a bundle of a branch with logExpireDays days (0:
// none) lives: the default without, capped at the store's cap.
func (s *Store) Lifetime(days uint64) time.Duration {
	if days == 0 {
		days = s.cfg.DefaultDays
	}
	if days > s.cfg.MaxDays {
		days = s.cfg.MaxDays
	}
	return time.Duration(days) * s.cfg.Day
}

// Stored is what Put did.
type Stored struct {
	Key string
	RID grant.RID
	// Created is false when the bundle was there already (nothing written).
	Created   bool
	Encrypted bool
	// Bytes is the stored body's size.
	Bytes    int
	ExpireAt time.Time
	// Truncated names the sections replaced by markers (see Encode).
	Truncated []string
	// Unwrapped are grantees of an encrypted bundle without a registered
	// read key: they got no grant.
	Unwrapped []string
}

// Put stores b under policy p at now, once: a bundle already stored for
// the process is left as it is (Created false; nothing is encrypted or
// granted again). The owner gets the owner grant (rights 7) on the
// bundle's RID in scope 2 and every branch grant its rights, both until
// their expiry; the bundle lives for Lifetime(p.ExpireDays). With
// p.Encrypt, only the Sealer's XGR1 envelope is stored, the owner's and
// the grantees' wrapped keys go into their grants, and if sealing fails
// or the owner has no read key nothing is stored and the error (ErrSeal)
// holds no plaintext. Put is Prepare and Write.
func (s *Store) Put(ctx context.Context, b *Bundle, p Policy, now time.Time) (*Stored, error) {
	if err := b.Check(); err != nil {
		return nil, fmt.Errorf("evidence: bundle: %w", err)
	}
	key := Key(b.Owner, b.SessionID, b.Iter)
	n, err := s.rdb.Exists(ctx, key).Result()
	if err != nil {
		return nil, fmt.Errorf("evidence: bundle %s: %w", b.Pid, err)
	}
	if n == 1 {
		out := &Stored{Key: key, Encrypted: p.Encrypt}
		if h, err := s.Head(ctx, b.Owner, b.SessionID, b.Iter); err == nil {
			out.RID, out.Encrypted, out.Bytes = h.RID, h.Encrypted, h.Bytes
		}
		return out, nil
	}
	prep, err := s.Prepare(ctx, b, p, now)
	if err != nil {
		return nil, err
	}
	return s.Write(ctx, prep, now)
}

// AttemptRID is the RID of a plaintext bundle written with its step's
// commit (PrepareCommit): SHA-256 of
// "xgr/log/v1|<owner>|<rootPid>|<iter>|<token>", token being the
// committing lease's fencing token, so that the grants of a commit that is
// fenced off name a RID no stored bundle has, and never touch the grants
// of the commit that applied.
func AttemptRID(owner string, rootPid, iter, token int64) grant.RID {
	return sha256.Sum256([]byte("xgr/log/v1|" + owner + "|" + strconv.FormatInt(rootPid, 10) + "|" + strconv.FormatInt(iter, 10) + "|" + strconv.FormatInt(token, 10)))
}

// PrepareCommit is Prepare for a bundle that its step's commit writes
// (joinstore.Commit.Bundle) under the lease token: a plaintext bundle's
// RID is AttemptRID. Forget removes its grants when the commit did not
// keep it.
func (s *Store) PrepareCommit(ctx context.Context, b *Bundle, p Policy, token int64, now time.Time) (*Prepared, error) {
	if token <= 0 {
		return nil, fmt.Errorf("evidence: bundle %s: lease token %d: want a positive fencing token", b.Pid, token)
	}
	return s.prepareWith(ctx, b, p, token, now)
}

// Prepared is a bundle ready to be written: its key, TTL and hash fields
// (Fields: v, rid, enc, bytes, body, as field/value pairs), its grants
// already stored. A commit script may write it with the step (same hash
// tag as the session): HSET Key Fields… and PEXPIRE Key TTL when Key does
// not exist (put_bundle.lua's three lines); then call Forget if it
// existed.
type Prepared struct {
	Key    string
	TTL    time.Duration
	Fields []any
	Stored Stored
	// Before, set by PrepareCommit on a single Redis server, queues the
	// grants in the commit's transaction (joinstore.BundleWrite.Before)
	// instead of a round trip of their own; nil when they are written
	// already.
	Before func(redis.Pipeliner) error
	// grantees are those that got a grant (for Forget); own is true when
	// the RID is this write's alone (encrypted, or AttemptRID).
	grantees []string
	own      bool
}

// Prepare does everything Put does but the bundle's own write: it checks
// and encodes b, encrypts it with p.Encrypt (fail closed, as Put) and
// stores its grants. A Prepared that is never written leaves grants that
// name no bundle; they expire with it (or Forget removes them).
func (s *Store) Prepare(ctx context.Context, b *Bundle, p Policy, now time.Time) (*Prepared, error) {
	return s.prepareWith(ctx, b, p, 0, now)
}

func (s *Store) prepareWith(ctx context.Context, b *Bundle, p Policy, token int64, now time.Time) (*Prepared, error) {
	prep, grants, err := s.prepare(ctx, b, p, token, now)
	if err != nil {
		return nil, err
	}
	put := s.cfg.Grants.Put
	if token > 0 {
		rid := prep.Stored.RID
		// Checked now (nothing is sent), so that writing them never fails
		// on them: a refusal here is the bundle's, not the store's.
		if err := s.cfg.Grants.QueueTx(ctx, s.rdb.Pipeline(), rid, grant.ScopeLog, grants, now); err != nil {
			return nil, fmt.Errorf("evidence: bundle %s: grants: %w", b.Pid, err)
		}
		if _, cluster := s.rdb.(*redis.ClusterClient); !cluster {
			// With the commit, in its transaction: no round trip of
			// their own.
			prep.Before = func(pipe redis.Pipeliner) error {
				return s.cfg.Grants.QueueTx(ctx, pipe, rid, grant.ScopeLog, grants, now)
			}
			return prep, nil
		}
		put = s.queueGrants // one round trip (other slots), before the commit
	}
	if err := put(ctx, prep.Stored.RID, grant.ScopeLog, grants, now); err != nil {
		return nil, fmt.Errorf("%w: bundle %s: grants: %w", ErrUnavailable, b.Pid, err)
	}
	return prep, nil
}

// ErrUnavailable: the store could not be written (Redis did not answer);
// nothing about the bundle was refused.
var ErrUnavailable = errors.New("evidence: store unavailable")

// prepare is Prepare without writing the grants, which it returns; a
// token > 0 gives a plaintext bundle its AttemptRID.
func (s *Store) prepare(ctx context.Context, b *Bundle, p Policy, token int64, now time.Time) (*Prepared, []grant.Grant, error) {
	if err := b.Check(); err != nil {
		return nil, nil, fmt.Errorf("evidence: bundle: %w", err)
	}
	readers, err := s.readers(b.Owner, p, now)
	if err != nil {
		return nil, nil, err
	}
	key := Key(b.Owner, b.SessionID, b.Iter)
	out := Stored{Key: key, Encrypted: p.Encrypt}
	plain, truncated, err := Encode(b, s.cfg.MaxBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("evidence: %w", err)
	}
	out.Truncated = truncated
	life := s.Lifetime(p.ExpireDays)
	out.ExpireAt = now.Add(life)
	body := string(plain)
	out.RID = LogRID(b.Owner, b.SessionID, b.Iter)
	if token > 0 {
		out.RID = AttemptRID(b.Owner, b.SessionID, b.Iter, token)
	}
	grants := make([]grant.Grant, len(readers))
	for i, r := range readers {
		grants[i] = grant.Grant{Scope: grant.ScopeLog, Grantee: r.Address, Rights: r.Rights, ExpireAt: now.Add(s.readerLife(r, life)),
			IsOwner: r.Address == b.Owner, Owner: b.Owner, GrantedBy: b.Owner, SessionID: strconv.FormatInt(b.SessionID, 10),
			RefAddr: refAddr(b.Rule), UpdatedAt: now}
		if b.Receipt != nil {
			grants[i].TxHash = b.Receipt.TxHash
		}
	}
	if p.Encrypt {
		sealed, err := s.seal(ctx, plain, b, readers)
		clear(plain)
		if err != nil {
			return nil, nil, err
		}
		out.RID, body = sealed.RID, sealed.Blob
		kept := grants[:0]
		for _, g := range grants {
			w, ok := sealed.Wrapped[g.Grantee]
			if !ok {
				out.Unwrapped = append(out.Unwrapped, g.Grantee)
				continue
			}
			g.EncDEK = w
			kept = append(kept, g)
		}
		grants = kept
	}
	names := make([]string, len(grants))
	for i := range grants {
		grants[i].RID = out.RID
		names[i] = grants[i].Grantee
	}
	enc := "0"
	if p.Encrypt {
		enc = "1"
	}
	out.Bytes = len(body)
	return &Prepared{Key: key, TTL: life, Stored: out, grantees: names, own: p.Encrypt || token > 0,
		Fields: []any{"v", Version, "rid", out.RID.String(), "enc", enc, "bytes", len(body), "body", body}}, grants, nil
}

// Write stores a prepared bundle unless its key exists (put_bundle.lua);
// when it existed, the grants Prepare wrote for another RID are removed.
func (s *Store) Write(ctx context.Context, prep *Prepared, now time.Time) (*Stored, error) {
	out := prep.Stored
	created, err := scriptPut.Run(ctx, s.rdb, []string{prep.Key}, append([]any{prep.TTL.Milliseconds()}, prep.Fields...)...).Int()
	if err != nil {
		return nil, fmt.Errorf("evidence: bundle %s: %w", prep.Key, err)
	}
	out.Created = created == 1
	if !out.Created {
		if err := s.Forget(ctx, prep, now); err != nil {
			return nil, err
		}
	}
	return &out, nil
}

// Forget removes the grants of a prepared bundle that was not written
// because another was there (a step committed twice at once) or its
// commit did not apply. Grants of a bundle prepared by Prepare in
// plaintext name its fixed RID (LogRID), the stored bundle's too, and
// stay.
func (s *Store) Forget(ctx context.Context, prep *Prepared, now time.Time) error {
	if !prep.own || len(prep.grantees) == 0 {
		return nil
	}
	return s.cfg.Grants.Delete(ctx, prep.Stored.RID, grant.ScopeLog, prep.grantees, now)
}

// seal encrypts plain for readers; the owner must get a wrapped key.
func (s *Store) seal(ctx context.Context, plain []byte, b *Bundle, readers []Reader) (*Sealed, error) {
	if s.cfg.Sealer == nil {
		return nil, fmt.Errorf("%w: bundle %s: its branch says encryptLogs and this store has no sealer", ErrSeal, b.Pid)
	}
	addrs := make([]string, len(readers))
	for i, r := range readers {
		addrs[i] = r.Address
	}
	sealed, err := s.cfg.Sealer.Seal(ctx, plain, addrs)
	if err != nil {
		return nil, fmt.Errorf("%w: bundle %s: %w", ErrSeal, b.Pid, err)
	}
	if !strings.HasPrefix(sealed.Blob, "XGR1.") || !strings.Contains(sealed.Blob, sealed.RID.Hex()) {
		return nil, fmt.Errorf("%w: bundle %s: the sealer returned no XGR1 envelope of its RID", ErrSeal, b.Pid)
	}
	if _, ok := sealed.Wrapped[b.Owner]; !ok {
		return nil, fmt.Errorf("%w: bundle %s: the session owner %s has no registered read key; nobody could read it", ErrSeal, b.Pid, b.Owner)
	}
	return sealed, nil
}

// readers are the owner (rights 7) and the branch's grantees (the owner's
// own entry in the branch's grants is dropped; a grantee twice keeps its
// first entry).
func (s *Store) readers(owner string, p Policy, now time.Time) ([]Reader, error) {
	out := []Reader{{Address: owner, Rights: grant.All}}
	seen := map[string]bool{owner: true}
	for i, r := range p.Grants {
		a, err := grant.NormalizeAddress(r.Address)
		if err != nil {
			return nil, fmt.Errorf("evidence: grants[%d].address: %w", i, err)
		}
		if r.Rights == 0 || r.Rights > grant.All {
			return nil, fmt.Errorf("evidence: grants[%d].rights: %d, want 1..7", i, r.Rights)
		}
		if seen[a] {
			continue
		}
		seen[a] = true
		r.Address = a
		out = append(out, r)
	}
	return out, nil
}

func (s *Store) readerLife(r Reader, life time.Duration) time.Duration {
	if r.ExpireDays == 0 {
		return life
	}
	return s.Lifetime(r.ExpireDays)
}

// refAddr is the rule reference when it is a contract address.
func refAddr(rule string) string {
	if a, err := grant.NormalizeAddress(rule); err == nil {
		return a
	}
	return ""
}

// Head is a stored bundle's metadata: what authorization needs, without
// its body.
type Head struct {
	RID       grant.RID
	Encrypted bool
	Bytes     int
	// Status is the process's status as its commit recorded it (done or
	// aborted), AbortReason why it aborted: set on bundles written with
	// their commit ("" on others). A step killed while it ran keeps the
	// outcome its rule decided in the bundle, and says aborted here.
	Status, AbortReason string
}

// Head reads a bundle's RID, whether it is encrypted, its size and the
// commit's status (not its body). ErrNotFound when there is none (a
// record still staged by a commit in flight counts as none; see
// joinstore.BundleWrite).
func (s *Store) Head(ctx context.Context, owner string, rootPid, iter int64) (*Head, error) {
	v, err := s.rdb.HMGet(ctx, Key(owner, rootPid, iter), "rid", "enc", "bytes", "pending", "status", "abortReason").Result()
	if err != nil {
		return nil, fmt.Errorf("evidence: bundle %d:%d: %w", rootPid, iter, err)
	}
	rid, _ := v[0].(string)
	if pending, _ := v[3].(string); rid == "" || pending != "" {
		return nil, ErrNotFound
	}
	r, err := grant.ParseRID(rid)
	if err != nil {
		return nil, fmt.Errorf("evidence: bundle %d:%d: rid: %w", rootPid, iter, err)
	}
	enc, _ := v[1].(string)
	size, _ := v[2].(string)
	n, _ := strconv.Atoi(size)
	st, _ := v[4].(string)
	why, _ := v[5].(string)
	return &Head{RID: r, Encrypted: enc == "1", Bytes: n, Status: st, AbortReason: why}, nil
}

// Body reads a bundle's body: its JSON, or its XGR1 envelope when
// encrypted. Authorize the reader first (MayRead on Head).
func (s *Store) Body(ctx context.Context, owner string, rootPid, iter int64) (string, error) {
	body, err := s.rdb.HGet(ctx, Key(owner, rootPid, iter), "body").Result()
	if err == redis.Nil {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("evidence: bundle %d:%d: %w", rootPid, iter, err)
	}
	return body, nil
}

// TTL is the bundle's remaining lifetime.
func (s *Store) TTL(ctx context.Context, owner string, rootPid, iter int64) (time.Duration, error) {
	return s.rdb.PTTL(ctx, Key(owner, rootPid, iter)).Result()
}

// MayRead reports whether who may read the bundle of a session owned by
// owner whose RID is rid, holding g (who's grant on rid in scope 2, nil:
// none): the session owner always, a grantee with a live READ grant.
func MayRead(owner, who string, rid grant.RID, g *grant.Grant, now time.Time) bool {
	return who == owner || grant.MayRead(g, who, rid, grant.ScopeLog, now)
}
