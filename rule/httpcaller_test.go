package rule

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestNonPublic(t *testing.T) {
	for ip, want := range map[string]string{
		"127.0.0.1": "loopback", "::1": "loopback", "10.1.2.3": "private", "172.16.0.1": "private",
		"192.168.1.1": "private", "fd00::1": "private", "169.254.169.254": "link-local", "fe80::1": "link-local",
		"0.0.0.0": "unspecified", "::": "unspecified", "224.0.0.1": "link-local", "239.1.2.3": "multicast", "100.64.0.1": "shared address space",
		"::ffff:127.0.0.1": "loopback", "255.255.255.255": "broadcast", "198.18.0.1": "benchmarking",
		"8.8.8.8": "", "1.1.1.1": "", "2606:4700:4700::1111": "",
	} {
		if got := nonPublic(netip.MustParseAddr(ip)); got != want {
			t.Errorf("nonPublic(%s) = %q, want %q", ip, got, want)
		}
	}
}

func newTestServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func call(h *HTTPCaller, url string, timeout time.Duration) (APIResponse, error) {
	return h.CallAPI(context.Background(), APIRequest{Name: "t", Method: "GET", URL: url, Timeout: timeout})
}

func TestHTTPCallerHostPolicy(t *testing.T) {
	hits := 0
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits++
		io.WriteString(w, `{"ok":true}`)
	})
	portStr := srv.URL[strings.LastIndex(srv.URL, ":")+1:]

	// Loopback is refused unless allowed, by IP or by name.
	for _, u := range []string{srv.URL, "http://localhost:" + portStr} {
		if _, err := call(&HTTPCaller{}, u, time.Second); !errors.Is(err, ErrHostRefused) {
			t.Errorf("%s without allow-host: %v", u, err)
		}
	}
	if hits != 0 {
		t.Fatalf("a refused host was contacted %d times", hits)
	}
	if r, err := call(&HTTPCaller{AllowHosts: []string{"127.0.0.1"}}, srv.URL+"/x", time.Second); err != nil || r.Status != 200 || string(r.Body) != `{"ok":true}` {
		t.Errorf("allowed IP: %+v, %v", r, err)
	}
	if r, err := call(&HTTPCaller{AllowHosts: []string{"localhost"}}, "http://LOCALHOST:"+portStr, time.Second); err != nil || r.Status != 200 {
		t.Errorf("allowed name: %+v, %v", r, err)
	}
	mapped := &HTTPCaller{AllowHosts: []string{"prices.example.test=" + srv.Listener.Addr().String()}}
	if r, err := call(mapped, "http://prices.example.test/q", time.Second); err != nil || r.Status != 200 {
		t.Errorf("mapped name: %+v, %v", r, err)
	}
	// Private, link-local and unspecified literals are refused before any dial.
	for _, u := range []string{"http://10.1.2.3/", "http://169.254.169.254/latest/meta-data", "http://[fd00::1]/", "http://0.0.0.0:1/", "http://[::ffff:192.168.0.1]/"} {
		if _, err := call(&HTTPCaller{}, u, time.Second); !errors.Is(err, ErrHostRefused) {
			t.Errorf("%s: %v", u, err)
		}
	}
	bad := &HTTPCaller{AllowHosts: []string{"a=not-an-ip"}}
	if _, err := call(bad, srv.URL, time.Second); err == nil || bad.Check() == nil {
		t.Error("a bad allow-host entry was accepted")
	}
	if err := (&HTTPCaller{AllowHosts: []string{"h=10.0.0.1:8080", "[::1]", "x=[::1]:80"}}).Check(); err != nil {
		t.Errorf("good allow-host entries: %v", err)
	}
	for _, u := range []string{"ftp://example.org/", "/relative", "file:///etc/passwd"} {
		if _, err := call(&HTTPCaller{}, u, time.Second); err == nil {
			t.Errorf("%s was called", u)
		}
	}
}

func TestHTTPCallerRedirectsStayInPolicy(t *testing.T) {
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/private":
			http.Redirect(w, r, "http://10.9.8.7/secret", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		default:
			http.Redirect(w, r, "/final", http.StatusFound)
		}
	})
	h := &HTTPCaller{AllowHosts: []string{"127.0.0.1"}}
	if _, err := call(h, srv.URL+"/private", time.Second); !errors.Is(err, ErrHostRefused) {
		t.Errorf("redirect to a private address: %v", err)
	}
	if _, err := call(h, srv.URL+"/loop", time.Second); err == nil || !strings.Contains(err.Error(), "redirects") {
		t.Errorf("redirect loop: %v", err)
	}
}

func TestHTTPCallerLimits(t *testing.T) {
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			io.WriteString(w, strings.Repeat("x", 2048))
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		case "/echo":
			body, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"method":"`+r.Method+`","accept":"`+r.Header.Get("Accept")+`","key":"`+r.Header.Get("X-Key")+`","body":`+string(body)+`}`)
		default:
			http.Error(w, "nope", http.StatusTeapot)
		}
	})
	h := &HTTPCaller{AllowHosts: []string{"127.0.0.1"}, MaxResponseBytes: 1024, MaxTimeout: 200 * time.Millisecond}
	if _, err := call(h, srv.URL+"/big", time.Second); err == nil || !strings.Contains(err.Error(), "exceeds 1024 bytes") {
		t.Errorf("oversize body: %v", err)
	}
	start := time.Now()
	if _, err := call(h, srv.URL+"/slow", time.Hour); err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("slow server: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the timeout was not clamped to MaxTimeout: %v", d)
	}
	if r, err := call(h, srv.URL+"/other", time.Second); err != nil || r.Status != http.StatusTeapot {
		t.Errorf("non-2xx: %+v, %v", r, err)
	}
	r, err := h.CallAPI(context.Background(), APIRequest{Method: "POST", URL: srv.URL + "/echo", Body: []byte(`{"a":1}`),
		Headers: []RenderedHeader{{Name: "X-Key", Value: "k1"}}})
	if err != nil || string(r.Body) != `{"method":"POST","accept":"application/json","key":"k1","body":{"a":1}}` {
		t.Errorf("echo: %s, %v", r.Body, err)
	}
}

// The caller inside the pipeline: a refused host is a failed call, so the
// aliases take their defaults.
func TestHTTPCallerRefusalDefaultsAliases(t *testing.T) {
	d := mustParse(t, []byte(`{"payload": {}, "rules": ["[Ok]"],
		"apiCalls": [{"name": "meta", "method": "GET", "urlTemplate": "http://169.254.169.254/latest", "contentType": "json",
		  "extractMap": {"Ok": {"type": "bool", "expr": "true", "default": false}}}]}`))
	r := eval(t, d, nil, Sources{API: &HTTPCaller{}})
	if r.Valid || r.Extracted["Ok"] != false || !strings.Contains(r.Calls[0].Error, "host refused") {
		t.Errorf("%+v", r.Calls)
	}
}
