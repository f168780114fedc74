// Package redact keeps secrets that ride in addresses out of messages and
// logs: the password of redis://user:password@host, the API key in a node
// URL's path (https://mainnet.example/v3/KEY) or query (?apikey=KEY).
package redact

import (
	"net/url"
	"strings"
	"sync"
)

// Mask stands for a removed secret.
const Mask = "xxxxx"

// URL returns s fit for a message or a log: an http(s), ws(s), redis(s)
// or any other URL as scheme://host[:port], with "xxxxx@" for any user
// information, "/…" for a path of eight or more bytes (shorter ones, a
// database number or "/rpc", stay) and "?…" for a query or fragment; text without
// "://" (host:port, an IPC or socket path) loses what precedes an "@". A
// URL that does not parse keeps only its scheme.
func URL(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		if i := strings.LastIndexByte(s, '@'); i >= 0 {
			return Mask + s[i:]
		}
		return s
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || strings.ContainsAny(scheme, "/?#@") {
		return schemeOnly(scheme) + "://…"
	}
	var b strings.Builder
	b.WriteString(u.Scheme)
	b.WriteString("://")
	if u.User != nil {
		b.WriteString(Mask + "@")
	}
	b.WriteString(u.Host)
	// The authority ends at the first '/', '?' or '#' (userinfo cannot
	// hold them unescaped), whatever the password spells.
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	tail := rest[end:]
	path, query, hasQuery := strings.Cut(tail, "?")
	if i := strings.IndexByte(path, '#'); i >= 0 {
		path, hasQuery = path[:i], true
	}
	switch {
	case len(path) >= 8:
		b.WriteString("/…")
	case path != "/":
		b.WriteString(path) // a database number, "/rpc": too short for a key
	}
	if hasQuery || query != "" {
		b.WriteString("?…")
	}
	return b.String()
}

func schemeOnly(scheme string) string {
	if strings.ContainsAny(scheme, "/?#@:") || len(scheme) > 16 {
		return "?"
	}
	return scheme
}

// Text returns msg with every secret of the address s replaced: s itself
// by URL(s), and its user information, password, path and query wherever
// else they appear (an HTTP error quotes the URL it called in its own
// way). Alone, a password shorter than four characters and a path or query
// shorter than eight are left (a database "/0", a path "/rpc"); within s
// they always go.
func Text(msg, s string) string {
	if s == "" || !strings.Contains(s, "://") && !strings.Contains(s, "@") {
		return msg
	}
	msg = strings.ReplaceAll(msg, s, URL(s))
	for _, part := range secrets(s) {
		if len(part.text) >= part.min {
			msg = strings.ReplaceAll(msg, part.text, Mask)
		}
	}
	return msg
}

// Error is err with Text applied to its message (nil stays nil); it
// still unwraps to err for errors.Is and errors.As (whose own message is
// not redacted: print the result, not what it wraps).
func Error(err error, s string) error {
	if err == nil {
		return nil
	}
	return &textError{msg: Text(err.Error(), s), err: err}
}

type textError struct {
	msg string
	err error
}

func (e *textError) Error() string { return e.msg }
func (e *textError) Unwrap() error { return e.err }

// secret is a part of an address that may hold a secret, replaced on its
// own when at least min bytes long.
type secret struct {
	text string
	min  int
}

// secrets are the parts of s that may hold a secret, longest first.
func secrets(s string) []secret {
	_, rest, ok := strings.Cut(s, "://")
	if !ok {
		if i := strings.LastIndexByte(s, '@'); i >= 0 {
			user := s[:i]
			_, pw, _ := strings.Cut(user, ":")
			return []secret{{user, 4}, {pw, 4}}
		}
		return nil
	}
	var out []secret
	authority, tail := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority, tail = rest[:i], rest[i:]
	}
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		user := authority[:i]
		_, pw, _ := strings.Cut(user, ":")
		out = append(out, secret{user, 4}, secret{pw, 4})
		if u, err := url.PathUnescape(pw); err == nil && u != pw {
			out = append(out, secret{u, 4})
		}
	}
	if tail != "" {
		path, query, _ := strings.Cut(tail, "?")
		out = append(out, secret{tail, 8}, secret{path, 8}, secret{query, 8})
		if u, err := url.PathUnescape(path); err == nil && u != path {
			out = append(out, secret{u, 8})
		}
	}
	return out
}

// hasSecret reports whether s holds something Text would remove.
func hasSecret(s string) bool {
	for _, p := range secrets(s) {
		if p.text != "" && (p.min == 4 || len(p.text) >= p.min) {
			return true
		}
	}
	return false
}

var (
	mu    sync.RWMutex
	known = map[string]bool{}
)

// Register remembers the addresses a process was given (node URLs, Redis
// URLs) whose secrets All removes from every message and log line.
// Addresses without a secret are not kept.
func Register(addrs ...string) {
	mu.Lock()
	defer mu.Unlock()
	for _, a := range addrs {
		if a != "" && hasSecret(a) {
			known[a] = true
		}
	}
}

// All is msg with Text applied for every registered address.
func All(msg string) string {
	mu.RLock()
	defer mu.RUnlock()
	for a := range known {
		msg = Text(msg, a)
	}
	return msg
}
