package grant

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Page sizes of a listing.
const (
	// DefaultLimit is a listing's page size when none is asked for.
	DefaultLimit = 100
	// MaxLimit caps a listing's page size.
	MaxLimit = 500
	// MaxFilterBytes caps the filter object ParseFilter reads.
	MaxFilterBytes = 4096
)

// Filter selects the grants of a listing (xgr_listGrants): every set
// field must match. Times are unix seconds on the wire.
type Filter struct {
	// Scope 0 matches both.
	Scope uint8
	// RID, when set, lists that RID's grants: all of them for its owner
	// and its managers (Scope must be set then), else the caller's own.
	RID *RID
	// RefAddr matches the grant's rule contract reference.
	RefAddr string
	// ValidAt matches grants live at that moment.
	ValidAt *time.Time
	// ExpireFrom and ExpireTo bound the expiry (inclusive).
	ExpireFrom, ExpireTo *time.Time
	// Limit is the page size (1..MaxLimit; 0 means DefaultLimit).
	Limit int
	// Cursor continues a listing: the nextCursor of the previous page
	// (0: from the start).
	Cursor int64
}

// filterFields are the members ParseFilter knows; "permit" is the
// request's and ignored here.
var filterFields = map[string]bool{"scope": true, "rid": true, "refAddr": true, "validAt": true, "expireFrom": true,
	"expireTo": true, "limit": true, "cursor": true, "permit": true}

// ParseFilter reads the filter members of an xgr_listGrants request
// object: scope (1 or 2), rid, refAddr, validAt, expireFrom, expireTo
// (unix seconds), limit (1..MaxLimit) and cursor (a number or a decimal
// string), each optional. Unknown members, duplicates, wrong types and
// out-of-range values are refused with the member's name.
func ParseFilter(raw []byte) (Filter, error) {
	var f Filter
	if len(raw) > MaxFilterBytes {
		return f, fmt.Errorf("the request is %d bytes; a listing's filter takes at most %d", len(raw), MaxFilterBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return f, fmt.Errorf("want a JSON object of filters")
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return f, fmt.Errorf("malformed object: %v", err)
		}
		name, _ := tok.(string)
		if !filterFields[name] {
			return f, fmt.Errorf("%q: unknown member; allowed: scope, rid, refAddr, validAt, expireFrom, expireTo, limit, cursor, permit", clip(name))
		}
		if seen[name] {
			return f, fmt.Errorf("%s: given twice", name)
		}
		seen[name] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return f, fmt.Errorf("%s: %v", name, err)
		}
		if name == "permit" || string(v) == "null" {
			continue
		}
		if err := f.set(name, v); err != nil {
			return f, fmt.Errorf("%s: %w", name, err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return f, fmt.Errorf("malformed object: %v", err)
	}
	if dec.More() {
		return f, fmt.Errorf("trailing data after the object")
	}
	if f.ExpireFrom != nil && f.ExpireTo != nil && f.ExpireTo.Before(*f.ExpireFrom) {
		return f, fmt.Errorf("expireTo: %d is before expireFrom %d", f.ExpireTo.Unix(), f.ExpireFrom.Unix())
	}
	return f, nil
}

func (f *Filter) set(name string, v json.RawMessage) error {
	switch name {
	case "scope":
		n, err := uintOf(v, 2)
		if err != nil || n == 0 {
			return fmt.Errorf("want 1 (rules) or 2 (logs), got %s", clip(string(v)))
		}
		f.Scope = uint8(n)
	case "rid":
		var s string
		if json.Unmarshal(v, &s) != nil {
			return fmt.Errorf("want a string: 0x and 64 hex digits")
		}
		r, err := ParseRID(s)
		if err != nil {
			return err
		}
		f.RID = &r
	case "refAddr":
		var s string
		if json.Unmarshal(v, &s) != nil {
			return fmt.Errorf("want an address string")
		}
		a, err := NormalizeAddress(s)
		if err != nil {
			return err
		}
		f.RefAddr = a
	case "validAt", "expireFrom", "expireTo":
		n, err := uintOf(v, 1<<40)
		if err != nil {
			return fmt.Errorf("want unix seconds (0..2^40), got %s", clip(string(v)))
		}
		t := time.Unix(int64(n), 0)
		switch name {
		case "validAt":
			f.ValidAt = &t
		case "expireFrom":
			f.ExpireFrom = &t
		default:
			f.ExpireTo = &t
		}
	case "limit":
		n, err := uintOf(v, MaxLimit)
		if err != nil || n == 0 {
			return fmt.Errorf("want 1..%d, got %s", MaxLimit, clip(string(v)))
		}
		f.Limit = int(n)
	case "cursor":
		n, err := ParseCursor(v)
		if err != nil {
			return err
		}
		f.Cursor = n
	}
	return nil
}

// ParseCursor reads a listing cursor: a non-negative integer, as a JSON
// number or a decimal string, below 2^53 (exact in every JSON client).
func ParseCursor(v json.RawMessage) (int64, error) {
	s := string(v)
	if strings.HasPrefix(s, `"`) {
		var str string
		if json.Unmarshal(v, &str) != nil {
			return 0, fmt.Errorf("want a number or a decimal string")
		}
		s = str
	}
	n, err := strconv.ParseUint(s, 10, 53)
	if err != nil {
		return 0, fmt.Errorf("want the nextCursor of the previous page (a non-negative integer below 2^53), got %s", clip(string(v)))
	}
	return int64(n), nil
}

// uintOf reads a JSON integer in 0..max.
func uintOf(v json.RawMessage, max uint64) (uint64, error) {
	n, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil || n > max {
		return 0, fmt.Errorf("want an integer in 0..%d", max)
	}
	return n, nil
}

// Match reports whether g passes f's field filters (not RID mode or the
// cursor, which the listing applies).
func (f Filter) Match(g *Grant) bool {
	switch {
	case f.Scope != 0 && g.Scope != f.Scope,
		f.RID != nil && g.RID != *f.RID,
		f.RefAddr != "" && g.RefAddr != f.RefAddr,
		f.ValidAt != nil && !Live(g, *f.ValidAt),
		f.ExpireFrom != nil && g.ExpireAt.Before(*f.ExpireFrom),
		f.ExpireTo != nil && g.ExpireAt.After(*f.ExpireTo):
		return false
	}
	return true
}
