package grant

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/luascript"
)

//go:embed lua/*.lua
var luaFS embed.FS

var (
	scripts     = luascript.New("grant", luaFS)
	scriptApply = scripts.Load("apply")
	scriptIndex = scripts.Load("index")
	// The same, sent whole (QueueTx).
	scriptApplyTx = scripts.LoadCompact("apply")
	scriptIndexTx = scripts.LoadCompact("index")
)

// ErrStale: the store changed between the read a change was decided on and
// its write (the actor's grant, or a RID taken meanwhile); decide again.
var ErrStale = errors.New("grant: the grants changed while the change was decided; retry")

// Store keeps grants in Redis (single node, Cluster or Sentinel).
type Store struct {
	rdb redis.UniversalClient
}

// New returns a store on rdb.
func New(rdb redis.UniversalClient) *Store { return &Store{rdb: rdb} }

func ridPrefix(rid RID, scope uint8) string {
	return "xgr:{gr:" + rid.Hex() + "}:" + strconv.Itoa(int(scope)) + ":"
}

// Key is the key of the grant of grantee on (rid, scope).
func Key(rid RID, scope uint8, grantee string) string { return ridPrefix(rid, scope) + grantee }

func granteesKey(rid RID, scope uint8) string { return ridPrefix(rid, scope) + "grantees" }

func listKeys(grantee string) []string {
	p := "xgr:{gg:" + grantee + "}:"
	return []string{p + "seq", p + "list"}
}

func member(rid RID, scope uint8) string { return strconv.Itoa(int(scope)) + ":" + rid.String() }

// Get returns grantee's grant on (rid, scope), nil when there is none (or
// it expired: its key is gone).
func (s *Store) Get(ctx context.Context, rid RID, scope uint8, grantee string) (*Grant, error) {
	m, err := s.rdb.HGetAll(ctx, Key(rid, scope, grantee)).Result()
	if err != nil {
		return nil, fmt.Errorf("grant %s scope %d %s: %w", rid, scope, grantee, err)
	}
	return fromHash(rid, scope, grantee, m)
}

// View reads what Decide needs for c: the actor's grant, the entries'
// grantees' grants and the RID's live grant count, in one pipeline.
func (s *Store) View(ctx context.Context, c Change, now time.Time) (View, error) {
	v := View{Existing: map[string]*Grant{}}
	pipe := s.rdb.Pipeline()
	actor := pipe.HGetAll(ctx, Key(c.RID, c.Scope, c.Actor))
	ents := make([]*redis.MapStringStringCmd, len(c.Entries))
	for i, e := range c.Entries {
		ents[i] = pipe.HGetAll(ctx, Key(c.RID, c.Scope, e.Grantee))
	}
	live := pipe.ZCount(ctx, granteesKey(c.RID, c.Scope), "("+strconv.FormatInt(now.UnixMilli(), 10), "+inf")
	if _, err := pipe.Exec(ctx); err != nil {
		return v, fmt.Errorf("grants of %s: %w", c.RID, err)
	}
	var err error
	if v.Actor, err = fromHash(c.RID, c.Scope, c.Actor, actor.Val()); err != nil {
		return v, err
	}
	for i, e := range c.Entries {
		g, err := fromHash(c.RID, c.Scope, e.Grantee, ents[i].Val())
		if err != nil {
			return v, err
		}
		v.Existing[e.Grantee] = g
	}
	v.Live = live.Val()
	return v, nil
}

// Apply decides c on a fresh view and writes it: the grants in one
// transition that refuses a stale decision (retried up to 3 times), then
// each grantee's list. A refusal is a *Refusal; nothing is written then.
// A change of a rule RID (scope 1) needs its rule contract's facts:
// ApplyRule.
func (s *Store) Apply(ctx context.Context, c Change, now time.Time) (*Plan, error) {
	return s.ApplyRule(ctx, c, nil, now)
}

// ApplyRule is Apply with the facts of the rule contract a scope-1 change
// names (read from the chain by the caller; nil for a scope-2 change):
// its owner() owns the RID.
func (s *Store) ApplyRule(ctx context.Context, c Change, rule *RuleFacts, now time.Time) (*Plan, error) {
	for try := 0; ; try++ {
		v, err := s.View(ctx, c, now)
		if err != nil {
			return nil, err
		}
		v.Rule = rule
		plan, err := Decide(c, v, now)
		if err != nil {
			return nil, err
		}
		err = s.write(ctx, c.RID, c.Scope, plan.Writes, Key(c.RID, c.Scope, c.Actor), plan.ActorPrint, plan.Bootstrap, now)
		if errors.Is(err, ErrStale) && try < 2 {
			continue
		}
		if err != nil {
			return nil, err
		}
		return plan, nil
	}
}

