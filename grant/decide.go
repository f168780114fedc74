package grant

import (
	"fmt"
	"strconv"
	"time"
)

// MaxEntries caps the entries of one change.
const MaxEntries = 32

// Entry is one requested grant: Rights 0 revokes it.
type Entry struct {
	Grantee  string
	Rights   uint8
	ExpireAt time.Time
	EncDEK   string
	IsOwner  bool
}

// Change is what an actor (the permit's signer) asks to write for one
// (RID, scope), with the references every written grant records.
type Change struct {
	RID     RID
	Scope   uint8
	Actor   string
	Entries []Entry
	// SessionID, RefAddr and TxHash are the references (optional).
	SessionID, RefAddr, TxHash string
}

// View is what Decide needs from the store: the actor's grant on the
// RID and scope (nil: none), the current grants of the entries' grantees
// (by grantee) and how many live grants the RID has in that scope; and,
// for a rule RID (scope 1), the facts of its rule contract, read from the
// chain at the edge.
type View struct {
	Actor    *Grant
	Existing map[string]*Grant
	Live     int64
	// Rule is the rule contract of a scope-1 RID (nil: not read; a scope-1
	// change is then refused).
	Rule *RuleFacts
}

// RuleFacts is what the chain says about the rule contract a scope-1
// change names: its owner() and the RID its encryption header
// (encrypted()) holds.
type RuleFacts struct {
	// Contract is the rule contract (lower-case address).
	Contract string
	// Owner is what owner() returned, lower case; "" when the contract
	// answers no owner() (then nobody owns its RID).
	Owner string
	// RID is the RID of the contract's encryption header (zero: the
	// contract holds no encrypted rule).
	RID RID
}

// Write is one decided write: the grant to store, or Delete its key.
type Write struct {
	Grant  Grant
	Delete bool
}

// Plan is a decided change: its writes, and what the store must still
// find when it applies them (ActorPrint of the actor's grant; for a
// bootstrap, no live grant on the RID).
type Plan struct {
	Writes     []Write
	ActorPrint string
	Bootstrap  bool
}

// Refusal is a change Decide refuses: Reason is stable, Path the JSON
// path of the entry at fault ("" for the whole change).
type Refusal struct {
	Reason, Path, Msg string
}

func (r *Refusal) Error() string {
	if r.Path != "" {
		return r.Path + ": " + r.Msg
	}
	return r.Msg
}

