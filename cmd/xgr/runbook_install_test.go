package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/testenv"
)

// systemdAnalyze is the path of systemd-analyze; a machine without it
// fails the test with how to install it.
func systemdAnalyze(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Fatal("systemd-analyze not found: install it with `make tools` (apt: systemd)")
	}
	return p
}

// runbookSystemdScript is the sh block under "### systemd" in
// docs/runbook.md: the documented install.
func runbookSystemdScript(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("../../docs/runbook.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "\n### systemd\n")
	if !ok {
		t.Fatal("docs/runbook.md has no \"### systemd\" section")
	}
	_, rest, ok = strings.Cut(rest, "```sh\n")
	if !ok {
		t.Fatal("docs/runbook.md: the systemd section has no sh block")
	}
	block, _, ok := strings.Cut(rest, "\n```")
	if !ok {
		t.Fatal("docs/runbook.md: the systemd section's sh block is not closed")
	}
	return block
}

// inRoot is the runbook's install script made to run as an unprivileged
// test in root: the commands that need a booted systemd or root
// (useradd, systemctl, journalctl) are left out and reported, absolute
// paths move under root, ownership flags go, and bin/xgr is bin.
func inRoot(t *testing.T, script, root, bin string) (string, []string) {
	var out, skipped []string
	for _, line := range strings.Split(script, "\n") {
		fields := strings.Fields(line)
		if len(fields) > 0 && (fields[0] == "useradd" || fields[0] == "systemctl" || fields[0] == "journalctl") {
			skipped = append(skipped, fields[0])
			continue
		}
		line = strings.ReplaceAll(line, "-o root -g xgr ", "")
		line = regexp.MustCompile(`(^|\s)/(etc|usr)/`).ReplaceAllString(line, "${1}"+root+"/${2}/")
		line = regexp.MustCompile(`(^|\s)bin/xgr(\s|$)`).ReplaceAllString(line, "${1}"+bin+"${2}")
		out = append(out, line)
	}
	prep := fmt.Sprintf("set -e\nmkdir -p %[1]s/usr/local/bin %[1]s/etc/systemd/system\n", root)
	return prep + strings.Join(out, "\n") + "\n", skipped
}

// systemdUnit is a parsed unit: each "Section.Key" with its values in order.
type systemdUnit map[string][]string

func parseUnit(t *testing.T, path string) systemdUnit {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u, section := systemdUnit{}, ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			section = strings.Trim(line, "[]")
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("%s: %q is not key=value", path, line)
			}
			u[section+"."+k] = append(u[section+"."+k], v)
		}
	}
	return u
}

// launch is what systemd would run for u installed under root: the
// ExecStart argv and exactly the environment and credentials systemd
// would give it (Environment=, EnvironmentFile=, LoadCredential= falling
// back to SetCredential=, %d the credentials directory).
func (u systemdUnit) launch(t *testing.T, root string) (argv, env []string) {
	t.Helper()
	creds := filepath.Join(t.TempDir(), "credentials")
	if err := os.Mkdir(creds, 0o700); err != nil {
		t.Fatal(err)
	}
	set := map[string]string{}
	for _, v := range u["Service.SetCredential"] {
		id, data, _ := strings.Cut(v, ":")
		unq, err := strconv.Unquote(`"` + data + `"`)
		if err != nil {
			t.Fatalf("SetCredential=%s: %v", v, err)
		}
		set[id] = unq
	}
	for _, v := range u["Service.LoadCredential"] {
		id, path, _ := strings.Cut(v, ":")
		data, err := os.ReadFile(root + path)
		if err != nil {
			def, ok := set[id]
			if !ok {
				t.Fatalf("LoadCredential=%s: %v, and no SetCredential= default: systemd would refuse to start the unit", v, err)
			}
			data = []byte(def)
		}
		if err := os.WriteFile(filepath.Join(creds, id), data, 0o400); err != nil {
			t.Fatal(err)
		}
	}
	expand := func(s string) string {
		s = strings.ReplaceAll(s, "%d", creds)
		if strings.Contains(s, "%") {
			t.Fatalf("%q: a specifier this test does not model", s)
		}
		return s
	}
	env = []string{"PATH=/usr/bin:/bin", "HOME=" + root}
	for _, f := range u["Service.EnvironmentFile"] {
		optional := strings.HasPrefix(f, "-")
		raw, err := os.ReadFile(root + strings.TrimPrefix(f, "-"))
		if err != nil {
			if optional {
				continue
			}
			t.Fatalf("EnvironmentFile=%s: %v", f, err)
		}
		for _, l := range strings.Split(string(raw), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				env = append(env, l)
			}
		}
	}
	for _, e := range u["Service.Environment"] {
		env = append(env, expand(e))
	}
	for i, e := range env {
		if k, v, _ := strings.Cut(e, "="); strings.HasPrefix(v, "/etc/") {
			env[i] = k + "=" + root + v
		}
	}
	if len(u["Service.ExecStart"]) != 1 {
		t.Fatalf("ExecStart set %d times", len(u["Service.ExecStart"]))
	}
	argv = strings.Fields(expand(u["Service.ExecStart"][0]))
	argv[0] = root + argv[0]
	return argv, env
}

