package testenv

import (
	"testing"

	"github.com/xgr-sidecar/xgr/testenv/provider"
)

// Provider is where this test binary's servers run: provider.Docker
// (testcontainers-go) or provider.Local (binaries), chosen once from
// XGR_TEST_PROVIDER (docker|local|auto, default auto: docker when an engine
// answers, else local) and reported once on stderr. The error is set when
// no provider can serve; its text is one line that says what to do.
func Provider() (provider.Kind, error) {
	c := provider.Current()
	return c.Kind, c.Err
}

// kind is Provider for a test: an error fails the test at once with its one
// line (no server start is attempted, so a misconfigured run fails fast).
func kind(t testing.TB) provider.Kind {
	t.Helper()
	k, err := Provider()
	if err != nil {
		t.Fatal(err.Error())
	}
	return k
}

// requireDocker is for tests of the docker provider itself: they run when
// the docker provider serves this run and skip, naming the missing engine
// or the setting, when it does not.
func requireDocker(t testing.TB) {
	t.Helper()
	c := provider.Current()
	if c.Err != nil {
		t.Fatal(c.Err.Error())
	}
	if c.Kind != provider.Docker {
		t.Skipf("needs the docker provider; this run uses local (%s)", c.Reason)
	}
}
