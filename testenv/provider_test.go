package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/testenv/provider"
)

// childEnv marks this test binary as run by runChild.
const childEnv = "XGR_TESTENV_CHILD"

// runChild runs one test of this package in a fresh process (the provider
// choice is made once per process) with env added and DOCKER_HOST pointing
// at a socket that does not exist, so no engine answers whatever the
// machine has. It returns the output, whether the child passed and how long
// it took.
func runChild(t *testing.T, test string, env ...string) (string, bool, time.Duration) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^"+test+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"=1",
		"DOCKER_HOST=unix://"+filepath.Join(dir, "no-engine.sock"),
		// testcontainers-go reads ~/.testcontainers.properties first.
		"HOME="+dir)
	cmd.Env = append(cmd.Env, env...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	return string(out), err == nil, time.Since(start)
}

// TestChildStartsEverything is the child of the tests below: it asks for
// every kind of server once.
func TestChildStartsEverything(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("helper process of TestDockerWithoutEngineFailsFast")
	}
	t.Run("redis", func(t *testing.T) { StartRedis(t).Client() })
	t.Run("cluster", func(t *testing.T) { StartCluster(t, 3) })
	t.Run("sentinel", func(t *testing.T) { StartSentinel(t) })
	t.Run("anvil", func(t *testing.T) { StartAnvil(t) })
}

// TestChildReportsProvider is the child of TestAutoPicksLocalWithoutEngine.
func TestChildReportsProvider(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("helper process of TestAutoPicksLocalWithoutEngine")
	}
	if k, err := Provider(); k != provider.Local || err != nil {
		t.Fatalf("provider %s, %v; want local", k, err)
	}
}

func TestDockerWithoutEngineFailsFast(t *testing.T) {
	out, ok, took := runChild(t, "TestChildStartsEverything", provider.Env+"=docker")
	if ok {
		t.Fatalf("XGR_TEST_PROVIDER=docker without an engine passed:\n%s", out)
	}
	line := provider.Env + "=docker: no Docker engine answers at unix://"
	fix := ": install Docker or use " + provider.Env + "=local|auto"
	if got := strings.Count(out, "testenv: "+line); got != 1 {
		t.Errorf("report line printed %d times, want once", got)
	}
	for _, sub := range []string{"redis", "cluster", "sentinel", "anvil"} {
		if !strings.Contains(out, "--- FAIL: TestChildStartsEverything/"+sub) {
			t.Errorf("subtest %s did not fail", sub)
		}
	}
	// Every failure is the same single line, naming where no engine answers
	// and what to do.
	var failures int
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, line) && !strings.HasPrefix(l, "testenv: ") {
			failures++
			if !strings.Contains(l, "no-engine.sock") || !strings.HasSuffix(l, fix) {
				t.Errorf("failure line %q: want the socket and %q", l, fix)
			}
		}
	}
	if failures != 4 {
		t.Errorf("%d failure lines naming the engine, want 4", failures)
	}
	if strings.Contains(out, "redis-server did not start") || strings.Contains(out, "cannot start anvil") {
		t.Errorf("a server start was attempted:\n%s", out)
	}
	if took > 30*time.Second {
		t.Errorf("took %s to fail, want fast", took)
	}
	if t.Failed() {
		t.Logf("child output:\n%s", out)
	}
}

func TestAutoPicksLocalWithoutEngine(t *testing.T) {
	for _, setting := range []string{"", "auto"} {
		out, ok, _ := runChild(t, "TestChildReportsProvider", provider.Env+"="+setting)
		if !ok {
			t.Fatalf("%s=%q without an engine failed:\n%s", provider.Env, setting, out)
		}
		want := "testenv: provider local (auto: no Docker engine answers at unix://"
		if got := strings.Count(out, want); got != 1 {
			t.Errorf("%s=%q: report line %q printed %d times, want once:\n%s", provider.Env, setting, want, got, out)
		}
	}
}

// On this run's machine: without an engine, the default (auto) is local.
func TestThisRunsProvider(t *testing.T) {
	k, err := Provider()
	if err != nil {
		t.Fatal(err)
	}
	c := provider.Current()
	t.Log(c.Line())
	if s := os.Getenv(provider.Env); (s == "" || s == "auto") && k == provider.Local && !strings.Contains(c.Reason, "no Docker engine answers at") {
		t.Errorf("auto chose local without saying which engine is missing: %q", c.Reason)
	}
}