// setEnv rewrites the env file's NAME=value lines for this machine: each
// name in vals replaces the documented value, or is added.
func setEnv(t *testing.T, path string, vals map[string]string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimRight(string(raw), "\n"), "\n") {
		if k, _, ok := strings.Cut(l, "="); ok {
			if v, mine := vals[k]; mine {
				l, seen[k] = k+"="+v, true
			}
		}
		out = append(out, l)
	}
	for k, v := range vals {
		if !seen[k] {
			out = append(out, k+"="+v)
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// The runbook's systemd install works as written, for a Redis with a
// password and for one without: the documented commands (but useradd,
// systemctl and journalctl) run in a temporary root, and the installed
// unit's ExecStart, given the environment and credential systemd would
// give it, serves /healthz and drains on SIGTERM. An empty password file
// against a Redis that wants one fails with NOAUTH, naming it. The unit's
// sandbox keeps `systemd-analyze security` at or below 2.0.
func TestRunbookSystemdInstall(t *testing.T) {
	script := runbookSystemdScript(t)
	bin := xgrBinary(t)
	node := testenv.StartAnvil(t)
	const pw = "runbook-s3cret"
	open := testenv.StartRedis(t, testenv.WithAOF())
	locked := testenv.StartRedis(t, testenv.WithAOF())
	if err := locked.Client().ConfigSet(context.Background(), "requirepass", pw).Err(); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name     string
		redis    *testenv.Redis
		password *string // nil: delete the file; else its content
		fail     string  // "": must start; else the error xgr must name
	}{
		{"no password, file empty as installed", open, nil, ""},
		{"no password, file deleted", open, nil, ""},
		{"password in the file", locked, ptr(pw + "\n"), ""},
		{"password wanted, file empty", locked, ptr(""), "NOAUTH"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			sh, skipped := inRoot(t, script, root, bin)
			if got := strings.Join(skipped, " "); got != "useradd systemctl journalctl" {
				t.Errorf("left out %q of the runbook: want exactly useradd, systemctl and journalctl", got)
			}
			cmd := exec.Command("bash", "-c", sh)
			cmd.Dir = "../.."
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the runbook's install commands: %v\n%s\n--- script ---\n%s", err, out, sh)
			}
			listen := freeAddr(t)
			setEnv(t, root+"/etc/xgr/xgr.env", map[string]string{
				"XGR_REDIS": "redis://" + tc.redis.Addr + "/0", "XGR_RPC": node.URL,
				"XGR_METRICS_LISTEN": freeAddr(t), "XGR_LISTEN": listen, "XGR_REPLICA": "runbook",
			})
			pwFile := root + "/etc/xgr/redis-password"
			switch {
			case tc.name == "no password, file deleted":
				if err := os.Remove(pwFile); err != nil {
					t.Fatal(err)
				}
			case tc.password != nil:
				if err := os.WriteFile(pwFile, []byte(*tc.password), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			argv, env := parseUnit(t, root+"/etc/systemd/system/xgr.service").launch(t, root)
			var stderr bytes.Buffer
			x := exec.Command(argv[0], argv[1:]...)
			x.Env, x.Stderr = env, &stderr
			if err := x.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- x.Wait() }()
			defer func() {
				_ = x.Process.Kill()
				<-exited
			}()
			if tc.fail != "" {
				select {
				case err := <-exited:
					exited <- err
					if err == nil || !strings.Contains(stderr.String(), tc.fail) {
						t.Errorf("exit %v, want a failure naming %s:\n%s", err, tc.fail, stderr.String())
					}
				case <-time.After(60 * time.Second):
					t.Errorf("still running after 60 s, want a failure naming %s", tc.fail)
				}
				return
			}
			deadline := time.Now().Add(60 * time.Second)
			for {
				res, err := http.Get("http://" + listen + "/healthz")
				if err == nil {
					res.Body.Close()
					if res.StatusCode == http.StatusOK {
						break
					}
				}
				select {
				case err := <-exited:
					exited <- err
					t.Fatalf("xgr exited (%v) before /healthz answered 200:\n%s", err, stderr.String())
				case <-time.After(100 * time.Millisecond):
				}
				if time.Now().After(deadline) {
					t.Fatalf("/healthz did not answer 200 within 60 s:\n%s", stderr.String())
				}
			}
			if err := x.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				exited <- err
				if err != nil {
					t.Errorf("SIGTERM: exit %v, want 0:\n%s", err, stderr.String())
				}
			case <-time.After(60 * time.Second):
				t.Errorf("SIGTERM: still running after 60 s")
			}
		})
	}

	t.Run("security rating", func(t *testing.T) {
		raw, err := os.ReadFile("../../deploy/systemd/xgr.service")
		if err != nil {
			t.Fatal(err)
		}
		copyPath := filepath.Join(t.TempDir(), "xgr.service")
		if err := os.WriteFile(copyPath, bytes.ReplaceAll(raw, []byte("/usr/local/bin/xgr"), []byte(bin)), 0o644); err != nil {
			t.Fatal(err)
		}
		out, _ := exec.Command(systemdAnalyze(t), "security", "--offline=true", copyPath).CombinedOutput()
		m := regexp.MustCompile(`Overall exposure level for \S+: ([0-9.]+)`).FindSubmatch(out)
		if m == nil {
			t.Fatalf("systemd-analyze security printed no exposure level:\n%s", out)
		}
		if level, _ := strconv.ParseFloat(string(m[1]), 64); level > 2.0 {
			t.Errorf("exposure level %.1f, want at most 2.0:\n%s", level, out)
		}
	})
}

func ptr(s string) *string { return &s }
