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
		// IPv6 forms embedding IPv4 are refused whole; IPv4-mapped is judged
		// as the IPv4 address it is dialed as.
		"::127.0.0.1": "IPv4-compatible IPv6", "::8.8.8.8": "IPv4-compatible IPv6", "::ffff:0:7f00:1": "IPv4-translated IPv6",
		"2002:7f00:1::1": "6to4", "2002:808:808::1": "6to4", "2001:0:4136:e378:8000:63bf:3fff:fdd2": "Teredo",
		"64:ff9b::7f00:1": "NAT64", "64:ff9b::808:808": "NAT64", "64:ff9b:1::1": "NAT64",
		"::ffff:8.8.8.8": "", "::ffff:10.0.0.1": "private", "192.88.99.1": "6to4 relay anycast",
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
	for _, u := range []string{srv.URL, "http://localhost:" + portStr, "http://[::ffff:127.0.0.1]:" + portStr} {
		if _, err := call(&HTTPCaller{}, u, time.Second); !errors.Is(err, ErrHostRefused) {
			t.Errorf("%s without allow-host: %v", u, err)
		}
	}
	if hits != 0 {
		t.Fatalf("a refused host was contacted %d times", hits)
	}
	if r, err := call(&HTTPCaller{AllowHosts: []string{"127.0.0.1:" + portStr}}, srv.URL+"/x", time.Second); err != nil || r.Status != 200 || string(r.Body) != `{"ok":true}` {
		t.Errorf("allowed IP: %+v, %v", r, err)
	}
	if r, err := call(&HTTPCaller{AllowHosts: []string{"LocalHost:" + portStr}}, "http://LOCALHOST:"+portStr, time.Second); err != nil || r.Status != 200 {
		t.Errorf("allowed name: %+v, %v", r, err)
	}
	mapped := &HTTPCaller{AllowHosts: []string{"prices.example.test=" + srv.Listener.Addr().String()}}
	if r, err := call(mapped, "http://prices.example.test/q", time.Second); err != nil || r.Status != 200 {
		t.Errorf("mapped name: %+v, %v", r, err)
	}
	// Private, link-local, unspecified and IPv4-embedding literals are
	// refused before any dial.
	for _, u := range []string{"http://10.1.2.3/", "http://169.254.169.254/latest/meta-data", "http://[fd00::1]/", "http://0.0.0.0:1/",
		"http://[::ffff:192.168.0.1]/", "http://[::127.0.0.1]:" + portStr + "/", "http://[2002:7f00:1::1]/", "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
		"http://[64:ff9b::7f00:1]/"} {
		if _, err := call(&HTTPCaller{}, u, time.Second); !errors.Is(err, ErrHostRefused) {
			t.Errorf("%s: %v", u, err)
		}
	}
	for _, bad := range []string{"a=not-an-ip", "a=10.0.0.1", "a=10.0.0.1:0", "=1.2.3.4:80", "a:b=1.2.3.4:80", "127.0.0.1", "localhost", "[::1]", "h:99999", ":80"} {
		h := &HTTPCaller{AllowHosts: []string{bad}}
		if _, err := call(h, srv.URL, time.Second); err == nil || h.Check() == nil || CheckAllowHost(bad) == nil {
			t.Errorf("the allow-host entry %q was accepted", bad)
		}
	}
	if err := CheckAllowHost("127.0.0.1"); err == nil || !strings.Contains(err.Error(), "HOST:PORT") || !strings.Contains(err.Error(), "HOST=IP:PORT") {
		t.Errorf("a bare host: the error does not say the forms: %v", err)
	}
	if err := (&HTTPCaller{AllowHosts: []string{"h=10.0.0.1:8080", "[::1]:443", "x=[::1]:80", "prices.internal:8080"}}).Check(); err != nil {
		t.Errorf("good allow-host entries: %v", err)
	}
	for _, u := range []string{"ftp://example.org/", "/relative", "file:///etc/passwd"} {
		if _, err := call(&HTTPCaller{}, u, time.Second); err == nil {
			t.Errorf("%s was called", u)
		}
	}
}

