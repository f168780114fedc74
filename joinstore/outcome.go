package joinstore

import (
	"fmt"
	"strings"
)

// Outcome is how a finished session ended (docs/runtime.md "Session
// outcomes"). It is derived from the session's meta hash by OutcomeOf, the
// one definition every reader uses (CLI, console, gateway, metrics, logs).
type Outcome string

// Outcomes, strongest first: when several apply, the first wins.
const (
	// OutcomeKilled: an operator killed the session, or one of its
	// processes.
	OutcomeKilled Outcome = "killed"
	// OutcomeCancelled: a step's cancelSession rule ended the session.
	OutcomeCancelled Outcome = "cancelled"
	// OutcomeBudget: the session's gas (validation and execution) went
	// over its budget, the permit's maxTotalGas under the operator's
	// ceiling (XGR_SESSION_GAS_CEILING).
	OutcomeBudget Outcome = "budget"
	// OutcomeFailed: a step aborted with a hard error, a process was
	// abandoned after too many recoveries, or a cap (XGR_MAX_STEPS,
	// XGR_MAX_LIVE) killed the session.
	OutcomeFailed Outcome = "failed"
	// OutcomeUnfulfillable: a join could no longer close.
	OutcomeUnfulfillable Outcome = "unfulfillable"
	// OutcomeInvalid: a step evaluated invalid and led nowhere (its branch
	// spawned nothing and declared no join, and it is no join's producer).
	OutcomeInvalid Outcome = "invalid"
	// OutcomeOK: none of the above.
	OutcomeOK Outcome = "ok"
)

// Outcomes lists every outcome, strongest first.
var Outcomes = []Outcome{OutcomeKilled, OutcomeCancelled, OutcomeBudget, OutcomeFailed, OutcomeUnfulfillable, OutcomeInvalid, OutcomeOK}

// Kill kinds (meta field killKind): what set a session's killedAt.
const (
	KillKindKill   = "kill"
	KillKindCancel = "cancel"
	KillKindCap    = "cap"
	// KillKindQuota: a commit found its owner's live process quota spent
	// (docs/operating.md "Tenancy"); the outcome is failed, as for a cap.
	KillKindQuota  = "quota"
	KillKindBudget = "budget"
)

// OutcomeOf is a session's outcome, "" while it is live. The tallies and
// the kill mark are kept atomically by the transitions that cause them;
// this ranks them: killed > cancelled > budget > failed > unfulfillable > invalid >
// ok.
func OutcomeOf(m SessionMeta) Outcome {
	if m.Status != SessionFinished {
		return ""
	}
	killed := !m.KilledAt.IsZero()
	switch {
	case m.Killed > 0 || killed && (m.KillKind == KillKindKill || m.KillKind == ""):
		return OutcomeKilled
	case killed && m.KillKind == KillKindCancel:
		return OutcomeCancelled
	case killed && m.KillKind == KillKindBudget:
		return OutcomeBudget
	case m.Failed > 0 || killed:
		return OutcomeFailed
	case m.Unfulfillable > 0:
		return OutcomeUnfulfillable
	case m.InvalidEnds > 0:
		return OutcomeInvalid
	}
	return OutcomeOK
}

// ParseOutcome checks an outcome given as a filter (case-insensitive).
func ParseOutcome(s string) (Outcome, error) {
	for _, o := range Outcomes {
		if strings.EqualFold(s, string(o)) {
			return o, nil
		}
	}
	names := make([]string, len(Outcomes))
	for i, o := range Outcomes {
		names[i] = string(o)
	}
	return "", fmt.Errorf("outcome %q: want one of %s", s, strings.Join(names, ", "))
}
