package reactor

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
)

// The session machine's commit of an execution's result (machine.commit):
// what the execution gave back (result) and the commit it becomes
// (commitFor). Pure: the machine builds the commit, a driver only sends
// it (cmdCommit).

// result is one execution's outcome.
type result struct {
	claim joinstore.Claim
	res   Result
	err   error
	input map[string]any
	// inputRaw is the input as stored: passed on unchanged when the step
	// adds nothing to it.
	inputRaw json.RawMessage
	// done, when set, finishes an execution (or a step that must not
	// execute): it commits as it is (execstep.go).
	done *execDone
}

// commitFor turns an execution's outcome into the commit of its process:
// payload flow, the children of the selected branch and its wake-ups; a
// hard error aborts the process with the error as its reason. The detail
// is the timeline's account of the execution.
func commitFor(c joinstore.Claim, step *registry.Step, check payloadChecks, r result, now time.Time, worker string) (joinstore.Commit, string, map[string]any) {
	commit := joinstore.Commit{Status: "done", Worker: worker, Gas: r.res.ValidationGas}
	if r.done != nil {
		commit.Gas += r.done.gasUsed
	}
	detail := "valid"
	var next map[string]any
	if r.err == nil && step != nil {
		// A payload over the cap aborts the step: nothing it asked for
		// happens (children, wake-ups), and its payload stays the input.
		var err error
		if addsNothing(r.res.Output) && r.inputRaw != nil {
			// The payload passes through: no decode and encode round trip,
			// and its shape was checked when it was stored.
			next, commit.Payload = r.input, r.inputRaw
			err = check.size("the step's next payload", commit.Payload)
		} else {
			next = NextPayload(r.input, r.res.Output)
			commit.Payload = MarshalPayload(next)
			err = check.all("the step's next payload", commit.Payload)
		}
		if err != nil {
			r.err = fmt.Errorf("step %s: %w", c.ResumeStep, err)
		}
	}
	// A sealed step's process is marked sealed (views show none of its
	// payload values) and its execution record is dropped at commit.
	commit.Sealed = r.res.sealed()
	if r.err != nil || step == nil {
		commit.Status = "aborted"
		detail = fmt.Sprint(r.err)
		if r.err != nil {
			// A sealed step's reason quotes no payload value here: its
			// full text is in its sealed bundle (bundleFor).
			detail = publicReason(c.ResumeStep, r.err, r.res.sealed())
		}
		commit.AbortReason = detail
		if errors.Is(r.err, ErrCancelSession) {
			commit.CancelSession = detail
		}
		next = nil
		if r.inputRaw != nil && r.input != nil {
			commit.Payload = r.inputRaw
		} else {
			commit.Payload = MarshalPayload(r.input)
		}
	} else {
		commit.Valid = &r.res.Valid
		if !r.res.Valid {
			detail = "invalid"
			switch {
			case len(r.res.Reasons) > 0 && r.res.sealed():
				detail += " (its reasons are in its sealed log bundle)"
			case len(r.res.Reasons) > 0:
				detail += ": " + strings.Join(r.res.Reasons, "; ")
			}
		}
		if len(r.res.NotPerformed) > 0 {
			detail += " (not performed: " + strings.Join(r.res.NotPerformed, ", ") + ")"
		}
		commit.WakeUps = wakeEntries(c, r.res)
	}
	if step != nil {
		commit.Children = Children(step, r.err != nil, r.res.Valid, Parent{Group: c.JoinGroupID, FirstChild: c.FirstChild}, commit.Payload, now, r.res.Wait)
	}
	return commit, detail, next
}

// payloadChecks are the store's payload checks (machineConfig.Check and
// CheckSize).
type payloadChecks struct {
	all, sizeOnly func(what string, p []byte) error
}

// size checks a stored payload passed on unchanged: its size only, when
// there is a size check of its own.
func (c payloadChecks) size(what string, p []byte) error {
	if c.sizeOnly == nil {
		return c.all(what, p)
	}
	return c.sizeOnly(what, p)
}

// addsNothing reports whether an output leaves the next payload equal to
// the input (no key, or only "_" keys, which NextPayload drops).
func addsNothing(output map[string]any) bool {
	for k := range output {
		if !strings.HasPrefix(k, "_") {
			return false
		}
	}
	return true
}
