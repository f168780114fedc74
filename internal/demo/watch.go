package main

import (
	"context"
	"io"
	"log/slog"
	"sort"
	"sync"

	"github.com/xgr-sidecar/xgr/internal/demo"
	"github.com/xgr-sidecar/xgr/joinstore"
)

// sessionWatch follows every session the manager runs in xgr dev (the
// demo's, and any a client starts through the gateway): it prints
// "session N finished (…)" once as each ends, and the summary table.
type sessionWatch struct {
	store *joinstore.Store
	// home is the owner whose sessions are named by their root id alone.
	home string
	say  func(format string, args ...any)
	log  *slog.Logger

	mu    sync.Mutex
	roots []joinstore.Root
	known map[joinstore.Root]bool
	ended map[joinstore.Root]demo.Session
}

func newSessionWatch(store *joinstore.Store, home string, say func(string, ...any), log *slog.Logger) *sessionWatch {
	return &sessionWatch{store: store, home: home, say: say, log: log,
		known: map[joinstore.Root]bool{}, ended: map[joinstore.Root]demo.Session{}}
}

// add follows a session (safe to call for every event of it).
func (w *sessionWatch) add(r joinstore.Root) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.known[r] {
		w.known[r] = true
		w.roots = append(w.roots, r)
	}
}

// poll reads the sessions not yet seen finished, prints a line for each
// that has finished since, and returns how many have finished in all.
func (w *sessionWatch) poll(ctx context.Context) int {
	w.mu.Lock()
	var open []joinstore.Root
	for _, r := range w.roots {
		if _, done := w.ended[r]; !done {
			open = append(open, r)
		}
	}
	w.mu.Unlock()
	var ended []demo.Session
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
		w.say("%s\n", demo.FinishedLine(s, w.home))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.ended)
}

func (w *sessionWatch) read(ctx context.Context, r joinstore.Root) (demo.Session, error) {
	meta, err := w.store.Session(ctx, r)
	if err != nil {
		return demo.Session{}, err
	}
	procs, err := w.store.Processes(ctx, r)
	if err != nil {
		return demo.Session{}, err
	}
	s, err := demo.Judge(r, meta, procs)
	if err != nil {
		w.log.Warn("dev: session records", "session", r.String(), "err", err)
	}
	return s, err
}

// table writes the summary table of every session followed, the live ones
// read once more.
func (w *sessionWatch) table(ctx context.Context, out io.Writer) error {
	w.mu.Lock()
	roots := append([]joinstore.Root(nil), w.roots...)
	w.mu.Unlock()
	list := make([]demo.Session, 0, len(roots))
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
	demo.Sort(list, w.home)
	return demo.WriteTable(out, list, w.home)
}
