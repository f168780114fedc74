package session

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
)

// NewStartKey is a generated idempotency key for a start the caller gave
// none: "cli-" and 16 random bytes in hex.
func NewStartKey() string {
	b := make([]byte, 16)
	rand.Read(b)
	return "cli-" + hex.EncodeToString(b)
}

// NotThisStart says that a session is not the one a start key names: the
// session was started with the key have ("" for none), not key.
func NotThisStart(root joinstore.Root, key, have string) string {
	if have == "" {
		have = "none"
	}
	return fmt.Sprintf("session %d of %s was not started with key %s (its start key: %s): not this start — Redis lost acknowledged writes and the id went to another start; start again with --key %s",
		root.RootPid, root.Owner, key, have, key)
}

// ListRequest asks for a page of an owner's sessions.
type ListRequest struct {
	Owner string
	// Offset skips this many index entries; Limit returns at most this
	// many sessions (20 when 0).
	Offset, Limit int
	// Asc lists the oldest first.
	Asc bool
	// Outcome, when set, keeps only finished sessions with it.
	Outcome joinstore.Outcome
}

// listScan bounds how many index entries one filtered list reads.
const listScan = 10000

// IndexError is a failure to read an owner's session index (a refused
// owner or page), as opposed to a failure to read one session's record.
type IndexError struct{ Err error }

func (e *IndexError) Error() string { return e.Err.Error() }
func (e *IndexError) Unwrap() error { return e.Err }

// List reads an owner's sessions from r.Offset, at most r.Limit; with an
// outcome, only finished sessions with it, reading further pages of the
// index until Limit match or listScan entries were read. A session that
// expired since the index was read is left out. A failure to read the
// index is an *IndexError.
func List(ctx context.Context, s *joinstore.Store, r ListRequest) ([]joinstore.SessionMeta, error) {
	limit := r.Limit
	if limit <= 0 {
		limit = 20
	}
	rows := []joinstore.SessionMeta{}
	for scanned := 0; scanned < listScan; {
		refs, err := s.Sessions(ctx, r.Owner, r.Offset+scanned, limit, r.Asc)
		if err != nil {
			return nil, &IndexError{err}
		}
		for _, ref := range refs {
			meta, err := s.SessionMeta(ctx, ref.Root)
			if errors.Is(err, joinstore.ErrNotFound) {
				continue // expired since the index was read
			}
			if err != nil {
				return nil, err
			}
			if r.Outcome == "" || joinstore.OutcomeOf(meta) == r.Outcome {
				rows = append(rows, meta)
			}
			if len(rows) == limit {
				return rows, nil
			}
		}
		if r.Outcome == "" || len(refs) < limit {
			break
		}
		scanned += len(refs)
	}
	return rows, nil
}

// WriteList writes sessions as a table (SESSION, CREATED, STATUS, OUTCOME,
// LIVE, ORCHESTRATION, START), or a line saying there are none.
func WriteList(w io.Writer, owner string, offset int, rows []joinstore.SessionMeta) error {
	if len(rows) == 0 {
		var err error
		if offset > 0 {
			_, err = fmt.Fprintf(w, "no sessions of %s past the first %d\n", owner, offset)
		} else {
			_, err = fmt.Fprintf(w, "no sessions of %s\n", owner)
		}
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tCREATED\tSTATUS\tOUTCOME\tLIVE\tORCHESTRATION\tSTART")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\n", r.RootPid, r.CreatedAt.UTC().Format(time.RFC3339), r.Status,
			cmp.Or(string(joinstore.OutcomeOf(r)), "-"), r.Live, r.OstcID, r.StartStep)
	}
	return tw.Flush()
}

// View is one session as an operator inspects it: its record, processes,
// their summary and its history.
type View struct {
	Root      joinstore.Root           `json:"-"`
	Session   joinstore.SessionMeta    `json:"session"`
	Processes []joinstore.Process      `json:"processes"`
	Summary   reactor.Summary          `json:"summary"`
	History   []joinstore.HistoryEntry `json:"history"`
}

// NotThisStartError: the session was not started with the start key
// Inspect was asked to check (Have is the key it was started with).
type NotThisStartError struct {
	Root      joinstore.Root
	Key, Have string
}

func (e *NotThisStartError) Error() string { return NotThisStart(e.Root, e.Key, e.Have) }

// Inspect reads a session. With key not empty it refuses a session that
// was not started with that key (a *NotThisStartError).
func Inspect(ctx context.Context, s *joinstore.Store, root joinstore.Root, key string) (*View, error) {
	meta, err := s.SessionMeta(ctx, root)
	if err != nil {
		return nil, err
	}
	if key != "" && meta.StartKey != key {
		return nil, &NotThisStartError{Root: root, Key: key, Have: meta.StartKey}
	}
	procs, err := s.Processes(ctx, root)
	if err != nil {
		return nil, err
	}
	sum, err := reactor.Summarize(procs)
	if err != nil {
		return nil, err
	}
	history, err := s.History(ctx, root)
	if err != nil {
		return nil, err
	}
	if procs == nil {
		procs = []joinstore.Process{}
	}
	return &View{Root: root, Session: meta, Processes: procs, Summary: sum, History: history}, nil
}

// WriteText writes the session's line, its process tree and its wake-up
// history.
func (v *View) WriteText(w io.Writer) {
	meta := v.Session
	fmt.Fprintf(w, "session %d of %s: %s", v.Root.RootPid, v.Root.Owner, meta.Status)
	if o := joinstore.OutcomeOf(meta); o != "" {
		fmt.Fprintf(w, ", outcome %s", o)
	}
	fmt.Fprintf(w, " (ostc %s, hash %s), %d live, gas used %d", meta.OstcID, meta.OstcHash, meta.Live, meta.GasUsed)
	if meta.KillReason != "" {
		fmt.Fprintf(w, ", killed: %s", meta.KillReason)
	}
	if meta.StartKey != "" {
		fmt.Fprintf(w, ", start key %s", meta.StartKey)
	}
	fmt.Fprintln(w)
	if meta.Stalled != "" && meta.Status == joinstore.SessionLive {
		fmt.Fprintf(w, "stalled since %s: %s (replica %s, %d time(s) in a row; tried again after a backoff; xgr_session_stalls_total)\n",
			meta.StalledAt.UTC().Format(time.RFC3339), meta.Stalled, meta.StalledBy, meta.Stalls)
	}
	reactor.WriteTree(w, v.Processes, v.Summary)
	for _, h := range v.History {
		switch h.Event {
		case joinstore.EventWakeUp:
			fmt.Fprintf(w, "wake-up from %s (%s): %s\n", h.Pid, h.Step, h.Outcome)
		case joinstore.EventWoken:
			fmt.Fprintf(w, "%s (%s) woken by %s\n", h.Pid, h.Step, h.By)
		}
	}
}

// ParseIters reads pids of one session, each "ROOTPID:ITER" or just the
// iteration "ITER", into iterations; a pid of another session is refused.
func ParseIters(root joinstore.Root, pids []string) ([]int64, error) {
	out := make([]int64, 0, len(pids))
	for _, p := range pids {
		if !strings.Contains(p, ":") {
			p = fmt.Sprint(root.RootPid) + ":" + p
		}
		r, it, err := joinstore.ParsePid(p)
		if err != nil {
			return nil, err
		}
		if r != root.RootPid {
			return nil, fmt.Errorf("pid %s is not in session %d", p, root.RootPid)
		}
		out = append(out, it)
	}
	return out, nil
}
