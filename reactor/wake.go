package reactor

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor/wakeup"
)

// WakeRequest is one wake of a session's waiting processes: an XRC-137
// wake-up of another session (scope internal), or an operator's or
// external caller's wake (scope rpc).
type WakeRequest struct {
	// Runner is the target session's owner.
	Runner string
	// Step, in step mode, is the step the processes to wake wait on; ""
	// in pid mode (the candidates are the processes named).
	Step string
	// Caller is who wakes, under which scope. Operator skips the allow
	// list: a privileged operator with direct access to Redis.
	Caller   wakeup.Caller
	Operator bool
	// Base (the producing step's output) and Overlay (the wake-up's own
	// payload) are merged into each woken process's payload in that order
	// (rule spec §8.5.3); both nil keeps the payload as it is.
	Base, Overlay map[string]any
	// MaxPayload caps a woken process's merged payload in bytes (0: no cap;
	// Wake sets the store's).
	MaxPayload int
}

// ParseWakePayload reads a payload a wake merges (from the gateway, the
// CLI or the console): a JSON object of the shape
// joinstore.CheckPayloadShape allows (nesting, no duplicate names), with
// numbers kept exact.
func ParseWakePayload(raw []byte) (map[string]any, error) {
	if err := joinstore.CheckPayloadShape("the wake payload", raw); err != nil {
		return nil, err
	}
	return UnmarshalPayload(raw)
}

// WakeNote says what a wake did with one candidate process.
type WakeNote struct {
	Pid    string `json:"pid"`
	Woken  bool   `json:"woken"`
	Reason string `json:"reason"`
}

// DecideWake picks the processes a wake wakes and their merged payloads: a
// candidate must be waiting (on req.Step in step mode), not killed, not a
// join target before its join closed, and the caller must be its runner or
// allowed by its `__wakeUp` list under the caller's scope. It is pure.
func DecideWake(req WakeRequest, procs []joinstore.WaitingProc) ([]joinstore.Waking, []WakeNote, error) {
	var picks []joinstore.Waking
	notes := make([]WakeNote, 0, len(procs))
	for _, p := range procs {
		note := WakeNote{Pid: p.Pid}
		switch {
		case p.Killed:
			note.Reason = "killed"
		case p.Status != "waiting":
			note.Reason = "not waiting (" + string(p.Status) + ")"
		case req.Step != "" && p.Step != req.Step:
			note.Reason = fmt.Sprintf("waits on %q, not %q", p.Step, req.Step)
		case p.JoinOpen:
			note.Reason = "a join target whose join is still open: it runs only when its join closes"
		}
		if note.Reason != "" {
			notes = append(notes, note)
			continue
		}
		plain, err := UnmarshalPayload(p.Plain)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: resumePlain: %w", p.Pid, err)
		}
		if !req.Operator {
			d := wakeup.Authorize(req.Runner, p.Step, plain, req.Caller)
			if !d.Allowed {
				note.Reason = "denied: " + d.Reason
				notes = append(notes, note)
				continue
			}
			note.Reason = d.Reason
		} else {
			note.Reason = "operator"
		}
		w := joinstore.Waking{Iter: p.Iter, UpdatedAt: p.UpdatedAt}
		if req.Base != nil || req.Overlay != nil {
			w.Plain = MarshalPayload(wakeup.Merge(plain, req.Base, req.Overlay))
			if req.MaxPayload > 0 && len(w.Plain) > req.MaxPayload {
				note.Reason = fmt.Sprintf("not woken: the merged payload would be %d bytes, at most %d are allowed", len(w.Plain), req.MaxPayload)
				notes = append(notes, note)
				continue
			}
			if err := joinstore.CheckPayloadShape("the merged payload", w.Plain); err != nil {
				note.Reason = "not woken: " + err.Error()
				notes = append(notes, note)
				continue
			}
		}
		picks = append(picks, w)
		note.Woken = true
		notes = append(notes, note)
	}
	return picks, notes, nil
}

// WakeOutcome is the one-line account of a wake for timelines and history:
// "woke 7:3 (…)", or why it was a no-op.
func WakeOutcome(target joinstore.Root, step string, res joinstore.WakeResult, notes []WakeNote) string {
	switch {
	case res.Duplicate:
		return "already performed"
	case res.Killed:
		return "no-op: session " + target.String() + " was killed"
	}
	var woken, other []string
	for _, n := range notes {
		if n.Woken {
			woken = append(woken, n.Pid)
		} else {
			other = append(other, n.Pid+" "+n.Reason)
		}
	}
	if len(woken) > 0 {
		s := "woke " + strings.Join(woken, ", ") + " of " + target.String()
		if len(other) > 0 {
			s += "; not " + strings.Join(other, "; ")
		}
		return s
	}
	if len(other) == 0 {
		if step == "" {
			return "no-op: nothing to wake in " + target.String()
		}
		return fmt.Sprintf("no-op: no process of %s waits on step %q", target, step)
	}
	return "no-op: " + strings.Join(other, "; ")
}

// wakeEntry is the queued form of a rule's wake-up (joinstore
// Commit.WakeUps): what the engine needs to perform it after the commit.
type wakeEntry struct {
	FromPid  string          `json:"fromPid"`
	FromStep string          `json:"fromStep"`
	Waker    string          `json:"waker"`
	Runner   string          `json:"runner"`
	Session  int64           `json:"sessionId"`
	Step     string          `json:"stepId"`
	Rule     string          `json:"rule,omitempty"`
	Base     json.RawMessage `json:"base"`
	Payload  json.RawMessage `json:"payload,omitempty"`
}

// wakeEntries encodes a result's wake-ups for the commit of c; base is the
// step's output, which every wake-up overlays first.
func wakeEntries(c joinstore.Claim, res Result) []json.RawMessage {
	if len(res.WakeUps) == 0 {
		return nil
	}
	base := MarshalPayload(res.Output)
	out := make([]json.RawMessage, len(res.WakeUps))
	for i, w := range res.WakeUps {
		e := wakeEntry{FromPid: c.Pid, FromStep: c.ResumeStep, Waker: c.Root.Owner, Runner: joinstore.NormalizeOwner(w.Runner),
			Session: w.Session, Step: w.Step, Rule: w.Rule, Base: base}
		if w.Payload != nil {
			e.Payload = MarshalPayload(w.Payload)
		}
		b, err := json.Marshal(e)
		if err != nil {
			panic("reactor: wake-up is not JSON: " + err.Error())
		}
		out[i] = b
	}
	return out
}

// request is the wake an entry asks for.
func (e wakeEntry) request() (WakeRequest, joinstore.Root, error) {
	target := joinstore.Root{Owner: joinstore.NormalizeOwner(e.Runner), RootPid: e.Session}
	req := WakeRequest{Runner: target.Owner, Step: e.Step,
		Caller: wakeup.Caller{Scope: wakeup.ScopeInternal, Address: e.Waker, Rule: e.Rule}}
	var err error
	if req.Base, err = UnmarshalPayload([]byte(orObject(e.Base))); err != nil {
		return req, target, fmt.Errorf("wake-up base payload: %w", err)
	}
	if len(e.Payload) > 0 {
		if req.Overlay, err = UnmarshalPayload(e.Payload); err != nil {
			return req, target, fmt.Errorf("wake-up payload: %w", err)
		}
	}
	return req, target, nil
}
