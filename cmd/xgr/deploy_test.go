package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
	"go.yaml.in/yaml/v3"

	"github.com/xgr-sidecar/xgr/indexer"
)

// runFlags maps every flag name and environment variable of xgr run (and
// the global flags) to its flag.
func runFlags(t *testing.T) (names map[string]cli.Flag, envs map[string]cli.Flag) {
	t.Helper()
	names, envs = map[string]cli.Flag{}, map[string]cli.Flag{}
	app := newApp(os.Stdout, os.Stderr)
	flags := append([]cli.Flag{}, app.Flags...)
	flags = append(flags, runCommand().Flags...)
	for _, f := range flags {
		for _, n := range f.Names() {
			names[n] = f
		}
		if e, ok := f.(interface{ GetEnvVars() []string }); ok {
			for _, v := range e.GetEnvVars() {
				envs[v] = f
			}
		}
	}
	return names, envs
}

// durationDefault is the default of a duration flag of xgr run.
func durationDefault(t *testing.T, name string) time.Duration {
	t.Helper()
	names, _ := runFlags(t)
	f, ok := names[name].(*cli.DurationFlag)
	if !ok {
		t.Fatalf("xgr run has no duration flag --%s", name)
	}
	return f.Value
}

// checkArgs fails on a --flag the argument list uses that xgr does not know.
func checkArgs(t *testing.T, where string, args []string) {
	t.Helper()
	names, _ := runFlags(t)
	for _, a := range args {
		if !strings.HasPrefix(a, "--") {
			continue
		}
		n := strings.TrimPrefix(strings.SplitN(a, "=", 2)[0], "--")
		if _, ok := names[n]; !ok {
			t.Errorf("%s: xgr run has no flag --%s", where, n)
		}
	}
}

// The systemd unit runs xgr run with flags and variables xgr knows, stops
// it with SIGTERM and waits longer than a drain may take (--proc-lease +
// --root-lease), keeps the Redis password in a credential file, and passes
// systemd-analyze verify.
func TestSystemdUnit(t *testing.T) {
	const path = "../../deploy/systemd/xgr.service"
	unit := parseUnit(t, path)
	one := func(k string) string {
		if len(unit[k]) != 1 {
			t.Fatalf("%s: %s set %d times", path, k, len(unit[k]))
		}
		return unit[k][0]
	}
	stop, err := time.ParseDuration(one("Service.TimeoutStopSec") + "s")
	if err != nil {
		t.Fatal(err)
	}
	if drain := durationDefault(t, "proc-lease") + durationDefault(t, "root-lease"); stop <= drain {
		t.Errorf("TimeoutStopSec %s: want more than the drain's bound %s (--proc-lease + --root-lease)", stop, drain)
	}
	if one("Service.KillSignal") != "SIGTERM" || one("Install.WantedBy") != "multi-user.target" {
		t.Errorf("KillSignal %q, WantedBy %q", one("Service.KillSignal"), one("Install.WantedBy"))
	}
	start := strings.Fields(one("Service.ExecStart"))
	if start[0] != "/usr/local/bin/xgr" || start[len(start)-1] != "run" {
		t.Errorf("ExecStart %v: want /usr/local/bin/xgr … run", start)
	}
	checkArgs(t, "ExecStart", start[1:])
	_, envs := runFlags(t)
	for _, e := range unit["Service.Environment"] {
		k, _, _ := strings.Cut(e, "=")
		if _, ok := envs[k]; !ok {
			t.Errorf("Environment %s: xgr run reads no such variable", k)
		}
	}
	if !strings.Contains(strings.Join(unit["Service.Environment"], " "), "XGR_REDIS_PASSWORD_FILE=%d/") || len(unit["Service.LoadCredential"]) != 1 {
		t.Error("the Redis password must come from a credential file, never a flag")
	}

	analyze := systemdAnalyze(t)
	// verify needs ExecStart's binary and the user to exist: a copy
	// pointing at a real binary, without User/Group and credentials (this
	// machine has no xgr user or /etc/xgr).
	dir := t.TempDir()
	raw, _ := os.ReadFile(path)
	text := strings.ReplaceAll(string(raw), "/usr/local/bin/xgr", xgrBinary(t))
	text = regexp.MustCompile(`(?m)^(User|Group|LoadCredential)=.*\n`).ReplaceAllString(text, "")
	copyPath := filepath.Join(dir, "xgr.service")
	if err := os.WriteFile(copyPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", copyPath).CombinedOutput()
	// systemd-analyze also reports on units the system lacks (no
	// redis-server.service here); only lines about this unit count.
	var own []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "xgr.service") && !strings.Contains(l, "redis-server.service") {
			own = append(own, l)
		}
	}
	if len(own) > 0 {
		t.Errorf("systemd-analyze verify (%v):\n%s", err, strings.Join(own, "\n"))
	}
}

