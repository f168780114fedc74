package httpserve

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestHostListAllows(t *testing.T) {
	l := NewHostList("xgr.example.org", "Ops.Example.")
	for host, want := range map[string]bool{
		"":                      true,
		"127.0.0.1:9464":        true,
		"10.1.2.3":              true,
		"[::1]:9464":            true,
		"[::1]":                 true,
		"localhost:9464":        true,
		"LOCALHOST.":            true,
		"xgr.example.org:443":   true,
		"ops.example":           true,
		"attacker.example:9464": false,
		"attacker.example":      false,
		"127.0.0.1.nip.io:9464": false,
		"localhost.attacker.io": false,
		"xgr.example.org.evil":  false,
	} {
		if got := l.Allows(host); got != want {
			t.Errorf("Allows(%q) = %v, want %v", host, got, want)
		}
	}
	if !NewHostList("*").Allows("anything.example:1") {
		t.Error(`"*" does not allow any name`)
	}
	for _, n := range []string{"xgr.example.org", "*", "10.0.0.1"} {
		if err := CheckHostName(n); err != nil {
			t.Errorf("CheckHostName(%q): %v", n, err)
		}
	}
	for _, n := range []string{"", "http://xgr.example.org", "xgr.example.org:80", "a/b"} {
		if err := CheckHostName(n); err == nil {
			t.Errorf("CheckHostName(%q) accepted", n)
		}
	}
}

// A request addressed to a name that is not allowed (a DNS-rebound page)
// is refused with 403 before the handler runs; the listen address's own
// name is allowed.
func TestForeignHostRefusedBeforeTheHandler(t *testing.T) {
	var served atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { served.Add(1) })
	s, err := Listen("localhost:0", h, Config{Hosts: []string{"xgr.example.org"}, HostsHint: "add it with --vhosts"})
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	defer s.Close()
	_, port, _ := strings.Cut(s.Addr(), ":")
	do := func(host string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, "http://"+s.Addr()+"/ui/api/kill", strings.NewReader("{}"))
		req.Host = host
		req.Header.Set("Origin", "http://"+host)
		resp, err := (&http.Client{Timeout: 2 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := do("attacker.example:" + port)
	if code != http.StatusForbidden || !strings.Contains(body, `Host "attacker.example:`+port+`" is not allowed`) || !strings.Contains(body, "--vhosts") {
		t.Errorf("foreign Host: %d %s", code, body)
	}
	if served.Load() != 0 {
		t.Fatal("the handler ran for a foreign Host")
	}
	for _, host := range []string{"localhost:" + port, "127.0.0.1:" + port, "xgr.example.org", fmt.Sprintf("LOCALHOST:%s", port)} {
		if code, body := do(host); code != 200 {
			t.Errorf("Host %s: %d %s", host, code, body)
		}
	}
}
