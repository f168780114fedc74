package rpc

import (
	"fmt"
	"net/http"
	"strings"

	gethrpc "github.com/ethereum/go-ethereum/rpc"
	"github.com/rs/cors"

	"github.com/xgr-sidecar/xgr/internal/httpserve"
)

// ServerConfig bounds what clients may send.
type ServerConfig struct {
	// CORSOrigins are the browser origins allowed to call over HTTP and to
	// open a websocket ("*" for any), each scheme://host[:port] as the
	// browser sends it in Origin; none: no browser page may open a
	// websocket (a handshake without Origin, from a program, is accepted).
	CORSOrigins []string
	// MaxBodyBytes caps an HTTP request body and a websocket message
	// (0: 1 MiB).
	MaxBodyBytes int
	// MaxBatch caps the calls of one batch (0: 100) and MaxBatchResponse the
	// bytes of its answer (0: 10 MiB).
	MaxBatch, MaxBatchResponse int
}

// Server is the xgr_* JSON-RPC 2.0 endpoint over HTTP and WebSocket, on
// go-ethereum's rpc package (batches, notifications and error objects as
// node operators know them).
type Server struct {
	rpc     *gethrpc.Server
	handler http.Handler
}

// NewServer registers svc under the namespace "xgr".
func NewServer(svc *Service, cfg ServerConfig) (*Server, error) {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = 100
	}
	if cfg.MaxBatchResponse <= 0 {
		cfg.MaxBatchResponse = 10 << 20
	}
	srv := gethrpc.NewServer()
	srv.SetHTTPBodyLimit(cfg.MaxBodyBytes)
	srv.SetWebsocketReadLimit(int64(cfg.MaxBodyBytes))
	srv.SetBatchLimits(cfg.MaxBatch, cfg.MaxBatchResponse)
	if err := srv.RegisterName("xgr", svc); err != nil {
		return nil, fmt.Errorf("rpc: %w", err)
	}
	if err := srv.RegisterName(gethrpc.MetadataApi, noMetadata{}); err != nil {
		return nil, fmt.Errorf("rpc: %w", err)
	}
	ws := srv.WebsocketHandler(cfg.CORSOrigins)
	httpHandler := http.Handler(srv)
	if len(cfg.CORSOrigins) > 0 {
		httpHandler = cors.New(cors.Options{AllowedOrigins: cfg.CORSOrigins, AllowedMethods: []string{http.MethodPost, http.MethodGet},
			AllowedHeaders: []string{"*"}, MaxAge: 600}).Handler(srv)
	}
	origins := originList(cfg.CORSOrigins)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			serveWebsocket(ws, origins, w, r)
			return
		}
		httpHandler.ServeHTTP(w, r)
	})
	return &Server{rpc: srv, handler: h}, nil
}

// ServeHTTP serves JSON-RPC over HTTP POST and, on an Upgrade request, over
// a websocket.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Stop ends the server's connections.
func (s *Server) Stop() { s.rpc.Stop() }

// originList is the set of allowed browser origins, lower case; "*" in it
// allows any.
func originList(list []string) map[string]bool {
	m := map[string]bool{}
	for _, o := range list {
		if o = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(o), "/")); o != "" {
			m[o] = true
		}
	}
	return m
}

// serveWebsocket refuses a handshake whose Origin is not listed (403;
// go-ethereum's own check alone would let any http://localhost page in
// when the list is empty), then serves the websocket as a stream of the
// listener: exempt from the HTTP timeouts (go-ethereum pings and sets its
// own deadlines) and counted against its stream cap.
func serveWebsocket(ws http.Handler, origins map[string]bool, w http.ResponseWriter, r *http.Request) {
	if o, sent := r.Header["Origin"]; sent && !origins["*"] && !origins[strings.ToLower(strings.Join(o, ","))] {
		http.Error(w, fmt.Sprintf("websocket from Origin %q refused: browser pages may connect only from the origins of --rpc-cors (exactly scheme://host[:port])", strings.Join(o, ",")), http.StatusForbidden)
		return
	}
	st, err := httpserve.OpenStream(w, r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	defer st.Close()
	ws.ServeHTTP(w, r)
}
