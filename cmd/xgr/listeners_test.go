package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/internal/httpserve"
	"github.com/xgr-sidecar/xgr/testenv"
)

// startDev runs xgr dev with the console on listen and the gateway on
// rpcListen, and more args; it stops when the test ends.
func startDev(t *testing.T, listen, rpcListen string, args ...string) {
	t.Helper()
	outcomes := writeFile(t, "outcomes.json", `{"default":{"result":"valid"}}`)
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- runApp(ctx, newApp(&out, io.Discard), append([]string{"xgr", "--log-level", "error", "dev", "--ostc-dir", "../../examples/ostc",
			"--orders", "0", "--outcomes", outcomes, "--listen", listen, "--rpc-listen", rpcListen}, args...))
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("xgr dev: %v", err)
		}
	})
	waitFor(t, 60*time.Second, "the console", &out, func() bool {
		resp, err := http.Get("http://" + listen + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
}

// hostRequest sends a request addressed (Host, and Origin as a page of
// that host would send) to host; it returns the status and body.
func hostRequest(t *testing.T, method, addr, path, host string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, "http://"+addr+path, strings.NewReader(`{"owner":"`+devOwner+`","rootPid":1}`))
	req.Host = host
	req.Header.Set("Origin", "http://"+host)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-XGR-Console", "1")
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A DNS-rebound page (Host and Origin both attacker.example:PORT) is
// refused with 403 on the console and on the gateway, reads and actions
// alike; IP addresses, localhost and the names of --vhosts are served.
func TestListenersRefuseForeignHosts(t *testing.T) {
	listen := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	rpcListen := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	startDev(t, listen, rpcListen, "--ui-actions", "--vhosts", "xgr.example.org,Ops.Example.Org")
	_, port, _ := net.SplitHostPort(listen)
	_, rpcPort, _ := net.SplitHostPort(rpcListen)
	for _, tc := range []struct{ method, addr, path, host string }{
		{http.MethodPost, listen, "/ui/api/kill", "attacker.example:" + port},
		{http.MethodGet, listen, "/ui/api/sessions", "attacker.example:" + port},
		{http.MethodGet, listen, "/ui/api/events", "attacker.example:" + port},
		{http.MethodGet, listen, "/metrics", "attacker.example:" + port},
		{http.MethodPost, rpcListen, "/", "attacker.example:" + rpcPort},
	} {
		code, body := hostRequest(t, tc.method, tc.addr, tc.path, tc.host)
		if code != http.StatusForbidden || !strings.Contains(body, "is not allowed on this listener") || !strings.Contains(body, "--vhosts") {
			t.Errorf("%s %s%s with Host %s: %d %s", tc.method, tc.addr, tc.path, tc.host, code, body)
		}
	}
	for _, host := range []string{listen, "localhost:" + port, "xgr.example.org:" + port, "ops.example.org"} {
		if code, body := hostRequest(t, http.MethodGet, listen, "/ui/api/sessions", host); code != 200 {
			t.Errorf("GET /ui/api/sessions with Host %s: %d %s", host, code, body)
		}
	}
	if code, body := hostRequest(t, http.MethodPost, rpcListen, "/", "xgr.example.org"); code == http.StatusForbidden {
		t.Errorf("gateway with Host xgr.example.org (listed): %d %s", code, body)
	}
}

// The console listener keeps at most its cap of connections: idle
// keep-alive clients beyond it are shed, and /healthz is answered.
func TestConsoleListenerCapsConnections(t *testing.T) {
	listen := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	startDev(t, listen, "")
	const extra = 20
	var conns []net.Conn
	for i := 0; i < httpserve.DefaultMaxConns+extra; i++ {
		c, err := net.Dial("tcp", listen)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "GET /metrics HTTP/1.1\r\nHost: %s\r\n\r\n", listen)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		conns = append(conns, c)
	}
	if resp, err := (&http.Client{Timeout: 5 * time.Second}).Get("http://" + listen + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/healthz beside %d idle connections: %v %v", len(conns), resp, err)
	}
	closed := 0
	for _, c := range conns {
		c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); err != nil && !isTimeout(err) {
			closed++
		}
	}
	if closed < extra {
		t.Errorf("%d of %d idle connections were closed; the cap is %d", closed, len(conns), httpserve.DefaultMaxConns)
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// The console is not served on an address other than loopback unless
// --ui-public says an authenticating proxy is in front.
func TestConsolePublicListenNeedsOptIn(t *testing.T) {
	for _, args := range [][]string{
		{"dev", "--ostc-dir", "../../examples/ostc", "--listen", "0.0.0.0:0"},
		{"run", "--outcomes", "x.json", "--listen", ":0"},
		{"run", "--outcomes", "x.json", "--listen", "192.0.2.1:9464", "--ui-public=false"},
	} {
		out, code := run(t, args...)
		if code != 2 || !strings.Contains(out, "is not a loopback address") || !strings.Contains(out, "--ui-public") || !strings.Contains(out, "--no-ui") {
			t.Errorf("xgr %s: exit %d, want 2 naming --ui-public:\n%s", strings.Join(args, " "), code, out)
		}
	}
	// With --ui-public, or without the console, the flags pass (the replica
	// then stops at its missing outcomes file).
	for _, args := range [][]string{
		{"run", "--outcomes", "/nonexistent/x.json", "--listen", "0.0.0.0:0", "--ui-public", "--redis", "redis://127.0.0.1:1/0"},
		{"run", "--outcomes", "/nonexistent/x.json", "--listen", "0.0.0.0:0", "--no-ui", "--redis", "redis://127.0.0.1:1/0"},
	} {
		if out, _ := run(t, args...); strings.Contains(out, "not a loopback address") {
			t.Errorf("xgr %s refused the listen address:\n%s", strings.Join(args, " "), out)
		}
	}
	if out, code := run(t, "run", "--outcomes", "x.json", "--vhosts", "http://xgr.example.org"); code != 2 || !strings.Contains(out, `--vhosts "http://xgr.example.org": want a host name`) {
		t.Errorf("a --vhosts URL: exit %d %s", code, out)
	}
}

// --metrics-listen serves /metrics and the health checks to any Host, and
// never the console.
func TestMetricsListenServesNoConsole(t *testing.T) {
	srv := testenv.StartRedis(t)
	metrics := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	outcomes := writeFile(t, "o.json", `{"default":{"result":"valid"}}`)
	stop, listen := startReplicaAt(t, "--redis", "redis://"+srv.Addr+"/0", "--outcomes", outcomes, "--metrics-listen", metrics)
	defer stop()
	for _, path := range []string{"/metrics", "/healthz", "/readyz"} {
		if code, body := hostRequest(t, http.MethodGet, metrics, path, "prometheus.scraper.example"); code != 200 {
			t.Errorf("GET %s on --metrics-listen: %d %s", path, code, body)
		}
	}
	if code, _ := hostRequest(t, http.MethodGet, metrics, "/ui/api/sessions", metrics); code != http.StatusNotFound {
		t.Errorf("the console on --metrics-listen: %d, want 404", code)
	}
	if code, _ := hostRequest(t, http.MethodGet, listen, "/ui/api/sessions", listen); code != 200 {
		t.Errorf("the console on --listen: %d", code)
	}
}
