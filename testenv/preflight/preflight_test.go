package preflight

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const goMod = "module x\n\ngo 1.26.8\n"
const installScript = "#!/bin/sh\nETHERS_VERSION=6.17.0\n"

func files(m map[string]string) func(string) ([]byte, error) {
	return func(rel string) ([]byte, error) {
		if s, ok := m[rel]; ok {
			return []byte(s), nil
		}
		return nil, os.ErrNotExist
	}
}

func allPresent(string) (string, error) { return "/bin/x", nil }

func TestCheckNothingMissing(t *testing.T) {
	got := Check(Probe{Find: allPresent, GoVersion: "go1.26.8", LocalServers: true, ReadFile: files(map[string]string{
		"go.mod": goMod, "scripts/install-tools.sh": installScript,
		".tools/npm/node_modules/ethers/package.json": `{"name":"ethers","version": "6.17.0"}`,
	})})
	if len(got) != 0 {
		t.Fatalf("problems: %v", got)
	}
}

func TestCheckListsEveryMissingThing(t *testing.T) {
	missing := map[string]bool{"anvil": true, "chromium": true, "redis-cli": true}
	var asked []string
	find := func(name string) (string, error) {
		asked = append(asked, name)
		if missing[name] {
			return "", errors.New(name + " not found: run `make tools`")
		}
		return "/bin/" + name, nil
	}
	got := Check(Probe{Find: find, GoVersion: "go1.25.3", LocalServers: true, ReadFile: files(map[string]string{
		"go.mod": goMod, "scripts/install-tools.sh": installScript,
		".tools/npm/node_modules/ethers/package.json": `{"version":"6.16.0"}`,
	})})
	var what []string
	for _, p := range got {
		what = append(what, p.What)
	}
	if w := "go redis-cli anvil chromium ethers"; strings.Join(what, " ") != w {
		t.Fatalf("problems %v; want %s\n%v", what, w, got)
	}
	if !strings.Contains(got[0].Detail, "go1.25.3") || !strings.Contains(got[0].Detail, "1.26.8") {
		t.Errorf("go: %s", got[0].Detail)
	}
	if !strings.Contains(got[2].Detail, "make tools") || !strings.Contains(got[2].Detail, "needed by") {
		t.Errorf("anvil: %s", got[2].Detail)
	}
	if !strings.Contains(got[4].Detail, "6.16.0") || !strings.Contains(got[4].Detail, "pins 6.17.0") {
		t.Errorf("ethers: %s", got[4].Detail)
	}
	if strings.Join(asked, " ") != "redis-server redis-cli anvil solcjs node dot chromium systemd-analyze" {
		t.Errorf("asked for %v", asked)
	}
}

func TestCheckDockerProviderNeedsNoRedisCLI(t *testing.T) {
	find := func(name string) (string, error) {
		if name == "redis-cli" {
			t.Error("asked for redis-cli under the docker provider")
		}
		return "/bin/" + name, nil
	}
	got := Check(Probe{Find: find, GoVersion: "go1.27rc1", ReadFile: files(map[string]string{
		"go.mod": goMod, "scripts/install-tools.sh": installScript,
	})})
	if len(got) != 1 || got[0].What != "ethers" || !strings.Contains(got[0].Detail, "not installed") {
		t.Fatalf("problems: %v", got)
	}
}

func TestCompareVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"1.26.8", "1.26.8", 0}, {"1.26", "1.26.0", 0}, {"1.26.7", "1.26.8", -1},
		{"1.27rc1", "1.26.8", 1}, {"2", "1.99", 1}, {"1.9", "1.10", -1},
	} {
		if got := compareVersions(c.a, c.b); got != c.want {
			t.Errorf("compare(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// The report command as `make test` runs it, in a copy of the repository's
// root files whose .tools holds no anvil and whose PATH has every other
// tool but not anvil: it exits 1 within seconds and names anvil with how
// to install it.
func TestReportWithoutAnvil(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "report")
	if out, err := exec.Command("go", "build", "-o", bin, "./report").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	repo := filepath.Join(dir, "repo")
	for rel, content := range map[string]string{
		"go.mod":                   goMod,
		"scripts/install-tools.sh": installScript,
		".tools/npm/node_modules/ethers/package.json": `{"version": "6.17.0"}`,
	} {
		p := filepath.Join(repo, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A PATH of fake executables: every tool except anvil.
	path := filepath.Join(dir, "path")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"redis-server", "redis-cli", "solcjs", "node", "dot", "chromium", "systemd-analyze"} {
		if err := os.WriteFile(filepath.Join(path, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin)
	cmd.Dir = repo
	env := []string{"PATH=" + path, "XGR_TEST_PROVIDER=local", "HOME=" + dir}
	cmd.Env = env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("want exit 1, got %v\n%s", err, out)
	}
	s := string(out)
	if !strings.Contains(s, "1 thing(s)") || !strings.Contains(s, "- anvil: anvil not found") || !strings.Contains(s, "make tools") {
		t.Fatalf("output does not name anvil and how to install it:\n%s", s)
	}
	if took > 5*time.Second {
		t.Errorf("took %s; a preflight answers within seconds", took)
	}

	// The same with anvil on PATH passes.
	if err := os.WriteFile(filepath.Join(path, "anvil"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(bin)
	cmd.Dir = repo
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("with every tool: %v\n%s", err, out)
	}
}
