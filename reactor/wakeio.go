package reactor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// Wake wakes processes of root: the named iters (pid mode) or every process
// waiting on req.Step (step mode), as DecideWake allows. id, when not
// empty, makes the wake happen at most once; by names the waker in the
// session's history. It returns what the store did and a note per
// candidate.
func Wake(ctx context.Context, store *joinstore.Store, root joinstore.Root, id string, iters []int64, req WakeRequest, by string, now time.Time) (joinstore.WakeResult, []WakeNote, error) {
	var notes []WakeNote
	if req.MaxPayload == 0 {
		req.MaxPayload = store.MaxPayload()
	}
	res, err := store.Wake(ctx, root, id, req.Step, iters, now, by, func(procs []joinstore.WaitingProc) ([]joinstore.Waking, error) {
		picks, n, err := DecideWake(req, procs)
		notes = n
		return picks, err
	})
	return res, notes, err
}

// performWakes carries out wake-ups that commits of root queued, each at
// most once, and records each outcome in root's history. A wake-up whose
// target is gone, not waiting or not allowing it is a recorded no-op. An
// error leaves the rest queued for the next attempt (recovery performs
// them). clock gives the time (a virtual one in simulation); poke, when set, tells a local actor of a woken session to look.
func performWakes(ctx context.Context, store *joinstore.Store, root joinstore.Root, wakes []joinstore.PendingWake, clock func() time.Time, emit func(Event), poke func(joinstore.Root)) error {
	for _, w := range wakes {
		now := clock()
		var e wakeEntry
		outcome := ""
		if err := json.Unmarshal(w.Entry, &e); err != nil {
			outcome = "no-op: unreadable wake-up: " + err.Error()
		}
		if outcome == "" {
			req, target, err := e.request()
			switch {
			case err != nil:
				outcome = "no-op: " + err.Error()
			case joinstore.CheckOwner(target.Owner) != nil || target.RootPid <= 0:
				outcome = fmt.Sprintf("no-op: no session %s:%d", e.Runner, e.Session)
			default:
				res, notes, err := Wake(ctx, store, target, w.ID, nil, req, "wake-up "+w.ID, now)
				switch {
				case errors.Is(err, joinstore.ErrNoSession):
					outcome = "no-op: no session " + target.String()
				case err != nil:
					return fmt.Errorf("wake-up %s: %w", w.ID, err)
				default:
					outcome = WakeOutcome(target, req.Step, res, notes)
					if len(res.Woken) > 0 && poke != nil {
						poke(target)
					}
				}
			}
		}
		if err := store.WakeDone(ctx, root, w, e.FromPid, e.FromStep, outcome, now); err != nil {
			return err
		}
		emit(Event{At: now, Type: "wakeup", Pid: e.FromPid, Step: e.Step, Detail: outcome})
	}
	return nil
}
