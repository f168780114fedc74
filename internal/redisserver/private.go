package redisserver

import (
	"fmt"
	"os"
)

// Private is a redis-server of one command's own, for the commands that run
// on a store of their own when no Redis is given (xgr dev, xgr simulate and
// xgr scenario without --redis, xgr bench): it listens on a unix socket in
// a temporary directory, so nothing else reaches it, and Stop removes the
// directory, so nothing is left behind.
type Private struct {
	*Server
	dir string
}

// StartPrivate starts a private redis-server in a new temporary directory
// "xgr-<purpose>-*" and waits until it answers PING. On an error nothing is
// left running and the directory is gone.
func StartPrivate(purpose string) (*Private, error) {
	dir, err := os.MkdirTemp("", "xgr-"+purpose+"-")
	if err != nil {
		return nil, fmt.Errorf("cannot start a private redis-server: %w", err)
	}
	srv, err := Start(Options{Dir: dir})
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("cannot start a private redis-server: %w", err)
	}
	return &Private{Server: srv, dir: dir}, nil
}

// Dir is the temporary directory that holds the server's socket and files.
func (p *Private) Dir() string { return p.dir }

// Stop kills the server and removes its directory.
func (p *Private) Stop() {
	p.Server.Stop()
	os.RemoveAll(p.dir)
}
