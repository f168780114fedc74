package httpserve

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// HostList is a Host header allow list against DNS rebinding: a page of
// another site whose name an attacker re-points at this listener's address
// is same-origin with it in the browser, but its requests still carry the
// attacker's name in Host. Requests addressed to an IP address, to
// localhost or to a listed name pass; "*" lets any name pass. A request
// without Host (HTTP/1.0; browsers always send one) passes.
type HostList struct {
	any   bool
	names map[string]bool
}

// NewHostList is the allow list of names (case-insensitive; a trailing dot
// is ignored).
func NewHostList(names ...string) *HostList {
	l := &HostList{names: map[string]bool{"localhost": true}}
	for _, n := range names {
		n = normalHost(n)
		if n == "*" {
			l.any = true
		}
		if n != "" {
			l.names[n] = true
		}
	}
	return l
}

// Allows reports whether a request addressed to hostport (a Host header,
// with or without a port) may be served.
func (l *HostList) Allows(hostport string) bool {
	if hostport == "" || l.any {
		return true
	}
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = normalHost(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if net.ParseIP(host) != nil {
		return true
	}
	return l.names[host]
}

// CheckHostName checks one allow list entry: a host name or IP address
// without scheme, port or path, or "*".
func CheckHostName(n string) error {
	if n == "*" {
		return nil
	}
	if n == "" || strings.ContainsAny(n, "/:@?#[] \t") {
		return fmt.Errorf("%q: want a host name (e.g. xgr.example.org, no scheme, port or path) or * for any", n)
	}
	return nil
}

func normalHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(h)), ".")
}

// guardHosts answers 403 to a request whose Host the list does not allow,
// before h sees it.
func guardHosts(l *HostList, hint string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !l.Allows(r.Host) {
			msg := fmt.Sprintf("Host %q is not allowed on this listener: requests must be addressed to an IP address, localhost or a listed name (a guard against DNS rebinding)", r.Host)
			if hint != "" {
				msg += "; " + hint
			}
			w.Header().Set("Connection", "close")
			http.Error(w, msg, http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// CheckListen checks a listen address given as flag (its name in
// messages, without "--"): host:port or :port, the port 0 to 65535.
func CheckListen(flag, v string) error {
	_, port, err := net.SplitHostPort(v)
	if err != nil {
		return fmt.Errorf("--%s %q: want host:port or :port (e.g. 127.0.0.1:9464)", flag, v)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("--%s %q: port %q is not a port number (0-65535)", flag, v, port)
	}
	return nil
}
