package console

import (
	"sync"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
)

// Change is one event a page is told about: a session's timeline event
// this replica saw.
type Change struct {
	Owner   string `json:"owner"`
	RootPid int64  `json:"rootPid"`
	// At is the time in unix milliseconds.
	At     int64  `json:"at"`
	Type   string `json:"type"`
	Pid    string `json:"pid,omitempty"`
	Step   string `json:"step,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// Limits of the hub's memory.
const (
	// keptSessions is how many sessions' recent events the hub keeps.
	keptSessions = 1024
	// keptEvents is how many events it keeps of one session.
	keptEvents = 512
	// subscriberBuffer is how many changes a slow page may fall behind
	// before it misses some (it refreshes on the next one anyway).
	subscriberBuffer = 64
)

// hub fans a replica's session events out to the pages listening and keeps
// each session's recent events for its timeline.
type hub struct {
	mu     sync.Mutex
	subs   map[chan Change]bool
	recent map[joinstore.Root][]reactor.Event
	order  []joinstore.Root // sessions in the order they were first seen
	closed bool
	done   chan struct{}
}

func newHub() *hub {
	return &hub{subs: map[chan Change]bool{}, recent: map[joinstore.Root][]reactor.Event{}, done: make(chan struct{})}
}

// publish records e and sends it to every subscriber that has room.
func (h *hub) publish(root joinstore.Root, e reactor.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	list, seen := h.recent[root]
	if !seen {
		h.order = append(h.order, root)
		if len(h.order) > keptSessions {
			delete(h.recent, h.order[0])
			h.order = h.order[1:]
		}
	}
	if len(list) >= keptEvents {
		list = list[1:]
	}
	h.recent[root] = append(list, e)
	c := Change{Owner: root.Owner, RootPid: root.RootPid, At: e.At.UnixMilli(), Type: string(e.Type), Pid: e.Pid, Step: e.Step, Detail: e.Detail}
	for ch := range h.subs {
		select {
		case ch <- c:
		default:
		}
	}
}

// events returns the session's recent events.
func (h *hub) events(root joinstore.Root) []reactor.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]reactor.Event(nil), h.recent[root]...)
}

// subscribe returns a channel of changes and its cancel function; ok is
// false once the hub is closed.
func (h *hub) subscribe() (ch chan Change, cancel func(), ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, func() {}, false
	}
	ch = make(chan Change, subscriberBuffer)
	h.subs[ch] = true
	return ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.subs, ch)
	}, true
}

// close ends every subscription (streams return) and refuses new ones.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		close(h.done)
	}
}
