package httpserve

import (
	"errors"
	"net/http"
	"time"
)

// ErrTooManyStreams is OpenStream's answer when the listener holds its
// cap of streams: answer 503.
var ErrTooManyStreams = errors.New("too many open streams on this listener: try again later")

// Stream is a long-lived answer (server-sent events, a websocket): it is
// exempt from the listener's ReadTimeout and WriteTimeout, and each Write
// gets WriteTimeout of its own, so a client that stops reading is still
// cut.
type Stream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	release func()
}

// OpenStream makes the request a stream: it lifts the request's read and
// write deadlines (a closed client still ends the request's context) and
// counts the stream against the listener's cap (ErrTooManyStreams at the
// cap). A websocket handler takes over the connection's deadlines after
// it; Close the stream when the handler is done. Outside a Server (e.g. in
// an httptest server) there is no cap.
func OpenStream(w http.ResponseWriter, r *http.Request) (*Stream, error) {
	st := &Stream{w: w, rc: http.NewResponseController(w), timeout: DefaultWriteTimeout, release: func() {}}
	if s, _ := r.Context().Value(serverKey).(*Server); s != nil {
		s.mu.Lock()
		if s.streams >= s.cfg.MaxStreams {
			s.mu.Unlock()
			s.cfg.Log.Warn("stream refused: the listener's stream cap is reached", "listener", s.cfg.Name, "max", s.cfg.MaxStreams, "remote", r.RemoteAddr)
			return nil, ErrTooManyStreams
		}
		s.streams++
		s.mu.Unlock()
		st.timeout = s.cfg.WriteTimeout
		st.release = func() {
			s.mu.Lock()
			s.streams--
			s.mu.Unlock()
		}
	}
	if c, _ := r.Context().Value(connKey).(*conn); c != nil {
		c.setBusy(true) // a stream is not shed for new connections
	}
	// ErrNotSupported (a writer without deadlines) leaves nothing to lift.
	_ = st.rc.SetReadDeadline(time.Time{})
	_ = st.rc.SetWriteDeadline(time.Time{})
	return st, nil
}

// Write writes p and flushes it, within the listener's WriteTimeout.
func (s *Stream) Write(p []byte) (int, error) {
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	n, err := s.w.Write(p)
	if err == nil {
		err = s.rc.Flush()
	}
	return n, err
}

// Close gives the stream's place back.
func (s *Stream) Close() {
	s.release()
	s.release = func() {}
}
