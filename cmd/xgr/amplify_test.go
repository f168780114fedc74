package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/testenv"
)

// The security review's rule: each level joins 16 copies of the previous
// one, 16^9 bytes at the end; the outcome does the same from a 100 KB
// payload string. Before the value caps it asked for a 4 GiB string and
// Go's out-of-memory ended the process.
func amplifierRule() string {
	level := ".map(a, join([a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a], ''))"
	return `{"payload": {"P": {"type": "string", "default": "x"}},
  "rules": ["[\"x\"]` + strings.Repeat(level, 9) + `[0].size() > 0"],
  "onValid": {"payload": {"Out": "[P, '']` + strings.Repeat(level, 3) + `[0]"}}}`
}

const amplifierOSTC = `{"id": "amp", "structure": {
  "amp":  {"rule": "<amp>"},
  "fine": {"rule": "<fine>", "onValid": {"spawns": ["fine2"]}},
  "fine2": {"rule": "<fine>"}}}`

// memLimit is the address-space limit (ulimit -v, KiB) the binary runs
// under (2 GiB): enough for xgr and its threads, below the 4 GiB block the
// rule asked for before the caps.
const memLimit = 2 << 20

// plainBinary is an xgr binary without the race detector, whose shadow
// memory a ulimit -v cannot hold.
var plain struct {
	once sync.Once
	path string
	err  error
}

func plainBinary(t *testing.T) string {
	t.Helper()
	if !raceEnabled {
		return xgrBinary(t)
	}
	plain.once.Do(func() {
		dir, err := os.MkdirTemp("", "xgr-plain-")
		if err != nil {
			plain.err = err
			return
		}
		plain.path = filepath.Join(dir, "xgr")
		if out, err := exec.Command("go", "build", "-o", plain.path, ".").CombinedOutput(); err != nil {
			plain.err = fmt.Errorf("go build ./cmd/xgr: %v\n%s", err, out)
		}
	})
	if plain.err != nil {
		t.Fatal(plain.err)
	}
	return plain.path
}

// limited is a command running xgr under ulimit -v memLimit.
func limited(t *testing.T, ctx context.Context, args ...string) *exec.Cmd {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	script := fmt.Sprintf("ulimit -v %d && exec '%s' %s", memLimit, plainBinary(t), strings.Join(q, " "))
	return exec.CommandContext(ctx, "bash", "-c", script)
}

// Under a memory limit, the amplifying rule ends as a clear step error in
// rule eval, simulate and xgr run, and the replica keeps serving the other
// sessions.
func TestAmplifyingRuleUnderMemoryLimit(t *testing.T) {
	rules := ruleDir(t, map[string]string{
		"amp.json":  amplifierRule(),
		"fine.json": `{"payload": {}, "onValid": {"payload": {"ok": true}}}`,
	})
	payload := writeFile(t, "p.json", `{"P": "`+strings.Repeat("p", 100_000)+`"}`)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	t.Run("rule eval", func(t *testing.T) {
		var out bytes.Buffer
		cmd := limited(t, ctx, "rule", "eval", filepath.Join(rules, "amp.json"), "--payload", payload)
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 1 || strings.Contains(out.String(), "fatal error") || !strings.Contains(out.String(), "MaxValueBytes") {
			t.Fatalf("exit %d (%v), want 1 with the cap named:\n%s", code, err, out.String())
		}
	})

	ostc := writeFile(t, "amp.json", amplifierOSTC)
	t.Run("simulate", func(t *testing.T) {
		var out bytes.Buffer
		cmd := limited(t, ctx, "simulate", ostc, "--start", "amp", "--rules", rules, "--payload", payload, "--deterministic", "--json")
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil || strings.Contains(out.String(), "fatal error") {
			t.Fatalf("simulate: %v\n%s", err, out.String())
		}
		sum := summaryOf(t, out.String())
		if len(sum.Processes) != 1 || sum.Processes[0].Status != "aborted" || !strings.Contains(sum.Processes[0].Reason, "MaxValueBytes") {
			t.Fatalf("the step must abort with the cap named: %+v", sum.Processes)
		}
	})

	t.Run("run", func(t *testing.T) {
		srv := testenv.StartRedis(t)
		url := "redis://" + srv.Addr + "/0"
		for _, s := range []struct{ step, payload string }{{"amp", payload}, {"fine", writeFile(t, "f.json", `{}`)}, {"amp", payload}, {"fine", writeFile(t, "g.json", `{}`)}} {
			if out, code := run(t, "session", "start", ostc, "--step", s.step, "--payload", s.payload, "--redis", url, "--owner", testOwner); code != 0 {
				t.Fatalf("start: %d %s", code, out)
			}
		}
		addr := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
		var out bytes.Buffer
		replica := limited(t, ctx, "run", "--redis", url, "--ostc", ostc, "--rules", rules, "--poll", "20ms", "--listen", addr, "--no-ui")
		replica.Stdout, replica.Stderr = &out, &out
		if err := replica.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- replica.Wait() }()
		defer func() {
			replica.Process.Signal(os.Interrupt)
			<-exited
		}()
		for root := int64(1); root <= 4; root++ {
			waitStatus(t, url, root, "finished")
		}
		for root := int64(1); root <= 4; root++ {
			o, _ := run(t, "session", "show", "--json", "--redis", url, "--owner", testOwner, fmt.Sprint(root))
			var v struct {
				Processes []map[string]any
			}
			if err := json.Unmarshal([]byte(o), &v); err != nil {
				t.Fatal(err)
			}
			for _, p := range v.Processes {
				want := "done"
				if p["resumeStep"] == "amp" {
					want = "aborted"
					if r, _ := p["abortReason"].(string); !strings.Contains(r, "MaxValueBytes") {
						t.Errorf("session %d: abort reason %q does not name the cap", root, r)
					}
				}
				if p["status"] != want {
					t.Errorf("session %d: %v is %v, want %s", root, p["resumeStep"], p["status"], want)
				}
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("the replica exited (%v):\n%s", err, out.String())
		default:
		}
		resp, err := http.Get("http://" + addr + "/healthz")
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("the replica no longer serves /healthz: %v %v\n%s", resp, err, out.String())
		}
		resp.Body.Close()
	})
}