// An allowed host is allowed on its one port: allowing a local service
// does not open the host's other ports (the console, the metrics).
func TestHTTPCallerAllowHostIsOnePort(t *testing.T) {
	var hitsA, hitsB int
	a := newTestServer(t, func(w http.ResponseWriter, r *http.Request) { hitsA++; io.WriteString(w, `{}`) })
	b := newTestServer(t, func(w http.ResponseWriter, r *http.Request) { hitsB++; io.WriteString(w, `{}`) })
	portA := a.URL[strings.LastIndex(a.URL, ":")+1:]
	portB := b.URL[strings.LastIndex(b.URL, ":")+1:]
	for _, allow := range []string{"127.0.0.1:" + portA, "localhost:" + portA} {
		h := &HTTPCaller{AllowHosts: []string{allow}}
		host := strings.TrimSuffix(allow, ":"+portA)
		if r, err := call(h, "http://"+host+":"+portA+"/", time.Second); err != nil || r.Status != 200 {
			t.Errorf("allow %s: the allowed port: %+v, %v", allow, r, err)
		}
		if _, err := call(h, "http://"+host+":"+portB+"/", time.Second); !errors.Is(err, ErrHostRefused) || !strings.Contains(err.Error(), portB) {
			t.Errorf("allow %s: another port of the host: %v", allow, err)
		}
	}
	if hitsA != 2 || hitsB != 0 {
		t.Errorf("hits: %d on the allowed port (want 2), %d on the other (want 0)", hitsA, hitsB)
	}
}

// The policy judges the addresses a name resolves to, once, and dials only
// those; the dialer's Control judges the address again at connect, so a
// second answer of the resolver (DNS rebinding) is never used.
func TestHTTPCallerGuardAtConnect(t *testing.T) {
	hits := 0
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) { hits++ })
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	h := &HTTPCaller{}
	if err := h.Check(); err != nil {
		t.Fatal(err)
	}
	lookups := 0
	h.policy.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		lookups++
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	if _, err := call(h, "http://rebind.example.test:"+port+"/", time.Second); !errors.Is(err, ErrHostRefused) || !strings.Contains(err.Error(), "rebind.example.test resolves to 127.0.0.1 (loopback)") {
		t.Errorf("a name resolving to loopback: %v", err)
	}
	if lookups != 1 {
		t.Errorf("%d lookups for one dial, want 1", lookups)
	}
	// The connect-time check alone: a dialer for a public name refuses to
	// connect to a loopback address, whatever resolved it.
	if c, err := h.policy.guarded("public.example.test", false).DialContext(context.Background(), "tcp", srv.Listener.Addr().String()); !errors.Is(err, ErrHostRefused) {
		if c != nil {
			c.Close()
		}
		t.Errorf("a connect to loopback for a public name: %v", err)
	}
	if c, err := h.policy.guarded("public.example.test", true).DialContext(context.Background(), "tcp", srv.Listener.Addr().String()); err != nil {
		t.Errorf("a connect for an allowed host: %v", err)
	} else {
		c.Close()
	}
	if hits != 0 {
		t.Errorf("a refused address was contacted %d times", hits)
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
	h := &HTTPCaller{AllowHosts: []string{strings.TrimPrefix(srv.URL, "http://")}}
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
	h := &HTTPCaller{AllowHosts: []string{strings.TrimPrefix(srv.URL, "http://")}, MaxResponseBytes: 1024, MaxTimeout: 200 * time.Millisecond}
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

// A redirect to another host or port carries none of the rule's headers
// (an API key must not follow it); one on the same host keeps them.
func TestHTTPCallerRedirectDropsHeadersAcrossHosts(t *testing.T) {
	var got []string
	other := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		got = append(got, "other:"+r.Header.Get("X-Api-Key"))
		io.WriteString(w, `{}`)
	})
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/x", http.StatusFound)
		case "/here":
			http.Redirect(w, r, "/final", http.StatusFound)
		default:
			got = append(got, "same:"+r.Header.Get("X-Api-Key"))
			io.WriteString(w, `{}`)
		}
	})
	h := &HTTPCaller{AllowHosts: []string{strings.TrimPrefix(srv.URL, "http://"), strings.TrimPrefix(other.URL, "http://")}}
	for _, path := range []string{"/away", "/here"} {
		if _, err := h.CallAPI(context.Background(), APIRequest{Name: "t", Method: "GET", URL: srv.URL + path, Timeout: time.Second,
			Headers: []RenderedHeader{{Name: "X-Api-Key", Value: "k3y"}}}); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(got, ",") != "other:,same:k3y" {
		t.Fatalf("headers after redirects: %v", got)
	}
}
