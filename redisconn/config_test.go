package redisconn

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/testenv"
)

// Check refuses a Config that cannot work, without connecting, and its
// messages never hold the address's password.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "no Redis"},
		{Config{Addr: "ftp://h:1"}, `scheme "ftp" is not a Redis scheme`},
		{Config{Addr: "redis://:s3cret@h:1/x"}, "not a Redis URL"},
		{Config{Cluster: []string{"a"}}, `cluster seeds: "a" is not host:port`},
		{Config{Sentinels: []string{"h:26379"}}, "need the name of the master"},
		{Config{Addr: "redis://:s3cret@h:1/0", Password: "other", PasswordOrigin: "$PW"}, "$PW gives one: give it once"},
	} {
		err := tc.cfg.Check()
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%+v: %v, want %q (without the password)", tc.cfg, err, tc.want)
		}
	}
	for _, ok := range []Config{
		{Addr: "127.0.0.1:6379"}, {Addr: "rediss://h:6380/1"}, {Addr: "/run/redis.sock"}, {Addr: "redis://:pw@h:1/0"},
		{Cluster: []string{"a:1", ":2"}}, {Sentinels: []string{"s:26379"}, Master: "m"}, {Addr: "h:1", Password: "pw"},
	} {
		if err := ok.Check(); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
}

// Target names where a Config's Redis is, without a password, and what
// chose it.
func TestTarget(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Addr: "redis://:pw@10.0.0.5:7000/2", Origin: "--redis"}, "Redis at 10.0.0.5:7000 (--redis)"},
		{Config{Addr: ":6380"}, "Redis at 127.0.0.1:6380"},
		{Config{Cluster: []string{"a:1", "b:2"}, Origin: "--redis-cluster"}, "Redis at cluster a:1,b:2 (--redis-cluster)"},
		{Config{Sentinels: []string{"s:1"}, Master: "m"}, "Redis at master m via sentinels s:1"},
	} {
		if got := tc.cfg.Target().String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.cfg, got, tc.want)
		}
	}
}

// ParseSeeds reads host:port lists; ":port" is this host.
func TestParseSeeds(t *testing.T) {
	got, err := ParseSeeds(" a:1, :2 ,")
	if err != nil || strings.Join(got, ",") != "a:1,127.0.0.1:2" {
		t.Errorf("%v, %v", got, err)
	}
	for _, bad := range []string{"", ",", "a", "a:0", "a:x"} {
		if _, err := ParseSeeds(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// ReadPasswordFile drops the trailing newline, reads an empty file as no
// password, and refuses a missing or a non-regular file, naming it.
func TestReadPasswordFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if pw, err := ReadPasswordFile(write("pw", "s3cret\r\n")); err != nil || pw != "s3cret" {
		t.Errorf("%q, %v", pw, err)
	}
	for _, text := range []string{"", "\n", "\r\n"} {
		if pw, err := ReadPasswordFile(write("empty", text)); err != nil || pw != "" {
			t.Errorf("file holding %q: %q, %v; want no password", text, pw, err)
		}
	}
	for _, tc := range []struct{ file, want string }{
		{filepath.Join(dir, "missing"), "no such file"},
		{dir, "want a regular file"},
		{write("big", strings.Repeat("x", MaxPasswordFile+1)), "want a regular file"},
	} {
		if _, err := ReadPasswordFile(tc.file); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), tc.file+": ") {
			t.Errorf("%s: %v, want %q", tc.file, err, tc.want)
		}
	}
}

// Open answers with a client of a Redis that answers, and names the
// Redis of one that does not.
func TestOpen(t *testing.T) {
	ctx := context.Background()
	srv := testenv.StartRedis(t)
	rdb, err := Open(ctx, Config{Addr: srv.Addr})
	if err != nil {
		t.Fatal(err)
	}
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Error(err)
	}
	rdb.Close()
	_, err = Open(ctx, Config{Addr: "127.0.0.1:1", Origin: "--redis / XGR_REDIS"})
	var re *Error
	if !errors.As(err, &re) || err.Error() != "Redis at 127.0.0.1:1 (--redis / XGR_REDIS): connection refused" {
		t.Errorf("unreachable: %v", err)
	}
	if _, err := Open(ctx, Config{}); err == nil || errors.As(err, &re) {
		t.Errorf("no Redis: %v, want Check's error", err)
	}
}
