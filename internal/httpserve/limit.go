package httpserve

import (
	"net"
	"sync"
	"time"
)

// limitListener caps the connections open at once. A connection is
// "waiting" while it holds no request in progress: it is idle between
// requests, or its client is still sending the headers or the body of a
// request. At the cap, an accepted connection sheds the connection that has
// been waiting longest (a slow or idle client gives way to a new one);
// when every connection is serving a request, it waits for one to close.
type limitListener struct {
	net.Listener
	max int

	mu     sync.Mutex
	cond   *sync.Cond
	conns  map[*conn]bool
	closed bool
}

func newLimitListener(l net.Listener, max int) *limitListener {
	ll := &limitListener{Listener: l, max: max, conns: map[*conn]bool{}}
	ll.cond = sync.NewCond(&ll.mu)
	return ll
}

// Accept accepts a connection and makes room for it.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if tc := l.admit(c); tc != nil {
			return tc, nil
		}
	}
}

// admit registers c once the count is under the cap, shedding the longest
// waiting connection or waiting for one to close; nil if the listener
// closed meanwhile (c is closed).
func (l *limitListener) admit(c net.Conn) *conn {
	l.mu.Lock()
	for len(l.conns) >= l.max && !l.closed {
		victim := l.longestWaiting()
		if victim == nil {
			l.cond.Wait()
			continue
		}
		delete(l.conns, victim)
		l.mu.Unlock()
		victim.Conn.Close()
		l.mu.Lock()
	}
	if l.closed {
		l.mu.Unlock()
		c.Close()
		return nil
	}
	tc := &conn{Conn: c, l: l, since: time.Now()}
	l.conns[tc] = true
	l.mu.Unlock()
	return tc
}

// longestWaiting is the connection waiting longest, or nil (l.mu held).
func (l *limitListener) longestWaiting() *conn {
	var v *conn
	for c := range l.conns {
		if !c.busy && (v == nil || c.since.Before(v.since)) {
			v = c
		}
	}
	return v
}

// Close stops accepting and wakes a waiting Accept.
func (l *limitListener) Close() error {
	l.mu.Lock()
	l.closed = true
	l.cond.Broadcast()
	l.mu.Unlock()
	return l.Listener.Close()
}

// open is how many connections are open.
func (l *limitListener) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

// conn is a connection of a limitListener.
type conn struct {
	net.Conn
	l    *limitListener
	once sync.Once

	// busy (a request in progress) and since (when it last started
	// waiting) are guarded by l.mu.
	busy  bool
	since time.Time
}

// Close closes the connection and frees its place.
func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.cond.Signal()
		c.l.mu.Unlock()
	})
	return err
}

// setBusy marks whether the connection serves a request now.
func (c *conn) setBusy(busy bool) {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if c.busy != busy {
		c.busy = busy
		if !busy {
			c.since = time.Now()
			c.l.cond.Signal() // an Accept waiting at the cap may shed it
		}
	}
}
