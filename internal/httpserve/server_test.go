package httpserve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// serve starts a Server of h on a loopback port; it is closed when the
// test ends.
func serve(t *testing.T, h http.Handler, cfg Config) *Server {
	t.Helper()
	s, err := Listen("127.0.0.1:0", h, cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	t.Cleanup(func() {
		s.Close()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return s
}

func healthMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	return mux
}

func dial(t *testing.T, s *Server) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedWithin reads from c until the server closes it; it fails the test
// if that takes longer than d.
func closedWithin(t *testing.T, c net.Conn, d time.Duration, what string) time.Duration {
	t.Helper()
	start := time.Now()
	c.SetReadDeadline(start.Add(d))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("%s: the server kept the connection open for %s", what, d)
	}
	return time.Since(start)
}

// get asks for path on a fresh connection and returns the status, failing
// the test if no answer comes within d.
func get(t *testing.T, s *Server, path string, d time.Duration) int {
	t.Helper()
	cl := &http.Client{Timeout: d, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := cl.Get("http://" + s.Addr() + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// An idle keep-alive connection is closed after IdleTimeout.
func TestIdleConnectionClosed(t *testing.T) {
	s := serve(t, healthMux(), Config{IdleTimeout: 300 * time.Millisecond})
	c := dial(t, s)
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != 200 || resp.Close {
		t.Fatalf("keep-alive request: %v %v", resp, err)
	}
	io.Copy(io.Discard, resp.Body)
	if took := closedWithin(t, c, 3*time.Second, "idle keep-alive connection"); took < 200*time.Millisecond {
		t.Errorf("closed after %s, before the idle timeout (300ms)", took)
	}
}

// A client that sends its body too slowly is cut after ReadTimeout; the
// handler sees the read fail.
func TestSlowBodyCut(t *testing.T) {
	readErr := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		readErr <- err
	})
	s := serve(t, h, Config{ReadTimeout: 300 * time.Millisecond})
	c := dial(t, s)
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\nfirst bytes")
	closedWithin(t, c, 3*time.Second, "slow body")
	select {
	case err := <-readErr:
		if err == nil {
			t.Error("the handler read a body that never came")
		}
	case <-time.After(3 * time.Second):
		t.Error("the handler's body read did not end")
	}
}

// With the cap taken by slow and idle clients (many more than the cap
// tried), /healthz on a new connection is answered at once, long before
// any timeout frees a place, and no more than the cap stay open.
func TestHealthzReachableWhenSlowClientsHoldTheCap(t *testing.T) {
	const max = 8
	block := make(chan struct{})
	defer close(block)
	mux := healthMux()
	mux.HandleFunc("/upload", func(w http.ResponseWriter, r *http.Request) { io.ReadAll(r.Body) })
	s := serve(t, mux, Config{MaxConns: max, ReadHeaderTimeout: time.Minute, ReadTimeout: time.Minute, IdleTimeout: time.Minute})
	var slow []net.Conn
	for i := 0; i < 4*max; i++ {
		c := dial(t, s)
		switch i % 4 {
		case 0: // connects and says nothing
		case 1: // never ends its headers
			fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
		case 2: // never ends its body
			fmt.Fprintf(c, "POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\nsome")
		case 3: // an idle keep-alive connection
			fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
			if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil || resp.StatusCode != 200 {
				t.Fatalf("keep-alive request: %v", err)
			}
		}
		slow = append(slow, c)
	}
	start := time.Now()
	if code := get(t, s, "/healthz", 2*time.Second); code != 200 {
		t.Fatalf("/healthz: %d", code)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("/healthz took %s with slow clients at the cap", took)
	}
	if n := s.Open(); n > max {
		t.Errorf("%d connections open, cap %d", n, max)
	}
	// The earliest slow clients were shed.
	for _, c := range slow[:max] {
		closedWithin(t, c, 2*time.Second, "a slow client at the cap")
	}
}

// When every connection serves a request, a new one waits for a place
// instead of going over the cap; a request whose body the handler has read
// (its Content-Length, without reading on to EOF) is serving.
func TestCapWaitsWhileEveryConnectionServes(t *testing.T) {
	release := make(chan struct{})
	var entered atomic.Int32
	mux := healthMux()
	mux.HandleFunc("/work", func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > 0 {
			io.ReadFull(r.Body, make([]byte, r.ContentLength))
		}
		entered.Add(1)
		<-release
	})
	s := serve(t, mux, Config{MaxConns: 2})
	fmt.Fprintf(dial(t, s), "GET /work HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	fmt.Fprintf(dial(t, s), "POST /work HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello")
	for deadline := time.Now().Add(3 * time.Second); entered.Load() < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the two requests did not start")
		}
	}
	got := make(chan int, 1)
	go func() {
		resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Get("http://" + s.Addr() + "/healthz")
		if err != nil {
			got <- -1
			return
		}
		resp.Body.Close()
		got <- resp.StatusCode
	}()
	select {
	case code := <-got:
		t.Fatalf("a third connection was served (%d) while two serve at cap 2", code)
	case <-time.After(300 * time.Millisecond):
	}
	release <- struct{}{}
	select {
	case code := <-got:
		if code != 200 {
			t.Errorf("/healthz after a place freed: %d", code)
		}
	case <-time.After(3 * time.Second):
		t.Error("/healthz not served after a place freed")
	}
	close(release)
}

