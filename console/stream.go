package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/xgr-sidecar/xgr/internal/httpserve"
)

// handleEvents is a server-sent event stream: "change" events carry a
// session event this replica saw (Change), "tick" events come every
// Config.Tick so that pages also refresh for other replicas' work. The
// stream ends when the page goes or the console closes. It is a stream of
// its listener (httpserve.OpenStream): exempt from the request timeouts,
// each event written within the write timeout, and counted against the
// listener's cap of streams (503 over it; the page retries).
func (c *Console) handleEvents(w http.ResponseWriter, r *http.Request) {
	if _, ok := w.(http.Flusher); !ok {
		http.Error(w, "streaming unsupported by this connection", http.StatusInternalServerError)
		return
	}
	st, err := httpserve.OpenStream(w, r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	defer st.Close()
	ch, cancel, ok := c.hub.subscribe()
	defer cancel()
	if !ok {
		http.Error(w, "the console is shutting down", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	if _, err := fmt.Fprintf(st, "retry: 2000\n\n"); err != nil {
		return
	}
	tick := time.NewTicker(c.cfg.Tick)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-c.hub.done:
			return
		case e := <-ch:
			b, _ := json.Marshal(e)
			_, err = fmt.Fprintf(st, "event: change\ndata: %s\n\n", b)
		case t := <-tick.C:
			_, err = fmt.Fprintf(st, "event: tick\ndata: %d\n\n", t.UnixMilli())
		}
		if err != nil {
			return // the page stopped reading
		}
	}
}
