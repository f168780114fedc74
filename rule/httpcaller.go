package rule

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// HTTPCaller is the net/http APICaller. It is safe for concurrent use; set
// its fields before the first call.
//
// Hosts whose addresses are loopback, private, link-local, multicast,
// unspecified or otherwise reserved (IPv6 forms that embed an IPv4 address
// included) are refused unless listed in AllowHosts with the port called,
// so a rule document cannot make the sidecar reach into the operator's
// network. The check runs on the resolved addresses at dial time (every
// redirect included), not on the URL text.
type HTTPCaller struct {
	// AllowHosts lists hosts that may resolve to non-public addresses,
	// each with the one port it may be called on: "host:port" (a name or
	// an IP, IPv6 in brackets, matched case-insensitively) or
	// "host=ip:port" to send that host's connections to ip:port (like curl
	// --resolve, TLS still verifies the original name). A bare host is
	// refused (CheckAllowHost).
	AllowHosts []string
	// RootCAs verifies TLS servers; nil uses the system pool.
	RootCAs *x509.CertPool
	// DefaultTimeout applies when a call has no timeoutMs (default 5s).
	DefaultTimeout time.Duration
	// MaxTimeout caps timeoutMs (default 30s).
	MaxTimeout time.Duration
	// MaxResponseBytes caps the body read (default MaxResponseBytes).
	MaxResponseBytes int64
	// MaxRedirects caps followed redirects (default 3; negative: none).
	MaxRedirects int
	// UserAgent is sent unless the call sets one (default "xgr-rule").
	UserAgent string

	once   sync.Once
	client *http.Client
	policy *hostPolicy
	err    error
}

func (h *HTTPCaller) init() {
	h.policy, h.err = newHostPolicy(h.AllowHosts)
	if h.err != nil {
		return
	}
	redirects := h.MaxRedirects
	if redirects == 0 {
		redirects = 3
	}
	tr := &http.Transport{
		Proxy:                 nil, // never route through environment proxies
		DialContext:           h.policy.dial,
		TLSClientConfig:       &tls.Config{RootCAs: h.RootCAs, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          32,
		IdleConnTimeout:       60 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	h.client = &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > redirects || redirects < 0 {
				return fmt.Errorf("stopped after %d redirects", len(via)-1)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("redirect to %s URL refused", req.URL.Scheme)
			}
			if req.URL.Host != via[0].URL.Host {
				// Another host (or port) gets none of the rule's headers:
				// an API key must not follow a redirect to a stranger
				// (Go's client drops only Authorization and Cookie).
				kept := http.Header{}
				for _, k := range []string{"User-Agent", "Accept"} {
					if v := req.Header.Get(k); v != "" {
						kept.Set(k, v)
					}
				}
				req.Header = kept
			}
			return nil
		},
	}
}

// Check reports a malformed AllowHosts entry (which would otherwise fail
// every call).
func (h *HTTPCaller) Check() error {
	h.once.Do(h.init)
	return h.err
}

