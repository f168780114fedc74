package difftest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
)

// forcer makes a reactor.Runner execute processes in the order the
// replicas committed them. The Runner picks the first iter of its due-set
// read (Store.DueIters); a go-redis hook on the Runner's client (forceHook)
// replaces that reply with the iter of the process whose path is next in
// the replicas' order, or with nothing while that process is not due yet
// on the Runner's virtual clock, whose Advance then jumps to its due time.
// Everything else the Runner does is its own: which processes exist, are
// waiting and due, every commit, join step, gate and kill. When the
// process the replicas ran next is not waiting and due in the Runner, the
// drivers diverged: the forcer records why and lets the Runner go on in
// its own order.
type forcer struct {
	root joinstore.Root
	// read is a store on a client without the hook, for the forcer's reads.
	read *joinstore.Store
	raw  redis.UniversalClient
	seq  []string // paths in the replicas' commit order
	pos  int

	clock    time.Time
	jump     time.Time // a due time Advance must reach
	expect   string    // the pid the Runner must claim next
	tries    int       // due-set reads that offered expect without a claim
	free     bool      // forcing stopped (sequence done, or a divergence)
	problems []string
	executed map[string]int
}

func (f *forcer) now() time.Time { return f.clock }

func (f *forcer) advance(t time.Time) {
	if f.jump.After(t) {
		t = f.jump
	}
	f.jump = time.Time{}
	if t.After(f.clock) {
		f.clock = t
	}
}

func (f *forcer) event(e reactor.Event) {
	switch e.Type {
	case "executed":
		f.executed[e.Pid]++
	case "claimed":
		if f.free {
			return
		}
		if e.Pid != f.expect {
			f.diverged("the Runner claimed %s (%s), but the replicas' next commit was %s", e.Pid, e.Step, f.seq[f.pos])
			return
		}
		f.pos++
		f.expect, f.tries = "", 0
	}
}

func (f *forcer) diverged(format string, args ...any) {
	f.problems = append(f.problems, fmt.Sprintf("step %d of the replicas' order: ", f.pos+1)+fmt.Sprintf(format, args...))
	f.free = true
}

// pick rewrites the reply of one due-set read of the Runner (now: the read's
// upper bound, ms).
func (f *forcer) pick(ctx context.Context, cmd *redis.StringSliceCmd, nowMs int64) error {
	if f.free {
		return nil
	}
	if f.pos >= len(f.seq) {
		// The replicas committed nothing more; whatever the Runner still
		// finds due shows up in the comparison of the trees.
		f.free = true
		return nil
	}
	want := f.seq[f.pos]
	recs, err := f.read.Processes(ctx, f.root)
	if err != nil {
		return err
	}
	sum, err := reactor.Summarize(recs)
	if err != nil {
		return err
	}
	var found *reactor.ProcessSummary
	for pid, p := range paths(sum.Processes) {
		if p == want {
			for i := range sum.Processes {
				if sum.Processes[i].Pid == pid {
					found = &sum.Processes[i]
				}
			}
		}
	}
	switch {
	case found == nil:
		f.diverged("the replicas ran %s; the Runner has no such process", want)
		return nil
	case found.Status != "waiting":
		f.diverged("the replicas ran %s; in the Runner it is %s (%s) when it would run", want, found.Status, found.Reason)
		return nil
	}
	iter := strconv.FormatInt(iterOf(found.Pid), 10)
	score, err := f.raw.ZScore(ctx, dueKey(f.root), iter).Result()
	if errors.Is(err, redis.Nil) {
		f.diverged("the replicas ran %s; in the Runner it is waiting but not due (an undecided join target, or paused)", want)
		return nil
	}
	if err != nil {
		return err
	}
	if found.Pid == f.expect {
		if f.tries++; f.tries > 3 {
			f.diverged("the replicas ran %s; the Runner does not claim it although it is waiting and due", want)
			return nil
		}
	}
	f.expect = found.Pid
	if int64(score) <= nowMs {
		cmd.SetVal([]string{iter})
		return nil
	}
	cmd.SetVal(nil)
	f.jump = time.UnixMilli(int64(score))
	return nil
}

// dueKey is the session's due set (joinstore's key layout, read here only
// to recognise the Runner's due-set reads).
func dueKey(r joinstore.Root) string { return fmt.Sprintf("xgr:{%s:%d}:due", r.Owner, r.RootPid) }

// forceHook routes the Runner's due-set reads (ZRANGE key -inf now BYSCORE
// ...) of sessions with a forcer to it.
type forceHook struct {
	forcers sync.Map // due key -> *forcer
}

func (h *forceHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *forceHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *forceHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		args := cmd.Args()
		if err != nil || cmd.Name() != "zrange" || len(args) < 5 || !strings.EqualFold(fmt.Sprint(args[4]), "byscore") {
			return err
		}
		f, ok := h.forcers.Load(fmt.Sprint(args[1]))
		if !ok {
			return nil
		}
		sc, ok := cmd.(*redis.StringSliceCmd)
		if !ok {
			return nil
		}
		nowMs, perr := strconv.ParseInt(fmt.Sprint(args[3]), 10, 64)
		if perr != nil {
			return fmt.Errorf("difftest: due-set read up to %v: %w", args[3], perr)
		}
		return f.(*forcer).pick(ctx, sc, nowMs)
	}
}
