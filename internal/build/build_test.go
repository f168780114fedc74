package build

import (
	"os"
	"regexp"
	"runtime"
	"testing"
)

// Read reports what the link stamped (Version, and Revision where the
// toolchain records no VCS information, as in this test binary).
func TestReadReportsTheStampedBuild(t *testing.T) {
	defer func(v, r string) { Version, Revision = v, r }(Version, Revision)
	if b := Read(); b.Version != "dev" || b.Go != runtime.Version() {
		t.Fatalf("unstamped: %+v", b)
	}
	Version, Revision = "v1.2.3", "0123456789abcdef0123456789abcdef01234567"
	if b := Read(); b.Version != "v1.2.3" || b.Revision != Revision {
		t.Fatalf("stamped: %+v", b)
	}
}

// `make build`, `make image` (.ko.yaml) stamp exactly these variables.
func TestBuildsStampTheseVariables(t *testing.T) {
	for _, f := range []string{"../../Makefile", "../../.ko.yaml"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []string{"Version", "Revision"} {
			if !regexp.MustCompile(`-X github\.com/xgr-sidecar/xgr/internal/build\.` + v + `=\S+`).Match(raw) {
				t.Errorf("%s does not stamp build.%s", f, v)
			}
		}
	}
}
