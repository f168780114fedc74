package main

import (
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/testenv"
)

// simulate, scenario run and bench take the password of their explicit
// --redis from --redis-password-file: a server that requires it is reached
// with it, refused without it, and a password in the URL as well is a
// usage error that does not echo it.
func TestExplicitRedisPasswordFile(t *testing.T) {
	srv := testenv.StartRedis(t)
	const pw = "s3cret-Pass"
	if err := srv.Client().ConfigSet(t.Context(), "requirepass", pw).Err(); err != nil {
		t.Fatal(err)
	}
	file := writeFile(t, "pw", pw+"\n")
	flow := "../../examples/ostc/minimal_join.json"
	outcomes := "../../examples/outcomes/all_valid.json"
	url := "redis://" + srv.Addr + "/0"

	if out, code := run(t, "simulate", flow, "--outcomes", outcomes, "--redis", url, "--redis-password-file", file); code != 0 {
		t.Fatalf("simulate with the password file: exit %d\n%s", code, out)
	}
	if out, code := run(t, "simulate", flow, "--outcomes", outcomes, "--redis", url); code == 0 {
		t.Fatalf("simulate without the password reached a server that requires one:\n%s", out)
	}
	out, code := run(t, "simulate", flow, "--outcomes", outcomes, "--redis", "redis://:other-secret@"+srv.Addr+"/0", "--redis-password-file", file)
	if code != 2 || strings.Contains(out, "other-secret") || !strings.Contains(out, "give it once") {
		t.Fatalf("password in the URL and the file: exit %d\n%s", code, out)
	}
	if out, code := run(t, "bench", "--sessions", "2", "--redis", url, "--redis-password-file", file, "--force", "../../examples/bench/chain10.json"); code != 0 {
		t.Fatalf("bench with the password file: exit %d\n%s", code, out)
	}
}
