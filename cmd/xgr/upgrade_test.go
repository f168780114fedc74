package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/redisconn"
	"github.com/xgr-sidecar/xgr/testenv"
)

// schemaBuild builds cmd/xgr with a Redis schema version and the oldest
// one it shares Redis with set at link time, as two releases differ.
func schemaBuild(t *testing.T, version, since int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), fmt.Sprintf("xgr-schema%d-%d", version, since))
	pkg := "github.com/xgr-sidecar/xgr/redisconn"
	ldflags := fmt.Sprintf("-X %s.SchemaVersion=%d -X %s.SchemaCompatibleSince=%d -X github.com/xgr-sidecar/xgr/internal/build.Version=schema%d",
		pkg, version, pkg, since, version)
	out, err := exec.Command("go", "build", "-ldflags", ldflags, "-o", path, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build (schema %d): %v\n%s", version, err, out)
	}
	return path
}

// replicaProc is a running xgr run.
type replicaProc struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	done   chan error
}

// startRun starts bin's xgr run on rdb and waits until /healthz answers
// 200, or until it exits (returned with its stderr).
func startRun(t *testing.T, bin, redisAddr, name string, extra ...string) (*replicaProc, error) {
	t.Helper()
	listen := freeAddr(t)
	args := append([]string{"run", "--redis", "redis://" + redisAddr + "/0", "--outcomes", writeFile(t, name+"-outcomes.json", `{"default":{"result":"valid"}}`),
		"--replica", name, "--listen", listen}, extra...)
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Env = append(os.Environ(), "XGR_LOG_LEVEL=info")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &replicaProc{cmd: cmd, stderr: &stderr, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-p.done; p.done <- nil })
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-p.done:
			p.done <- err
			return nil, fmt.Errorf("exited (%v):\n%s", err, stderr.String())
		case <-time.After(100 * time.Millisecond):
		}
		if res, err := http.Get("http://" + listen + "/healthz"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return p, nil
			}
		}
	}
	t.Fatalf("%s: /healthz did not answer within 90 s:\n%s", name, stderr.String())
	return nil, nil
}

func (p *replicaProc) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		p.done <- err
		if err != nil {
			t.Errorf("SIGTERM: %v\n%s", err, p.stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Errorf("SIGTERM: still running after 60 s")
	}
}

// A rolling upgrade between releases of different Redis schemas: a newer
// build whose schema shares Redis with the older one starts beside it and
// records its schema (the older keeps running and may restart); a build
// whose schema does not share refuses to start while the older schema is
// recorded, and starts with --upgrade-schema once the operator stopped
// the older replicas; after that the older build refuses, naming the
// schemas and what to do. A refusal writes nothing.
func TestRollingUpgradeAcrossSchemas(t *testing.T) {
	rds := testenv.StartRedis(t)
	ctx := context.Background()
	v1, v2, v3 := schemaBuild(t, 1, 1), schemaBuild(t, 2, 1), schemaBuild(t, 3, 3)
	schema := func() map[string]string {
		m, err := rds.Client().HGetAll(ctx, redisconn.SchemaKey).Result()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}

	a, err := startRun(t, v1, rds.Addr, "a")
	if err != nil {
		t.Fatal(err)
	}
	if s := schema(); s["version"] != "1" || s["build"] != "schema1" {
		t.Fatalf("after the first replica: %v", s)
	}
	b, err := startRun(t, v2, rds.Addr, "b")
	if err != nil {
		t.Fatalf("schema 2 (shares with 1) beside schema 1: %v", err)
	}
	if s := schema(); s["version"] != "2" || s["compatibleSince"] != "1" {
		t.Fatalf("after the schema-2 replica: %v", s)
	}
	// The older release may restart during the roll: schema 2 shares with 1.
	a.stop(t)
	if a, err = startRun(t, v1, rds.Addr, "a"); err != nil {
		t.Fatalf("schema 1 restarting beside schema 2: %v", err)
	}

	// Schema 3 shares Redis only with 3: refused while 2 is recorded.
	_, err = startRun(t, v3, rds.Addr, "c")
	if err == nil || !strings.Contains(err.Error(), "redis schema: redis holds schema 2") || !strings.Contains(err.Error(), "--upgrade-schema") {
		t.Fatalf("schema 3 beside schema 2: %v, want a refusal naming both and --upgrade-schema", err)
	}
	if s := schema(); s["version"] != "2" {
		t.Fatalf("a refused start changed the record: %v", s)
	}
	// The operator stops the older replicas, then upgrades.
	a.stop(t)
	b.stop(t)
	c, err := startRun(t, v3, rds.Addr, "c", "--upgrade-schema")
	if err != nil {
		t.Fatalf("schema 3 with --upgrade-schema: %v", err)
	}
	if s := schema(); s["version"] != "3" || s["compatibleSince"] != "3" {
		t.Fatalf("after the upgrade: %v", s)
	}
	// An older replica started by mistake now refuses, and names the fix.
	_, err = startRun(t, v2, rds.Addr, "b")
	if err == nil || !strings.Contains(err.Error(), "redis holds schema 3") || !strings.Contains(err.Error(), "upgrade this replica") {
		t.Fatalf("schema 2 after the upgrade to 3: %v, want a refusal", err)
	}
	c.stop(t)
}
