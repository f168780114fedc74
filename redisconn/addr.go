package redisconn

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/redact"
)

// AddrForms is what an address (Config.Addr) may be, for error messages.
const AddrForms = "want host:port, :port, redis://[user:password@]host:port/db, rediss://… (TLS) or unix:///path/to/redis.sock"

// DefaultPort is the port of an address that names a host only.
const DefaultPort = "6379"

// ParseAddr reads one server's address: a URL (redis://, rediss:// for
// TLS, unix://), host:port, :port (this host), a bare host (DefaultPort)
// or a socket path. The error says what is accepted and never holds the
// address's password.
func ParseAddr(s string) (*redis.Options, error) {
	opts, err := parseAddr(s)
	return opts, redact.Error(err, s)
}

func parseAddr(s string) (*redis.Options, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("empty address: " + AddrForms)
	}
	if strings.Contains(s, "://") {
		scheme, _, _ := strings.Cut(s, "://")
		switch scheme {
		case "redis", "rediss", "unix":
		default:
			return nil, fmt.Errorf("scheme %q is not a Redis scheme: %s", scheme, AddrForms)
		}
		opts, err := redis.ParseURL(s)
		if err != nil {
			// go-redis's own words name URL internals; say what is wrong in
			// the user's terms and keep the detail last.
			return nil, fmt.Errorf("not a Redis URL (%v): %s", err, AddrForms)
		}
		return opts, nil
	}
	if IsSocketPath(s) {
		return &redis.Options{Network: "unix", Addr: s}, nil
	}
	if strings.ContainsAny(s, "/@?# ") {
		return nil, fmt.Errorf("%q is neither a URL nor host:port: %s", s, AddrForms)
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		if strings.Count(s, ":") > 0 {
			return nil, fmt.Errorf("%v: %s", err, AddrForms)
		}
		host, port = s, DefaultPort // a bare host name
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return nil, fmt.Errorf("port %q is not a port number (1-65535): %s", port, AddrForms)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return &redis.Options{Addr: net.JoinHostPort(host, port)}, nil
}

// IsSocketPath reports whether an address is the path of a unix socket
// (absolute, or relative starting with ./).
func IsSocketPath(s string) bool {
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, "./")
}

// NamesPort reports whether an address says which server it means beyond
// a bare host name (that would mean DefaultPort): a URL, a socket path or
// host:port.
func NamesPort(s string) bool {
	s = strings.TrimSpace(s)
	return strings.Contains(s, "://") || IsSocketPath(s) || strings.Contains(s, ":")
}

// ParseSeeds reads a comma-separated list of host:port addresses (the
// seeds of a Redis Cluster, or Sentinels); ":port" means this host.
func ParseSeeds(s string) ([]string, error) {
	var out []string
	for _, a := range strings.Split(s, ",") {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		host, port, err := net.SplitHostPort(a)
		if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("%q is not host:port (e.g. 10.0.0.5:7000)", a)
		}
		if host == "" {
			a = "127.0.0.1:" + port
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, errors.New("give at least one host:port")
	}
	return out, nil
}
