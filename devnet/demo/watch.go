package demo

import (
	"context"
	"io"
	"log/slog"
	"sort"
	"sync"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// Watch follows every session the manager runs in xgr dev (the demo's, and
// any a client starts through the gateway): Poll prints "session N
// finished (…)" once as each ends, Table the summary table.
type Watch struct {
	store *joinstore.Store
	// home is the owner whose sessions are named by their root id alone.
	home string
	say  func(format string, args ...any)
	log  *slog.Logger

	mu    sync.Mutex
	roots []joinstore.Root
	known map[joinstore.Root]bool
	ended map[joinstore.Root]Session
}

// NewWatch follows sessions of store. say prints a line (Poll calls it;
// xgr dev's say also serves other goroutines, so it holds its own lock);
// log gets the sessions whose records cannot be judged; sessions of the
// owner home are named by their root id alone.
func NewWatch(store *joinstore.Store, home string, say func(format string, args ...any), log *slog.Logger) *Watch {
	return &Watch{store: store, home: home, say: say, log: log,
		known: map[joinstore.Root]bool{}, ended: map[joinstore.Root]Session{}}
}

// Add follows a session (safe to call for every event of it).
func (w *Watch) Add(r joinstore.Root) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.known[r] {
		w.known[r] = true
		w.roots = append(w.roots, r)
	}
}

// Poll reads the sessions not yet seen finished, prints a line for each
// that has finished since, and returns how many have finished in all.
func (w *Watch) Poll(ctx context.Context) int {
	w.mu.Lock()
	var open []joinstore.Root
	for _, r := range w.roots {
		if _, done := w.ended[r]; !done {
			open = append(open, r)
		}
	}
	w.mu.Unlock()
	var ended []Session
	for _, r := range open {
		s, err := w.read(ctx, r)
		if err != nil || !s.Finished() {
			continue
		}
		w.mu.Lock()
		w.ended[r] = s
		w.mu.Unlock()
		ended = append(ended, s)
	}
	sort.SliceStable(ended, func(i, j int) bool { return ended[i].Ended.Before(ended[j].Ended) })
	for _, s := range ended {
		w.say("%s\n", FinishedLine(s, w.home))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.ended)
}

func (w *Watch) read(ctx context.Context, r joinstore.Root) (Session, error) {
	meta, err := w.store.SessionMeta(ctx, r)
	if err != nil {
		return Session{}, err
	}
	procs, err := w.store.Processes(ctx, r)
	if err != nil {
		return Session{}, err
	}
	s, err := Judge(r, meta, procs)
	if err != nil {
		w.log.Warn("dev: session records", "session", r.String(), "err", err)
	}
	return s, err
}

// Table writes the summary table of every session followed, the live ones
// read once more.
func (w *Watch) Table(ctx context.Context, out io.Writer) error {
	w.mu.Lock()
	roots := append([]joinstore.Root(nil), w.roots...)
	w.mu.Unlock()
	list := make([]Session, 0, len(roots))
	for _, r := range roots {
		w.mu.Lock()
		s, done := w.ended[r]
		w.mu.Unlock()
		if !done {
			var err error
			if s, err = w.read(ctx, r); err != nil {
				continue
			}
		}
		list = append(list, s)
	}
	Sort(list, w.home)
	return WriteTable(out, list, w.home)
}
