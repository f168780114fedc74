package httpserve

import (
	"log/slog"
	"time"
)

// Defaults of Config, shared by every listener.
const (
	// DefaultReadHeaderTimeout bounds reading a request's headers.
	DefaultReadHeaderTimeout = 5 * time.Second
	// DefaultReadTimeout bounds reading a whole request, body included.
	DefaultReadTimeout = 30 * time.Second
	// DefaultWriteTimeout bounds handling a request and writing its answer
	// (streams lift it for themselves: OpenStream).
	DefaultWriteTimeout = 30 * time.Second
	// DefaultIdleTimeout closes a keep-alive connection idle this long.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultMaxConns caps the open connections of a listener.
	DefaultMaxConns = 64
	// DefaultMaxHeaderBytes caps a request's header bytes.
	DefaultMaxHeaderBytes = 64 << 10
)

// Config bounds what one listener's clients may hold. Zero fields take
// the defaults above.
type Config struct {
	// Name names the listener in logs ("ops", "gateway").
	Name string
	// ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout are the
	// http.Server timeouts of the same names.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// MaxConns caps the open connections. At the cap a new connection
	// first sheds the connection that has waited longest without a request
	// in progress (idle keep-alive, or still sending its headers or body);
	// if every connection is serving a request, it waits for one to close.
	MaxConns int
	// MaxStreams caps the long-lived streams (OpenStream) among them, so
	// that streams never take every connection (0: MaxConns/2, at least 1).
	MaxStreams int
	// MaxHeaderBytes caps a request's header bytes.
	MaxHeaderBytes int
	// Hosts are the host names requests may be addressed to (the Host
	// header) besides IP addresses and localhost; "*" allows any. Listen
	// adds its address's host name.
	Hosts []string
	// HostsHint ends the answer to a refused Host: how to allow one (e.g.
	// "add it with --vhosts").
	HostsHint string
	// Log receives the listener's warnings (nil: slog.Default()).
	Log *slog.Logger
}

// withDefaults is cfg with every zero field set to its default.
func (cfg Config) withDefaults() Config {
	set := func(d *time.Duration, def time.Duration) {
		if *d <= 0 {
			*d = def
		}
	}
	set(&cfg.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	set(&cfg.ReadTimeout, DefaultReadTimeout)
	set(&cfg.WriteTimeout, DefaultWriteTimeout)
	set(&cfg.IdleTimeout, DefaultIdleTimeout)
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	if cfg.MaxStreams <= 0 {
		cfg.MaxStreams = max(cfg.MaxConns/2, 1)
	}
	if cfg.MaxHeaderBytes <= 0 {
		cfg.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Name == "" {
		cfg.Name = "http"
	}
	return cfg
}