// CallAPI performs the request. Non-2xx statuses come back as responses;
// errors are transport failures, refused hosts, timeouts and oversize bodies.
func (h *HTTPCaller) CallAPI(ctx context.Context, req APIRequest) (APIResponse, error) {
	h.once.Do(h.init)
	if h.err != nil {
		return APIResponse{}, h.err
	}
	u, err := url.Parse(req.URL)
	if err != nil {
		return APIResponse{}, fmt.Errorf("URL %q: %v", req.URL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return APIResponse{}, fmt.Errorf("URL %q: only absolute http and https URLs are called", req.URL)
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = orDefault(h.DefaultTimeout, 5*time.Second)
	}
	if max := orDefault(h.MaxTimeout, 30*time.Second); timeout > max {
		timeout = max
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, u.String(), body)
	if err != nil {
		return APIResponse{}, err
	}
	for _, hd := range req.Headers {
		hr.Header.Set(hd.Name, hd.Value)
	}
	if hr.Header.Get("Accept") == "" {
		hr.Header.Set("Accept", "application/json")
	}
	if req.Body != nil && hr.Header.Get("Content-Type") == "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	if hr.Header.Get("User-Agent") == "" {
		ua := h.UserAgent
		if ua == "" {
			ua = "xgr-rule"
		}
		hr.Header.Set("User-Agent", ua)
	}
	resp, err := h.client.Do(hr)
	if err != nil {
		return APIResponse{}, err
	}
	defer resp.Body.Close()
	limit := h.MaxResponseBytes
	if limit <= 0 {
		limit = MaxResponseBytes
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return APIResponse{Status: resp.StatusCode}, fmt.Errorf("reading the response: %v", err)
	}
	if int64(len(data)) > limit {
		return APIResponse{Status: resp.StatusCode}, fmt.Errorf("response exceeds %d bytes", limit)
	}
	return APIResponse{Status: resp.StatusCode, Body: data}, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// hostPolicy decides which addresses may be dialed.
type hostPolicy struct {
	// allowed holds "host:port" (IPv6 in brackets) of the AllowHosts
	// HOST:PORT entries: host names and IP literals, lower case.
	allowed map[string]bool
	// mapped sends a host's connections to an IP:port (HOST=IP:PORT).
	mapped map[string]netip.AddrPort
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	dialer net.Dialer
}

// allowHostForms says what an AllowHosts entry may be, for errors.
const allowHostForms = "want HOST:PORT (a name or IP and the one port API calls may reach, e.g. prices.internal:8080 or [fd00::5]:443) " +
	"or HOST=IP:PORT (send HOST's connections to that address, e.g. api.example.net=127.0.0.1:8080)"

// CheckAllowHost reports whether entry is a valid AllowHosts entry. A bare
// host (no port) is refused: it would open every port of the host, the
// console's and the metrics' included.
func CheckAllowHost(entry string) error {
	_, _, _, err := parseAllowHost(entry)
	return err
}

// parseAllowHost reads HOST:PORT (key is the host:port allowed) or
// HOST=IP:PORT (host is mapped to to).
func parseAllowHost(entry string) (key, host string, to netip.AddrPort, err error) {
	e := strings.TrimSpace(entry)
	if h, addr, ok := strings.Cut(e, "="); ok {
		host = strings.ToLower(strings.TrimSpace(h))
		if host == "" || strings.ContainsAny(host, "[]:/@ ") {
			return "", "", to, fmt.Errorf("allow-host %q: %q is not a host name: %s", entry, h, allowHostForms)
		}
		to, err = netip.ParseAddrPort(strings.TrimSpace(addr))
		if err != nil || to.Port() == 0 {
			return "", "", to, fmt.Errorf("allow-host %q: %q is not IP:PORT (IPv6 as [addr]:port): %s", entry, addr, allowHostForms)
		}
		return "", host, netip.AddrPortFrom(to.Addr().Unmap(), to.Port()), nil
	}
	h, port, err := net.SplitHostPort(e)
	if err != nil {
		return "", "", to, fmt.Errorf("allow-host %q: no port: %s; a bare host would open every port of it", entry, allowHostForms)
	}
	n, perr := strconv.Atoi(port)
	if perr != nil || n < 1 || n > 65535 {
		return "", "", to, fmt.Errorf("allow-host %q: port %q is not a port number (1-65535)", entry, port)
	}
	h = strings.ToLower(h)
	if h == "" || strings.ContainsAny(h, "/@ ") {
		return "", "", to, fmt.Errorf("allow-host %q: empty or malformed host: %s", entry, allowHostForms)
	}
	return hostKey(h, port), "", to, nil
}

// hostKey is the policy's key of a host (name or IP literal) and port; IP
// literals are normalized (IPv4-mapped IPv6 as IPv4).
func hostKey(host, port string) string {
	if ip, err := netip.ParseAddr(host); err == nil {
		host = ip.Unmap().String()
	}
	return net.JoinHostPort(strings.ToLower(host), port)
}

func newHostPolicy(entries []string) (*hostPolicy, error) {
	p := &hostPolicy{allowed: map[string]bool{}, mapped: map[string]netip.AddrPort{},
		lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		},
		dialer: net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}}
	for _, e := range entries {
		key, host, to, err := parseAllowHost(e)
		if err != nil {
			return nil, err
		}
		if host != "" {
			p.mapped[host] = to
		} else {
			p.allowed[key] = true
		}
	}
	return p, nil
}

