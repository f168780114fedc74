package grant

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseFilter(t *testing.T) {
	f, err := ParseFilter([]byte(`{"scope": 2, "rid": "0x` + strings.Repeat("Ab", 32) + `", "refAddr": "0x00000000000000000000000000000000000000AA",
		"validAt": 1700000000, "expireFrom": 1700000000, "expireTo": 1800000000, "limit": 7, "cursor": "42", "permit": {"x": 1}}`))
	if err != nil || f.Scope != 2 || f.RID == nil || f.RID.Hex() != strings.Repeat("ab", 32) || f.RefAddr != owner || f.Limit != 7 || f.Cursor != 42 ||
		f.ValidAt.Unix() != 1700000000 || f.ExpireTo.Unix() != 1800000000 {
		t.Fatalf("%+v %v", f, err)
	}
	for in, want := range map[string]string{
		`[]`:                               "want a JSON object",
		`{"scope": 3}`:                     "scope: want 1 (rules) or 2",
		`{"scope": 1, "scope": 2}`:         "scope: given twice",
		`{"limit": 0}`:                     "limit: want 1..500",
		`{"limit": 501}`:                   "limit: want 1..500",
		`{"cursor": -1}`:                   "cursor: want the nextCursor",
		`{"cursor": 1.5}`:                  "cursor: want the nextCursor",
		`{"cursor": 9007199254740992}`:     "cursor: want the nextCursor",
		`{"rid": "0x12"}`:                  "rid: want a RID",
		`{"refAddr": "nope"}`:              "refAddr: want an address",
		`{"validAt": "1"}`:                 "validAt: want unix seconds",
		`{"expireFrom": 5, "expireTo": 4}`: "expireTo: 4 is before expireFrom 5",
		`{"owner": "0x"}`:                  `"owner": unknown member`,
		`{} {}`:                            "trailing data",
		`{"limit": 1`:                      "malformed",
		`{"limit": 1e2}`:                   "limit: want 1..500",
		`{"x` + strings.Repeat("y", 5000) + `": 1}`: "at most 4096",
	} {
		if _, err := ParseFilter([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.60s: %v, want %q", in, err, want)
		}
	}
}

// FuzzParseFilter: no input panics; an accepted filter is within bounds
// and its cursor is exact.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{`{}`, `{"scope":1,"limit":10,"cursor":"5"}`, `{"rid":"0x` + strings.Repeat("0", 64) + `","scope":2}`,
		`{"validAt":1,"expireFrom":0,"expireTo":2}`, `{"permit":null,"cursor":9007199254740991}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		flt, err := ParseFilter(raw)
		if err != nil {
			return
		}
		if flt.Limit < 0 || flt.Limit > MaxLimit || flt.Cursor < 0 || flt.Cursor >= 1<<53 || flt.Scope > 2 {
			t.Fatalf("out of bounds: %+v", flt)
		}
		if flt.ExpireFrom != nil && flt.ExpireTo != nil && flt.ExpireTo.Before(*flt.ExpireFrom) {
			t.Fatalf("inverted expiry range accepted: %+v", flt)
		}
	})
}

// FuzzParseCursor: a cursor round-trips exactly.
func FuzzParseCursor(f *testing.F) {
	for _, s := range []string{`0`, `"17"`, `9007199254740991`, `-1`, `"1e3"`, `""`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		n, err := ParseCursor(raw)
		if err != nil {
			return
		}
		b, _ := json.Marshal(n)
		m, err := ParseCursor(b)
		if err != nil || m != n || n < 0 {
			t.Fatalf("%q -> %d -> %s -> %d %v", raw, n, b, m, err)
		}
	})
}
