package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/testenv"
)

// The Redis password comes from --redis-password-file or
// $XGR_REDIS_PASSWORD (out of ps and of the URL), once; a password in a
// --redis URL never shows in an error.
func TestRedisPasswordSources(t *testing.T) {
	srv := testenv.StartRedis(t)
	ctx := context.Background()
	const pw = "hunter22-s3cret"
	if err := srv.Client().ConfigSet(ctx, "requirepass", pw).Err(); err != nil {
		t.Fatal(err)
	}
	plain := "redis://" + srv.Addr + "/0"
	list := func(args ...string) (string, int) {
		return run(t, append([]string{"session", "list", "--owner", testOwner}, args...)...)
	}
	if out, code := list("--redis", plain); code != 1 || !strings.Contains(out, "NOAUTH") {
		t.Errorf("without the password: %d %s", code, out)
	}
	file := writeFile(t, "redis.pw", pw+"\n")
	if out, code := list("--redis", plain, "--redis-password-file", file); code != 0 {
		t.Errorf("--redis-password-file: %d %s", code, out)
	}
	t.Setenv(redisPasswordEnv, pw)
	if out, code := list("--redis", plain); code != 0 {
		t.Errorf("$%s: %d %s", redisPasswordEnv, code, out)
	}
	if out, code := list("--redis", plain, "--redis-password-file", file); code != 2 || !strings.Contains(out, "give it once") {
		t.Errorf("file and variable: %d %s", code, out)
	}
	t.Setenv(redisPasswordEnv, "")
	if out, code := list("--redis", "redis://:"+pw+"@"+srv.Addr+"/0", "--redis-password-file", file); code != 2 || !strings.Contains(out, "give it once") || strings.Contains(out, pw) {
		t.Errorf("URL and file: %d %s", code, out)
	}
	// An empty file is no password (the systemd unit's default
	// credential): this Redis wants one, so it answers NOAUTH.
	if out, code := list("--redis", plain, "--redis-password-file", writeFile(t, "empty.pw", "\n")); code != 1 || !strings.Contains(out, "NOAUTH") {
		t.Errorf("an empty file: %d %s", code, out)
	}
	// Malformed URLs holding the password: the messages never echo it.
	for _, bad := range []string{"redis://:" + pw + "@" + srv.Addr + "/notadb", "redis://:" + pw + "@127.0.0.1:99999/0", "redis://:" + pw + "@[::1/0", ":" + pw + "@127.0.0.1:6379"} {
		out, code := list("--redis", bad)
		if code == 0 || strings.Contains(out, pw) || strings.Contains(out, "s3cret") {
			t.Errorf("--redis %s: %d %s", bad, code, out)
		}
	}
	if err := srv.Client().Do(ctx, "AUTH", pw).Err(); err != nil {
		t.Fatal(err)
	}
}

// A node URL's API key (path or query) and password show neither in
// errors nor in logs.
func TestRPCURLRedacted(t *testing.T) {
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if bytes.Contains(body, []byte("eth_chainId")) {
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":"0x7a69"}`)
			return
		}
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`)
	}))
	defer node.Close()
	doc := writeFile(t, "doc.json", `{"payload": {}, "rules": ["true"]}`)
	const key = "APIKEY0123456789abcdef"
	for _, url := range []string{
		node.URL + "/v3/" + key,
		node.URL + "/?apikey=" + key,
		strings.Replace(node.URL, "http://", "http://user:"+key+"@", 1),
	} {
		var out, errOut bytes.Buffer
		err := runApp(context.Background(), newApp(&out, &errOut), []string{"xgr", "--log-level", "debug", "rule", "eval", doc, "--rpc", url})
		if err != nil || strings.Contains(errOut.String(), key) || !strings.Contains(errOut.String(), "connected") {
			t.Errorf("--rpc %s: %v; log:\n%s", url, err, errOut.String())
		}
	}
	// A node that does not answer: the error names the host, not the key.
	out, code := run(t, "rule", "eval", doc, "--rpc", "http://127.0.0.1:1/v3/"+key)
	if code != 1 || strings.Contains(out, key) || !strings.Contains(out, "127.0.0.1:1") {
		t.Errorf("an unreachable node: %d %s", code, out)
	}
	out, code = run(t, "rule", "eval", doc, "--rpc", "ftp://127.0.0.1/v3/"+key)
	if code != 2 || strings.Contains(out, key) {
		t.Errorf("a malformed node URL: %d %s", code, out)
	}
}
