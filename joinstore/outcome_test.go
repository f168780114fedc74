package joinstore

import (
	"testing"
	"time"
)

// OutcomeOf ranks the tallies: killed > cancelled > failed > unfulfillable
// > invalid > ok; a live session has none.
func TestOutcomeOfPrecedence(t *testing.T) {
	at := time.UnixMilli(1)
	fin := func(m SessionMeta) SessionMeta { m.Status = SessionFinished; return m }
	cases := []struct {
		m    SessionMeta
		want Outcome
	}{
		{SessionMeta{Status: SessionLive, Failed: 1}, ""},
		{fin(SessionMeta{}), OutcomeOK},
		{fin(SessionMeta{InvalidEnds: 2}), OutcomeInvalid},
		{fin(SessionMeta{InvalidEnds: 1, Unfulfillable: 1}), OutcomeUnfulfillable},
		{fin(SessionMeta{Unfulfillable: 1, Failed: 1}), OutcomeFailed},
		{fin(SessionMeta{KilledAt: at, KillKind: KillKindCap}), OutcomeFailed},
		{fin(SessionMeta{Failed: 1, KilledAt: at, KillKind: KillKindCancel}), OutcomeCancelled},
		{fin(SessionMeta{Killed: 1, KilledAt: at, KillKind: KillKindCancel}), OutcomeKilled},
		{fin(SessionMeta{KilledAt: at, KillKind: KillKindKill}), OutcomeKilled},
		{fin(SessionMeta{KilledAt: at}), OutcomeKilled}, // recorded before killKind existed
	}
	for i, c := range cases {
		if got := OutcomeOf(c.m); got != c.want {
			t.Errorf("case %d %+v: %q, want %q", i, c.m, got, c.want)
		}
	}
	if _, err := ParseOutcome("nope"); err == nil {
		t.Error("ParseOutcome accepted nope")
	}
	if o, err := ParseOutcome("Failed"); err != nil || o != OutcomeFailed {
		t.Errorf("ParseOutcome(Failed) = %q, %v", o, err)
	}
}
