package chain

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/xgr-sidecar/xgr/internal/redact"
)

// CheckNodeURL checks the address of a node given as flag (its name in
// messages, without "--"): an http(s):// or ws(s):// URL with a host and a
// valid port, or, when ipc, the path of an IPC socket (absolute, relative
// with "." or ending in ".ipc"). Messages never show a secret that rides
// in the URL (an API key).
func CheckNodeURL(flag, v string, ipc bool) error {
	shown := redact.URL(v)
	want := "want an http(s):// or ws(s):// URL"
	if ipc {
		want += " or the path of an IPC socket"
	}
	if !strings.Contains(v, "://") {
		if ipc && (strings.HasPrefix(v, "/") || strings.HasPrefix(v, ".") || strings.HasSuffix(v, ".ipc")) {
			return nil
		}
		return fmt.Errorf("--%s %q: %s (e.g. http://127.0.0.1:8545)", flag, shown, want)
	}
	u, err := url.Parse(v)
	if err != nil {
		return fmt.Errorf("--%s %q: %s (e.g. http://127.0.0.1:8545)", flag, shown, want)
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	default:
		return fmt.Errorf("--%s %q: scheme %q: %s", flag, shown, u.Scheme, want)
	}
	if u.Host == "" {
		return fmt.Errorf("--%s %q: no host: %s (e.g. http://127.0.0.1:8545)", flag, shown, want)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("--%s %q: port %q is not a port number (1-65535)", flag, shown, p)
		}
	}
	return nil
}

// ParseBackend reads a named node for contract reads, NAME=URL (a read's
// "rpc" selector NAME goes to URL), and checks the URL (CheckNodeURL).
func ParseBackend(spec string) (name, url string, err error) {
	name, url, ok := strings.Cut(spec, "=")
	if !ok || name == "" || url == "" {
		return "", "", fmt.Errorf("--rpc-backend %q: want NAME=URL, e.g. ethereum-mainnet=https://rpc.example", spec)
	}
	if err := CheckNodeURL("rpc-backend "+name, url, true); err != nil {
		return "", "", err
	}
	return name, url, nil
}
