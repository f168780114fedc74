package console

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/internal/httpserve"
)

// The event stream outlives its listener's request timeouts (it is an
// httpserve stream) and keeps delivering ticks.
func TestEventStreamOutlivesRequestTimeouts(t *testing.T) {
	c := New(Config{Tick: 50 * time.Millisecond})
	s, err := httpserve.Listen("127.0.0.1:0", c.Handler(), httpserve.Config{ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	defer s.Close()
	defer c.Close()
	resp, err := http.Get("http://" + s.Addr() + "/ui/api/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	start, ticks := time.Now(), 0
	sc := bufio.NewScanner(resp.Body)
	for time.Since(start) < time.Second && sc.Scan() {
		if strings.HasPrefix(sc.Text(), "event: tick") {
			ticks++
		}
	}
	if time.Since(start) < time.Second || ticks < 10 {
		t.Errorf("the stream ended after %s and %d ticks (err %v); the request timeouts are 200ms", time.Since(start), ticks, sc.Err())
	}
}
