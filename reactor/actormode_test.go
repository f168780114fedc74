package reactor

import "testing"

// The root actor's mode over every order of its two outside events that
// matter: the cancel (replica shutdown) and the end of the opening read,
// which succeeds or fails.
func TestActorModeTransitions(t *testing.T) {
	type step func(actorMode) actorMode
	cancel := func(m actorMode) actorMode { return m.cancel() }
	opened := func(m actorMode) actorMode { return m.opened(true) }
	failed := func(m actorMode) actorMode { return m.opened(false) }
	for _, tc := range []struct {
		name  string
		steps []step
		want  actorMode
	}{
		{"opened", []step{opened}, modeRunning},
		{"open failed", []step{failed}, modeDraining},
		{"cancelled while opening", []step{cancel}, modeOpeningCancelled},
		{"cancelled, then opened", []step{cancel, opened}, modeDraining},
		{"cancelled, then open failed", []step{cancel, failed}, modeDraining},
		{"opened, then cancelled", []step{opened, cancel}, modeDraining},
		{"cancelled twice", []step{opened, cancel, cancel}, modeDraining},
		{"a late open result changes nothing", []step{opened, opened}, modeRunning},
	} {
		m := modeOpening
		for _, s := range tc.steps {
			m = s(m)
		}
		if m != tc.want {
			t.Errorf("%s: mode %v, want %v", tc.name, m, tc.want)
		}
	}
	for _, m := range []actorMode{modeReleasing, modeDone} {
		if m.cancel() != m || m.opened(true) != m || m.opened(false) != m {
			t.Errorf("%v must not be left by a cancel or an open result", m)
		}
	}
	renews := map[actorMode]bool{modeRunning: true, modeDraining: true}
	for m := modeOpening; m <= modeDone; m++ {
		if m.renews() != renews[m] {
			t.Errorf("%v renews %v", m, m.renews())
		}
		if m.String() == "mode?" {
			t.Errorf("mode %d has no name", m)
		}
	}
}
