package rpc

import (
	"fmt"
	"net/http"
	"strings"

	gethrpc "github.com/ethereum/go-ethereum/rpc"
	"github.com/rs/cors"
)

// ServerConfig bounds what clients may send.
type ServerConfig struct {
	// CORSOrigins are the browser origins allowed to call over HTTP and to
	// open a websocket ("*" for any); none: no cross-origin browser access.
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
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			ws.ServeHTTP(w, r)
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
