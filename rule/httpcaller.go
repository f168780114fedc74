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
	"strings"
	"sync"
	"time"
)

// HTTPCaller is the net/http APICaller. It is safe for concurrent use; set
// its fields before the first call.
//
// Hosts whose addresses are loopback, private, link-local, multicast,
// unspecified or otherwise reserved are refused unless listed in AllowHosts,
// so a rule document cannot make the sidecar reach into the operator's
// network. The check runs on the resolved addresses at dial time (every
// redirect included), not on the URL text.
type HTTPCaller struct {
	// AllowHosts lists hosts that may resolve to non-public addresses,
	// as "host" (name or IP, matched case-insensitively, any port) or
	// "host=addr" to also send that host's connections to addr (an IP or
	// IP:port; like curl --resolve, TLS still verifies the original name).
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
	allowed  map[string]bool
	mapped   map[string]string
	resolver *net.Resolver
	dialer   net.Dialer
}

func newHostPolicy(entries []string) (*hostPolicy, error) {
	p := &hostPolicy{allowed: map[string]bool{}, mapped: map[string]string{}, resolver: net.DefaultResolver,
		dialer: net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}}
	for _, e := range entries {
		host, addr, hasAddr := strings.Cut(strings.TrimSpace(e), "=")
		host = strings.ToLower(strings.Trim(host, "[]"))
		if host == "" {
			return nil, fmt.Errorf("allow-host %q: empty host", e)
		}
		p.allowed[host] = true
		if hasAddr {
			if _, err := netip.ParseAddr(strings.Trim(addr, "[]")); err != nil {
				if _, err := netip.ParseAddrPort(addr); err != nil {
					return nil, fmt.Errorf("allow-host %q: %q is neither an IP nor IP:port", e, addr)
				}
			}
			p.mapped[host] = addr
		}
	}
	return p, nil
}

// ErrHostRefused is returned for hosts outside the policy.
var ErrHostRefused = errors.New("host refused")

func (p *hostPolicy) dial(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	host = strings.ToLower(host)
	if to, ok := p.mapped[host]; ok {
		if ap, err := netip.ParseAddrPort(to); err == nil {
			return p.dialer.DialContext(ctx, network, ap.String())
		}
		return p.dialer.DialContext(ctx, network, net.JoinHostPort(strings.Trim(to, "[]"), port))
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		addrs, err := p.resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, err
		}
		ips = addrs
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("%s: no addresses", host)
	}
	if !p.allowed[host] {
		for _, ip := range ips {
			if reason := nonPublic(ip); reason != "" && !p.allowed[ip.Unmap().String()] {
				return nil, fmt.Errorf("%w: %s resolves to %s (%s); allow it explicitly to call it", ErrHostRefused, host, ip, reason)
			}
		}
	}
	var last error
	for _, ip := range ips {
		c, err := p.dialer.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, last
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
	{netip.MustParsePrefix("64:ff9b::/96"), "NAT64"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "NAT64"},
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