// The compose file: anvil, Redis with AOF fsynced on every write, and two
// xgr replicas with distinct names and ports, flags and variables xgr
// knows, a stop grace period longer than the drain, and a chain config
// xgr accepts.
func TestComposeFile(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Services map[string]struct {
			Image       string
			Command     []string
			Entrypoint  []string
			Environment map[string]string
			Ports       []string
			Volumes     []string
			StopGrace   string `yaml:"stop_grace_period"`
			Healthcheck struct {
				Test []string
			}
		}
	}
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Services["anvil"]; !ok {
		t.Error("no anvil service")
	}
	redis := strings.Join(c.Services["redis"].Command, " ")
	if !strings.Contains(redis, "--appendonly yes") || !strings.Contains(redis, "--appendfsync always") {
		t.Errorf("redis runs %q: want AOF with appendfsync always", redis)
	}
	_, envs := runFlags(t)
	drain := durationDefault(t, "proc-lease") + durationDefault(t, "root-lease")
	replicas, listens := map[string]bool{}, map[string]bool{}
	for name, s := range c.Services {
		if !strings.HasPrefix(name, "xgr-") {
			continue
		}
		args := s.Command
		i := len(args) - 1
		for i >= 0 && args[i] != "run" {
			i--
		}
		if i < 0 {
			t.Fatalf("%s: command %v does not run xgr run", name, args)
		}
		checkArgs(t, name, args)
		listen := ""
		for j, a := range args {
			if j+1 < len(args) && a == "--replica" {
				replicas[args[j+1]] = true
			}
			if j+1 < len(args) && a == "--listen" {
				listen = args[j+1]
				listens[listen] = true
			}
		}
		// The image has no shell: the healthcheck runs xgr health (the
		// image's entrypoint binary) against the replica's own port.
		_, port, _ := net.SplitHostPort(listen)
		hc := s.Healthcheck.Test
		if want := []string{"CMD", "/ko-app/xgr", "health", "--listen", "127.0.0.1:" + port}; port == "" || !slices.Equal(hc, want) {
			t.Errorf("%s: healthcheck %q, want %q", name, hc, want)
		} else if u, err := healthURL("", hc[4], "/healthz"); err != nil || u != "http://127.0.0.1:"+port+"/healthz" {
			t.Errorf("%s: the healthcheck asks %q (%v)", name, u, err)
		}
		for k := range s.Environment {
			if _, ok := envs[k]; !ok {
				t.Errorf("%s: xgr run reads no variable %s", name, k)
			}
		}
		if s.Environment["XGR_REQUIRE_AOF"] != "true" {
			t.Errorf("%s: XGR_REQUIRE_AOF %q, want true", name, s.Environment["XGR_REQUIRE_AOF"])
		}
		if g, err := time.ParseDuration(s.StopGrace); err != nil || g <= drain {
			t.Errorf("%s: stop_grace_period %q: want more than %s", name, s.StopGrace, drain)
		}
	}
	if len(replicas) != 2 || len(listens) != 2 {
		t.Errorf("replicas %v, listen addresses %v: want two distinct of each", replicas, listens)
	}
	cfg, err := os.ReadFile("../../deploy/compose-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.ParseConfig("compose-config.yaml", cfg); err != nil {
		t.Errorf("compose-config.yaml: %v", err)
	}
}
