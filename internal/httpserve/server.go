package httpserve

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
)

// Server is a hardened HTTP server on one listener.
type Server struct {
	cfg  Config
	http *http.Server
	l    *limitListener

	mu      sync.Mutex
	streams int
}

type ctxKey int

const (
	connKey ctxKey = iota
	serverKey
)

// Listen listens on addr (host:port) and returns a Server of h on it; the
// host of addr joins cfg.Hosts. Call Serve to serve.
func Listen(addr string, h http.Handler, cfg Config) (*Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if host, _, err := net.SplitHostPort(addr); err == nil && host != "" {
		cfg.Hosts = append(append([]string(nil), cfg.Hosts...), host)
	}
	return New(l, h, cfg), nil
}

// New returns a Server of h on l with cfg's bounds.
func New(l net.Listener, h http.Handler, cfg Config) *Server {
	cfg = cfg.withDefaults()
	s := &Server{cfg: cfg, l: newLimitListener(l, cfg.MaxConns)}
	s.http = &http.Server{
		Handler:           guardHosts(NewHostList(cfg.Hosts...), cfg.HostsHint, s.track(h)),
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    cfg.MaxHeaderBytes,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(context.WithValue(ctx, serverKey, s), connKey, c)
		},
	}
	return s
}

// Serve serves until Shutdown or Close; it returns nil then.
func (s *Server) Serve() error {
	err := s.http.Serve(s.l)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.l.Addr().String() }

// Shutdown stops accepting and waits for the requests in progress (see
// http.Server.Shutdown); streams end through RegisterOnShutdown hooks.
func (s *Server) Shutdown(ctx context.Context) error { return s.http.Shutdown(ctx) }

// Close closes the listener and every connection at once.
func (s *Server) Close() error { return s.http.Close() }

// RegisterOnShutdown registers f to run when Shutdown starts.
func (s *Server) RegisterOnShutdown(f func()) { s.http.RegisterOnShutdown(f) }

// Open is how many connections are open now.
func (s *Server) Open() int { return s.l.open() }

// track marks a connection busy while it serves a request: from when its
// request's body has been read (at once without a body) until the handler
// returns. Until then it may be shed at the cap.
func (s *Server) track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Context().Value(connKey).(*conn)
		if c == nil {
			h.ServeHTTP(w, r)
			return
		}
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			c.setBusy(true)
		} else {
			r.Body = &bodyWatch{ReadCloser: r.Body, c: c, left: r.ContentLength}
		}
		defer c.setBusy(false)
		h.ServeHTTP(w, r)
	})
}

// bodyWatch marks its connection busy once the body has been read: its
// Content-Length (left, -1 when unknown) or up to an error or EOF.
type bodyWatch struct {
	io.ReadCloser
	c    *conn
	left int64
	done bool
}

func (b *bodyWatch) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.left > 0 {
		b.left -= int64(n)
	}
	if !b.done && (err != nil || b.left == 0) {
		b.done = true
		b.c.setBusy(true)
	}
	return n, err
}
