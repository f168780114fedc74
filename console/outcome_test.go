package console

import (
	"testing"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// A row's outcome is joinstore.OutcomeOf of its meta; its status says
// "killed" only for an ordered kill (a cap or a cancel is an outcome).
func TestRowOutcome(t *testing.T) {
	fin := map[string]string{"owner": testOwner, "rootPid": "3", "status": "finished", "createdAt": "1", "finishedAt": "2"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range fin {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, c := range []struct {
		meta            map[string]string
		status, outcome string
	}{
		{fin, "finished", "ok"},
		{with("status", "live"), "live", ""},
		{with("invalidEnds", "1"), "finished", "invalid"},
		{with("unfulfillable", "2", "invalidEnds", "1"), "finished", "unfulfillable"},
		{with("killedAt", "2", "killKind", "cap", "failed", "0"), "finished", "failed"},
		{with("killedAt", "2", "killKind", "cancel"), "finished", "cancelled"},
		{with("killedAt", "2", "killKind", "kill", "failed", "1"), "killed", "killed"},
		{with("status", "live", "killedAt", "2", "killKind", "kill"), "killed", ""},
	} {
		r := RowOf(joinstore.Overview{Root: joinstore.Root{Owner: testOwner, RootPid: 3}, Meta: c.meta})
		if r.Status != c.status || r.Outcome != c.outcome {
			t.Errorf("%v: status %q outcome %q, want %q %q", c.meta, r.Status, r.Outcome, c.status, c.outcome)
		}
		q, p := ParseQuery(func(k string) string { return map[string]string{"outcome": c.outcome}[k] })
		if p != nil || !q.Keeps(r) {
			t.Errorf("%v: the filter outcome=%q drops its own row (%v)", c.meta, c.outcome, p)
		}
	}
	if _, p := ParseQuery(func(k string) string { return map[string]string{"outcome": "finished"}[k] }); p == nil {
		t.Error("outcome=finished accepted")
	}
}