// Put writes grants of one (rid, scope) without a decision: the engine's
// own grants (a log bundle's owner and branch grants). Every grant must
// be live at now and carry the rid and scope.
func (s *Store) Put(ctx context.Context, rid RID, scope uint8, grants []Grant, now time.Time) error {
	if len(grants) == 0 {
		return nil
	}
	ws := make([]Write, len(grants))
	for i, g := range grants {
		if g.RID != rid || g.Scope != scope || !Live(&g, now) {
			return fmt.Errorf("grant: put %s scope %d: grant %d (%s) is not a live grant of that RID and scope", rid, scope, i, g.Grantee)
		}
		if err := CheckEncDEK(g.EncDEK); err != nil {
			return fmt.Errorf("grant: put %s: %s: encDEK: %w", rid, g.Grantee, err)
		}
		ws[i] = Write{Grant: g}
	}
	return s.write(ctx, rid, scope, ws, Key(rid, scope, grants[0].Grantee), "", false, now)
}

// Queue adds what Put writes to pipe, for a caller that writes other keys
// in the same round trip (a log bundle with its grants): the grants' apply
// and their grantees' list entries, without a decision (nothing can be
// stale). Errors of the writes show at pipe.Exec; a NOSCRIPT there means
// the scripts were not loaded (LoadScripts, then queue again: the writes
// are idempotent).
func (s *Store) Queue(ctx context.Context, pipe redis.Pipeliner, rid RID, scope uint8, grants []Grant, now time.Time) error {
	return s.queue(ctx, pipe, rid, scope, grants, now, false)
}

// QueueTx is Queue for a MULTI/EXEC (a log bundle written with its step's
// commit): the scripts go as EVAL, without their comment lines, so that
// none can fail with NOSCRIPT while the rest of the transaction applies.
// On a single Redis server only: the grants are in other Cluster slots
// than the transaction's session.
func (s *Store) QueueTx(ctx context.Context, pipe redis.Pipeliner, rid RID, scope uint8, grants []Grant, now time.Time) error {
	return s.queue(ctx, pipe, rid, scope, grants, now, true)
}

func (s *Store) queue(ctx context.Context, pipe redis.Pipeliner, rid RID, scope uint8, grants []Grant, now time.Time, tx bool) error {
	if len(grants) == 0 {
		return nil
	}
	apply, index := scriptApply.EvalSha, scriptIndex.EvalSha
	if tx {
		apply, index = scriptApplyTx.Eval, scriptIndexTx.Eval
	}
	keys := []string{Key(rid, scope, grants[0].Grantee), granteesKey(rid, scope)}
	args := []any{"", "0", strconv.FormatInt(now.UnixMilli(), 10)}
	for i, g := range grants {
		if g.RID != rid || g.Scope != scope || !Live(&g, now) {
			return fmt.Errorf("grant: put %s scope %d: grant %d (%s) is not a live grant of that RID and scope", rid, scope, i, g.Grantee)
		}
		if err := CheckEncDEK(g.EncDEK); err != nil {
			return fmt.Errorf("grant: put %s: %s: encDEK: %w", rid, g.Grantee, err)
		}
		keys = append(keys, Key(rid, scope, g.Grantee))
		f := toHash(g)
		args = append(args, "set", g.Grantee, strconv.FormatInt(g.ExpireAt.UnixMilli(), 10), len(f)/2)
		for _, x := range f {
			args = append(args, x)
		}
	}
	apply(ctx, pipe, keys, args...)
	for _, g := range grants {
		index(ctx, pipe, listKeys(g.Grantee), "add", member(rid, scope), strconv.FormatInt(g.ExpireAt.UnixMilli(), 10))
	}
	return nil
}

// LoadScripts loads the store's scripts (on every master of a Cluster), for
// writes queued in pipelines (Queue).
func (s *Store) LoadScripts(ctx context.Context) error {
	for _, sc := range []*redis.Script{scriptApply, scriptIndex} {
		if err := sc.Load(ctx, s.rdb).Err(); err != nil {
			return fmt.Errorf("grant: load scripts: %w", err)
		}
	}
	return nil
}

// Delete removes grants of (rid, scope) by grantee (the engine's cleanup
// of grants written for a bundle that was not stored).
func (s *Store) Delete(ctx context.Context, rid RID, scope uint8, grantees []string, now time.Time) error {
	if len(grantees) == 0 {
		return nil
	}
	ws := make([]Write, len(grantees))
	for i, g := range grantees {
		ws[i] = Write{Delete: true, Grant: Grant{RID: rid, Scope: scope, Grantee: g}}
	}
	return s.write(ctx, rid, scope, ws, Key(rid, scope, grantees[0]), "", false, now)
}

