package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// handleEvents is a server-sent event stream: "change" events carry a
// session event this replica saw (Change), "tick" events come every
// Config.Tick so that pages also refresh for other replicas' work. The
// stream ends when the page goes or the console closes.
func (c *Console) handleEvents(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported by this connection", http.StatusInternalServerError)
		return
	}
	ch, cancel, ok := c.hub.subscribe()
	defer cancel()
	if !ok {
		http.Error(w, "the console is shutting down", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	fmt.Fprintf(w, "retry: 2000\n\n")
	flusher.Flush()
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
			fmt.Fprintf(w, "event: change\ndata: %s\n\n", b)
		case t := <-tick.C:
			fmt.Fprintf(w, "event: tick\ndata: %d\n\n", t.UnixMilli())
		}
		flusher.Flush()
	}
}
