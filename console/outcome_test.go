package console

import (
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// A row's outcome is joinstore.OutcomeOf of its meta; its status says
// "killed" only for an ordered kill (a cap or a cancel is an outcome).
func TestRowOutcome(t *testing.T) {
	ms := time.UnixMilli
	fin := joinstore.SessionMeta{Owner: testOwner, RootPid: 3, Status: joinstore.SessionFinished, CreatedAt: ms(1), FinishedAt: ms(2)}
	with := func(edit func(m *joinstore.SessionMeta)) joinstore.SessionMeta {
		m := fin
		edit(&m)
		return m
	}
	live := func(m *joinstore.SessionMeta) { m.Status, m.FinishedAt = joinstore.SessionLive, time.Time{} }
	for _, c := range []struct {
		meta            joinstore.SessionMeta
		status, outcome string
	}{
		{fin, "finished", "ok"},
		{with(live), "live", ""},
		{with(func(m *joinstore.SessionMeta) { m.InvalidEnds = 1 }), "finished", "invalid"},
		{with(func(m *joinstore.SessionMeta) { m.Unfulfillable, m.InvalidEnds = 2, 1 }), "finished", "unfulfillable"},
		{with(func(m *joinstore.SessionMeta) { m.KilledAt, m.KillKind = ms(2), joinstore.KillKindCap }), "finished", "failed"},
		{with(func(m *joinstore.SessionMeta) { m.KilledAt, m.KillKind = ms(2), joinstore.KillKindCancel }), "finished", "cancelled"},
		{with(func(m *joinstore.SessionMeta) { m.KilledAt, m.KillKind, m.Failed = ms(2), joinstore.KillKindKill, 1 }), "killed", "killed"},
		{with(func(m *joinstore.SessionMeta) { live(m); m.KilledAt, m.KillKind = ms(2), joinstore.KillKindKill }), "killed", ""},
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
	// A meta with a field that does not parse is listed without an outcome.
	if r := RowOf(joinstore.Overview{Root: joinstore.Root{Owner: testOwner, RootPid: 3}, Meta: fin, Bad: joinstore.ErrBadRecord}); r.Outcome != "" || r.Status != "finished" {
		t.Errorf("a bad record's row: status %q outcome %q, want finished and none", r.Status, r.Outcome)
	}
	if _, p := ParseQuery(func(k string) string { return map[string]string{"outcome": "finished"}[k] }); p == nil {
		t.Error("outcome=finished accepted")
	}
}