// ErrHostRefused is returned for hosts outside the policy.
var ErrHostRefused = errors.New("host refused")

// dial connects to address (host:port as the URL names it). A mapped host
// goes where the operator sent it. Otherwise the host is resolved once,
// every address is judged, and only those exact addresses are dialed; the
// dialer's Control judges each address again at connect, so no name
// resolution after the check (DNS rebinding) can reach a refused address.
func (p *hostPolicy) dial(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	host = strings.ToLower(host)
	if to, ok := p.mapped[host]; ok {
		return p.dialer.DialContext(ctx, network, to.String())
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		addrs, err := p.lookup(ctx, host)
		if err != nil {
			return nil, err
		}
		ips = addrs
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("%s: no addresses", host)
	}
	hostAllowed := p.allowed[hostKey(host, port)]
	for _, ip := range ips {
		if err := p.judge(host, ip, port, hostAllowed); err != nil {
			return nil, err
		}
	}
	d := p.guarded(host, hostAllowed)
	var last error
	for _, ip := range ips {
		c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, last
}

// judge refuses ip (what host resolved to) unless it is public, or the
// host or the ip itself is allowed on port.
func (p *hostPolicy) judge(host string, ip netip.Addr, port string, hostAllowed bool) error {
	reason := nonPublic(ip)
	if reason == "" || hostAllowed || p.allowed[hostKey(ip.String(), port)] {
		return nil
	}
	if host == ip.Unmap().String() || host == ip.String() {
		return fmt.Errorf("%w: %s port %s (%s); allow it with --allow-host %s to call it", ErrHostRefused, ip, port, reason, hostKey(ip.String(), port))
	}
	return fmt.Errorf("%w: %s resolves to %s (%s); allow it with --allow-host %s to call it", ErrHostRefused, host, ip, reason, hostKey(host, port))
}

// guarded is the dialer for host: its Control judges the address the
// socket is about to connect to.
func (p *hostPolicy) guarded(host string, hostAllowed bool) *net.Dialer {
	d := p.dialer
	d.Control = func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: connect address %q is not IP:port", ErrHostRefused, address)
		}
		return p.judge(host, ap.Addr(), strconv.Itoa(int(ap.Port())), hostAllowed)
	}
	return &d
}

var reservedPrefixes = []struct {
	prefix netip.Prefix
	why    string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "\"this network\""},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared address space"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay anycast"},
	// IPv6 forms that embed an IPv4 address, which a gateway or tunnel on
	// the path may unwrap to any IPv4 destination: refused whole, never
	// unwrapped and judged (IPv4-mapped ::ffff:a.b.c.d is the exception:
	// it is judged and dialed as the IPv4 address itself).
	{netip.MustParsePrefix("::/96"), "IPv4-compatible IPv6"},
	{netip.MustParsePrefix("::ffff:0:0:0/96"), "IPv4-translated IPv6"},
	{netip.MustParsePrefix("64:ff9b::/96"), "NAT64"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "NAT64"},
	{netip.MustParsePrefix("2002::/16"), "6to4"},
	{netip.MustParsePrefix("2001::/32"), "Teredo"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	{netip.MustParsePrefix("100::/64"), "discard"},
}

// nonPublic names why ip is not a public unicast address, or "" when it is.
func nonPublic(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate():
		return "private"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsInterfaceLocalMulticast(), ip.IsMulticast():
		return "multicast"
	case ip.IsUnspecified():
		return "unspecified"
	case ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "broadcast"
	}
	for _, r := range reservedPrefixes {
		if r.prefix.Contains(ip) {
			return r.why
		}
	}
	return ""
}
