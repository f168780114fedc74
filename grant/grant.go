package grant

import (
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Rights bits (XRC-563): Read, RightWrite (write; named so beside the
// Write of a plan), Manage.
const (
	Read       uint8 = 1
	RightWrite uint8 = 2
	Manage     uint8 = 4
	// All is every right: what the owner of a RID holds.
	All = Read | RightWrite | Manage
)

// Scopes (HKDF context of a wrapped key, and what a RID names).
const (
	// ScopeRule protects an encrypted XRC-137 rule.
	ScopeRule uint8 = 1
	// ScopeLog protects a step's log bundle.
	ScopeLog uint8 = 2
)

// Bounds on what a grant holds.
const (
	// MaxEncDEK caps the wrapped data key's length (a XGRK2 string or 0x
	// hex of the ABI tuple are both well below it).
	MaxEncDEK = 1024
	// MaxLifetime caps how far in the future a grant may expire.
	MaxLifetime = 3650 * 24 * time.Hour
	// MaxRef caps a session id reference.
	MaxRef = 40
)

// RID names encrypted content (a rule or a log bundle): 32 bytes.
type RID [32]byte

// String is 0x and 64 lower-case hex digits.
func (r RID) String() string { return "0x" + hex.EncodeToString(r[:]) }

// Hex is the 64 hex digits without 0x (the form of HKDF info strings and keys).
func (r RID) Hex() string { return hex.EncodeToString(r[:]) }

// ParseRID reads 0x and 64 hex digits (either case).
func ParseRID(s string) (RID, error) {
	var r RID
	if len(s) != 66 || !strings.HasPrefix(s, "0x") {
		return r, fmt.Errorf("want a RID: 0x and 64 hex digits, got %q", clip(s))
	}
	if _, err := hex.Decode(r[:], []byte(s[2:])); err != nil {
		return r, fmt.Errorf("want a RID: 0x and 64 hex digits, got %q", clip(s))
	}
	return r, nil
}

// Grant is one (RID, scope, grantee) grant.
type Grant struct {
	RID     RID
	Scope   uint8
	Grantee string
	// Rights is the bitmask; 0 never stored (a revoke deletes the grant).
	Rights uint8
	// ExpireAt is when the grant stops reading anything (its key's TTL).
	ExpireAt time.Time
	// EncDEK is the data key wrapped for the grantee ("" for a plaintext
	// bundle's grant).
	EncDEK string
	// IsOwner marks the RID's owner (one per RID and scope).
	IsOwner bool
	// Owner is the RID's owner; GrantedBy who wrote this grant.
	Owner, GrantedBy string
	// References: the session (decimal root id), the rule contract, the
	// transaction.
	SessionID, RefAddr, TxHash string
	// UpdatedAt is when it was written.
	UpdatedAt time.Time
}

// Live reports whether g reads anything at now: it exists, has rights and
// has not expired.
func Live(g *Grant, now time.Time) bool {
	return g != nil && g.Rights != 0 && now.Before(g.ExpireAt)
}

// MayRead reports whether who may read content of (rid, scope) holding g,
// its grant there (nil: none): a live grant of who for that scope with
// Read, or who's live owner grant.
func MayRead(g *Grant, who string, rid RID, scope uint8, now time.Time) bool {
	return Live(g, now) && g.Grantee == who && g.RID == rid && g.Scope == scope && (g.Rights&Read != 0 || g.IsOwner)
}

// MayManage reports whether g lets its grantee grant onward: a live owner
// grant, or a live grant with Manage.
func MayManage(g *Grant, who string, rid RID, scope uint8, now time.Time) bool {
	return Live(g, now) && g.Grantee == who && g.RID == rid && g.Scope == scope && (g.IsOwner || g.Rights&Manage != 0)
}

// NormalizeAddress returns an address in key form (lower case) or an error
// naming what was wrong.
func NormalizeAddress(s string) (string, error) {
	if !common.IsHexAddress(s) || !strings.HasPrefix(s, "0x") {
		return "", fmt.Errorf("want an address (0x and 40 hex digits), got %q", clip(s))
	}
	return strings.ToLower(s), nil
}

// CheckEncDEK checks a wrapped key's form: "" (none), 0x hex, or a
// XGRK2.<suite>.<hex> string, at most MaxEncDEK characters.
func CheckEncDEK(s string) error {
	switch {
	case s == "":
		return nil
	case len(s) > MaxEncDEK:
		return fmt.Errorf("%d characters, at most %d", len(s), MaxEncDEK)
	case strings.HasPrefix(s, "0x"):
		if len(s)%2 != 0 || !isHex(s[2:]) || len(s) == 2 {
			return fmt.Errorf("want 0x and an even number of hex digits")
		}
		return nil
	case strings.HasPrefix(s, "XGRK2."):
		for _, c := range s {
			if !(c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return fmt.Errorf("want XGRK2.<suite>.<hex> (letters, digits and dots), found %q", c)
			}
		}
		return nil
	}
	return fmt.Errorf("want a wrapped data key: 0x hex or XGRK2.<suite>.<hex>")
}

func isHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// clip shortens hostile input quoted in an error.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
