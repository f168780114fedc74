// Package redisserver runs a redis-server child process: for tests, and for
// commands that need a private store and must leave nothing behind (xgr
// simulate without --redis).
package redisserver

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/toolbin"
)

// Options configure a server.
type Options struct {
	// Dir holds the server's files (AOF, cluster config, socket).
	Dir string
	// Port is the loopback TCP port; 0 means a unix socket in Dir instead.
	Port int
	// Args are extra redis-server arguments (e.g. --appendonly yes).
	Args []string
	// ConfigFile, when set, is passed first (Sentinel needs a writable one).
	ConfigFile string
}

// Server is a running redis-server child process.
type Server struct {
	opts Options
	// Network and Addr are what a client dials: "tcp" and host:port, or
	// "unix" and the socket path.
	Network, Addr string

	mu  sync.Mutex
	cmd *exec.Cmd
	log *toolbin.Output
}

// Start starts the server and waits (up to 10 s) until it answers PING.
func Start(opts Options) (*Server, error) {
	s := &Server{opts: opts, Network: "unix", Addr: filepath.Join(opts.Dir, "redis.sock")}
	if opts.Port != 0 {
		s.Network, s.Addr = "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(opts.Port))
	}
	return s, s.start()
}

func (s *Server) start() error {
	bin, err := toolbin.Find("redis-server")
	if err != nil {
		return err
	}
	var args []string
	if s.opts.ConfigFile != "" {
		args = append(args, s.opts.ConfigFile)
	}
	args = append(args, "--dir", s.opts.Dir, "--save", "", "--daemonize", "no", "--logfile", "", "--loglevel", "notice")
	if s.Network == "unix" {
		args = append(args, "--port", "0", "--unixsocket", s.Addr, "--unixsocketperm", "700")
	} else {
		_, port, _ := net.SplitHostPort(s.Addr)
		args = append(args, "--bind", "127.0.0.1", "--port", port, "--protected-mode", "no")
	}
	args = append(args, s.opts.Args...)
	s.mu.Lock()
	s.log = &toolbin.Output{}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	dieWithParent(s.cmd)
	cmd := s.cmd
	s.mu.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("redis-server exited: %v\n%s", err, s.Log())
		default:
		}
		c := redis.NewClient(&redis.Options{Network: s.Network, Addr: s.Addr, MaxRetries: -1})
		err := c.Ping(context.Background()).Err()
		c.Close()
		if err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Kill()
	<-exited
	return fmt.Errorf("redis-server on %s did not answer PING within 10s\n%s", s.Addr, s.Log())
}

// Log returns what the server printed since it was last started; it may be
// called while the server runs.
func (s *Server) Log() string {
	s.mu.Lock()
	log := s.log
	s.mu.Unlock()
	if log == nil {
		return ""
	}
	return log.String()
}

// Stop kills the server as a crash would (no shutdown save).
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Process.Wait()
		s.cmd = nil
	}
}

// Restart stops the server and starts it again on the same address and
// directory, retrying while the old port lingers.
func (s *Server) Restart() error {
	s.Stop()
	var err error
	for attempt := 0; attempt < 50; attempt++ {
		if err = s.start(); err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}

// Client returns a new client for the server.
func (s *Server) Client() *redis.Client {
	return redis.NewClient(&redis.Options{Network: s.Network, Addr: s.Addr})
}