func (s *Store) write(ctx context.Context, rid RID, scope uint8, ws []Write, actorKey, print string, bootstrap bool, now time.Time) error {
	keys := []string{actorKey, granteesKey(rid, scope)}
	args := []any{print, map[bool]string{true: "1", false: "0"}[bootstrap], strconv.FormatInt(now.UnixMilli(), 10)}
	for _, w := range ws {
		keys = append(keys, Key(rid, scope, w.Grant.Grantee))
		if w.Delete {
			args = append(args, "del", w.Grant.Grantee, "0", "0")
			continue
		}
		f := toHash(w.Grant)
		args = append(args, "set", w.Grant.Grantee, strconv.FormatInt(w.Grant.ExpireAt.UnixMilli(), 10), len(f)/2)
		for _, x := range f {
			args = append(args, x)
		}
	}
	res, err := scriptApply.Run(ctx, s.rdb, keys, args...).Text()
	if err != nil {
		return fmt.Errorf("grant: write %s: %w", rid, err)
	}
	if res == "STALE" {
		return ErrStale
	}
	for _, w := range ws {
		op, exp := "add", strconv.FormatInt(w.Grant.ExpireAt.UnixMilli(), 10)
		if w.Delete {
			op, exp = "del", "0"
		}
		if err := scriptIndex.Run(ctx, s.rdb, listKeys(w.Grant.Grantee), op, member(rid, scope), exp).Err(); err != nil {
			return fmt.Errorf("grant: list of %s: %w", w.Grant.Grantee, err)
		}
	}
	return nil
}

func toHash(g Grant) []string {
	return []string{
		"rid", g.RID.String(), "scope", strconv.Itoa(int(g.Scope)), "grantee", g.Grantee,
		"rights", strconv.Itoa(int(g.Rights)), "expireAt", strconv.FormatInt(g.ExpireAt.UnixMilli(), 10),
		"encDEK", g.EncDEK, "isOwner", strconv.FormatBool(g.IsOwner), "owner", g.Owner, "grantedBy", g.GrantedBy,
		"sessionId", g.SessionID, "refAddr", g.RefAddr, "txHash", g.TxHash,
		"updatedAt", strconv.FormatInt(g.UpdatedAt.UnixMilli(), 10),
	}
}

func fromHash(rid RID, scope uint8, grantee string, m map[string]string) (*Grant, error) {
	if len(m) == 0 {
		return nil, nil
	}
	rights, err1 := strconv.ParseUint(m["rights"], 10, 8)
	exp, err2 := strconv.ParseInt(m["expireAt"], 10, 64)
	upd, _ := strconv.ParseInt(m["updatedAt"], 10, 64)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("grant %s scope %d %s: malformed record (rights %q, expireAt %q)", rid, scope, grantee, m["rights"], m["expireAt"])
	}
	return &Grant{RID: rid, Scope: scope, Grantee: grantee, Rights: uint8(rights), ExpireAt: time.UnixMilli(exp),
		EncDEK: m["encDEK"], IsOwner: m["isOwner"] == "true", Owner: m["owner"], GrantedBy: m["grantedBy"],
		SessionID: m["sessionId"], RefAddr: m["refAddr"], TxHash: m["txHash"], UpdatedAt: time.UnixMilli(upd)}, nil
}

// permitKey is the marker of a permit that changed a RID's grants, under
// the RID's hash tag: xgr:{gr:R}:S:permit:<digest>.
func permitKey(rid RID, scope uint8, digest [32]byte) string {
	return ridPrefix(rid, scope) + "permit:" + fmt.Sprintf("%x", digest[:])
}

// ClaimPermit records that the permit with the EIP-712 digest changes the
// grants of (rid, scope), for ttl (until the permit expires): a permit
// changes grants once. It reports false when the permit was claimed before
// (a replay: the change it signed was made, or is being made, already).
// ReleasePermit gives a claim back when its change was refused, so that
// the signer may send it again.
func (s *Store) ClaimPermit(ctx context.Context, rid RID, scope uint8, digest [32]byte, ttl time.Duration) (bool, error) {
	if ttl < time.Second {
		ttl = time.Second
	}
	return s.rdb.SetNX(ctx, permitKey(rid, scope, digest), "1", ttl).Result()
}

// ReleasePermit forgets a claim ClaimPermit made (its change wrote nothing).
func (s *Store) ReleasePermit(ctx context.Context, rid RID, scope uint8, digest [32]byte) error {
	return s.rdb.Del(ctx, permitKey(rid, scope, digest)).Err()
}
