package joinstore

import (
	"strings"
	"testing"
)

// The weight of an owner (fair scheduling across owners): set in the
// quotas: section by default and per owner, 1 when unset, never below 0.
func TestQuotaWeight(t *testing.T) {
	q, _, err := ParseQuotas("xgr.yaml", []byte(`quotas:
  weight: 2
  owners:
    "0x00000000000000000000000000000000000000A1": {weight: 5}
    "0x00000000000000000000000000000000000000a2": {liveSessions: 3}
`))
	if err != nil {
		t.Fatal(err)
	}
	for owner, want := range map[string]int{
		"0x00000000000000000000000000000000000000a1": 5,
		"0x00000000000000000000000000000000000000a2": 2,
		"0x00000000000000000000000000000000000000a3": 2,
	} {
		if got := q.WeightOf(owner); got != want {
			t.Errorf("WeightOf(%s) = %d, want %d", owner, got, want)
		}
	}
	if got := (Quotas{}).WeightOf("0x00000000000000000000000000000000000000a1"); got != DefaultWeight {
		t.Errorf("no quotas: weight %d, want %d", got, DefaultWeight)
	}
	for _, bad := range []struct{ yaml, want string }{
		{"quotas:\n  weight: -1\n", "xgr.yaml:2:11: quotas.weight: -1: want 0 (the default, 1) or more"},
		{"quotas:\n  owners:\n    \"0x00000000000000000000000000000000000000a1\": {weight: -1}\n", "quotas.owners.0x00000000000000000000000000000000000000a1.weight: -1: want 0 (the default, 1) or more"},
		{"quotas:\n  weight: heavy\n", `quotas.weight: "heavy": want a whole number`},
	} {
		if _, _, err := ParseQuotas("xgr.yaml", []byte(bad.yaml)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want %q", bad.yaml, err, bad.want)
		}
	}
	if err := (Quotas{Owners: map[string]Quota{"0x00000000000000000000000000000000000000a1": {Weight: -2}}}).Check(); err == nil {
		t.Error("Check passed a negative weight")
	}
}