// A stream outlives ReadTimeout and WriteTimeout; a plain request is cut
// by WriteTimeout.
func TestStreamOutlivesTimeouts(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/events", func(w http.ResponseWriter, r *http.Request) {
		st, err := OpenStream(w, r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		defer st.Close()
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(st, "data: %d\n\n", i); err != nil {
				return
			}
			select {
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(600 * time.Millisecond)
		fmt.Fprintln(w, "late")
	})
	s := serve(t, mux, Config{ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond})
	resp, err := http.Get("http://" + s.Addr() + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	start, events := time.Now(), 0
	sc := bufio.NewScanner(resp.Body)
	for time.Since(start) < time.Second && sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: ") {
			events++
		}
	}
	if time.Since(start) < time.Second || events < 10 {
		t.Errorf("the stream ended after %s and %d events (err %v); timeouts are 200ms", time.Since(start), events, sc.Err())
	}
	if resp, err := http.Get("http://" + s.Addr() + "/slow"); err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), "late") {
			t.Errorf("a plain request outlived the 200ms write timeout: %d %q", resp.StatusCode, b)
		}
	}
}

// Streams are capped below the connection cap.
func TestStreamCap(t *testing.T) {
	opened := make(chan error, 4)
	mux := healthMux()
	mux.HandleFunc("/events", func(w http.ResponseWriter, r *http.Request) {
		st, err := OpenStream(w, r)
		opened <- err
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		defer st.Close()
		fmt.Fprintf(st, "retry: 1\n\n")
		<-r.Context().Done()
	})
	s := serve(t, mux, Config{MaxConns: 4, MaxStreams: 1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+s.Addr()+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("first stream: %v %v", resp, err)
	}
	defer resp.Body.Close()
	if err := <-opened; err != nil {
		t.Fatal(err)
	}
	if code := get(t, s, "/events", 2*time.Second); code != http.StatusServiceUnavailable {
		t.Errorf("second stream at cap 1: %d", code)
	}
	if err := <-opened; !errors.Is(err, ErrTooManyStreams) {
		t.Errorf("second stream: %v", err)
	}
	if code := get(t, s, "/healthz", 2*time.Second); code != 200 {
		t.Errorf("/healthz beside the streams: %d", code)
	}
	cancel()
	resp.Body.Close()
	// The place is given back.
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if code := get(t, s, "/events?again", 2*time.Second); code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a closed stream did not give its place back")
		}
	}
}