func refuse(reason, path, format string, args ...any) *Refusal {
	return &Refusal{Reason: reason, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// Print is the fingerprint of a grant that a plan was decided on ("none"
// for nil): rights, expiry (unix ms) and owner flag.
func Print(g *Grant) string {
	if g == nil {
		return "none"
	}
	return strconv.Itoa(int(g.Rights)) + "|" + strconv.FormatInt(g.ExpireAt.UnixMilli(), 10) + "|" + strconv.FormatBool(g.IsOwner)
}

// Decide decides which grants a change writes, given the store's view, or
// refuses it. The rules:
//   - The RID's live owner may write any grant but another owner grant and
//     may not revoke or demote its own owner grant (it lasts until it
//     expires); it may renew it (new EncDEK or expiry).
//   - A live grant with Manage may write grants with no more rights and no
//     later expiry than its own, and revoke grants that are not the
//     owner's.
//   - A rule RID (scope 1) is owned by its rule contract's owner()
//     (View.Rule, whose encryption header must hold the RID: else
//     rid-not-of-contract), never by its first writer: the RID is public
//     on chain before any grant exists, so a first writer could be anyone.
//     The contract's owner acts as the RID's owner whatever grants exist;
//     an owner flag or a MANAGE grant counts only when the contract's
//     owner wrote it (Grant.Owner), so grants a stranger wrote earlier
//     give it nothing and the contract's owner may overwrite or revoke
//     them. A scope-1 change without rule facts is refused
//     (rule-contract-required). Scope 2 RIDs (log bundles) are created by
//     the engine only.
//   - Everyone else is refused (not-manager).
//
// References the change does not give are taken from the actor's grant.
//
// Entries are checked first: grantee addresses, rights 0..7, an expiry
// after now and within MaxLifetime for every grant that is not a revoke,
// EncDEK's form, no grantee twice.
func Decide(c Change, v View, now time.Time) (*Plan, error) {
	if c.Scope != ScopeRule && c.Scope != ScopeLog {
		return nil, refuse("invalid-scope", "scope", "%d: want 1 (rules) or 2 (logs)", c.Scope)
	}
	if len(c.Entries) == 0 || len(c.Entries) > MaxEntries {
		return nil, refuse("invalid-entries", "entries", "%d entries: want 1..%d", len(c.Entries), MaxEntries)
	}
	seen := map[string]bool{}
	for i, e := range c.Entries {
		p := fmt.Sprintf("entries[%d]", i)
		a, err := NormalizeAddress(e.Grantee)
		if err != nil {
			return nil, refuse("invalid-entry", p+".grantee", "%v", err)
		}
		if a != e.Grantee {
			return nil, refuse("invalid-entry", p+".grantee", "%q: want the lower-case form", e.Grantee)
		}
		if seen[a] {
			return nil, refuse("invalid-entry", p+".grantee", "%s appears twice; one entry per grantee", a)
		}
		seen[a] = true
		if e.Rights > All {
			return nil, refuse("invalid-entry", p+".rights", "%d: want a bitmask of 1 (read), 2 (write), 4 (manage), or 0 to revoke", e.Rights)
		}
		if e.Rights == 0 {
			if e.IsOwner {
				return nil, refuse("invalid-entry", p+".isOwner", "a revoke (rights 0) cannot mark the owner")
			}
			continue
		}
		if !e.ExpireAt.After(now) {
			return nil, refuse("invalid-entry", p+".expireAt", "%d is not in the future (now %d)", e.ExpireAt.Unix(), now.Unix())
		}
		if e.ExpireAt.Sub(now) > MaxLifetime {
			return nil, refuse("invalid-entry", p+".expireAt", "%d is more than %d days ahead", e.ExpireAt.Unix(), int(MaxLifetime/(24*time.Hour)))
		}
		if err := CheckEncDEK(e.EncDEK); err != nil {
			return nil, refuse("invalid-entry", p+".encDEK", "%v", err)
		}
	}
	plan := &Plan{ActorPrint: Print(v.Actor)}
	if c.Scope == ScopeRule {
		return decideRule(c, v, plan, now)
	}
	owner := ""
	isOwner := v.Actor != nil && Live(v.Actor, now) && v.Actor.IsOwner && v.Actor.Grantee == c.Actor
	switch {
	case v.Live == 0 && !Live(v.Actor, now):
		return nil, refuse("not-manager", "", "%s holds no grant on %s (scope %d); log RIDs are created by the engine", c.Actor, c.RID, c.Scope)
	case isOwner:
		owner = c.Actor
	case MayManage(v.Actor, c.Actor, c.RID, c.Scope, now):
		owner = v.Actor.Owner
	default:
		return nil, refuse("not-manager", "", "%s may not manage grants of %s (scope %d): it needs the owner grant or a live grant with MANAGE (4)", c.Actor, c.RID, c.Scope)
	}
	return entries(c, v, plan, owner, isOwner, func(g *Grant) bool { return Live(g, now) && g.IsOwner }, now)
}

// decideRule decides a change of a rule RID (scope 1): its owner is the
// rule contract's owner().
func decideRule(c Change, v View, plan *Plan, now time.Time) (*Plan, error) {
	r := v.Rule
	switch {
	case r == nil:
		return nil, refuse("rule-contract-required", "refAddr", "%s is a rule RID (scope 1): name the rule contract whose encryption header holds it (refAddr); its owner() owns the RID", c.RID)
	case r.RID != c.RID:
		return nil, refuse("rid-not-of-contract", "refAddr", "rule contract %s holds rid %s in its encryption header, not %s: grants of a rule RID are written for the contract that holds it", r.Contract, r.RID, c.RID)
	case r.Owner == "":
		return nil, refuse("not-manager", "", "rule contract %s answers no owner(): nobody manages the grants of its RID %s", r.Contract, c.RID)
	}
	// Only grants the contract's owner wrote count: an owner flag or a
	// MANAGE right written by anyone else is void.
	counts := func(g *Grant) bool { return Live(g, now) && g.Owner == r.Owner }
	isOwner := c.Actor == r.Owner
	switch {
	case isOwner:
	case counts(v.Actor) && MayManage(v.Actor, c.Actor, c.RID, c.Scope, now):
	default:
		return nil, refuse("not-manager", "", "%s may not manage grants of rule RID %s: the rule contract %s's owner %s does, and whom it gives a live grant with MANAGE (4)", c.Actor, c.RID, r.Contract, r.Owner)
	}
	c.RefAddr = r.Contract
	return entries(c, v, plan, r.Owner, isOwner, func(g *Grant) bool { return counts(g) && g.IsOwner && g.Grantee == r.Owner }, now)
}

// entries decides the writes of c's entries for an actor that manages the
// RID: owner is the RID's owner, isOwner whether the actor is it, and
// ownerGrant tells a grant that is the RID's owner grant.
func entries(c Change, v View, plan *Plan, owner string, isOwner bool, ownerGrant func(*Grant) bool, now time.Time) (*Plan, error) {
	if a := v.Actor; a != nil && !plan.Bootstrap {
		// References not given are the actor's: grants of one RID name
		// the same session, rule contract and transaction.
		c.SessionID, c.RefAddr, c.TxHash = or(c.SessionID, a.SessionID), or(c.RefAddr, a.RefAddr), or(c.TxHash, a.TxHash)
	}
	for i, e := range c.Entries {
		p := fmt.Sprintf("entries[%d]", i)
		oldOwner := ownerGrant(v.Existing[e.Grantee])
		switch {
		case e.IsOwner && !(isOwner && e.Grantee == c.Actor):
			return nil, refuse("owner-entry", p+".isOwner", "only the owner marks its own entry as owner; %s cannot be made owner", e.Grantee)
		case oldOwner && e.Grantee != c.Actor:
			return nil, refuse("owner-entry", p, "%s holds the owner grant; only it may renew it", e.Grantee)
		case oldOwner && !e.IsOwner:
			return nil, refuse("owner-entry", p, "the owner grant cannot be revoked or demoted; it lasts until it expires")
		}
		if !isOwner {
			if e.Rights&^v.Actor.Rights != 0 {
				return nil, refuse("rights-exceed", p+".rights", "%d exceeds the manager's own rights %d", e.Rights, v.Actor.Rights)
			}
			if e.Rights != 0 && e.ExpireAt.After(v.Actor.ExpireAt) {
				return nil, refuse("expiry-exceeds", p+".expireAt", "%d is after the manager's own grant expires (%d)", e.ExpireAt.Unix(), v.Actor.ExpireAt.Unix())
			}
		}
		if e.Rights == 0 {
			plan.Writes = append(plan.Writes, Write{Delete: true, Grant: Grant{RID: c.RID, Scope: c.Scope, Grantee: e.Grantee}})
			continue
		}
		plan.Writes = append(plan.Writes, Write{Grant: Grant{RID: c.RID, Scope: c.Scope, Grantee: e.Grantee, Rights: e.Rights,
			ExpireAt: e.ExpireAt, EncDEK: e.EncDEK, IsOwner: e.IsOwner, Owner: owner, GrantedBy: c.Actor,
			SessionID: c.SessionID, RefAddr: c.RefAddr, TxHash: c.TxHash, UpdatedAt: now}})
	}
	return plan, nil
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
