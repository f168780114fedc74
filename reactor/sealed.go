package reactor

import (
	"errors"
	"fmt"

	"github.com/xgr-sidecar/xgr/execution"
)

// Sealed steps (docs/runtime.md, "Sealed steps"): a step whose rule asks
// for sealed logs — either of its branches says encryptLogs: true — keeps
// every value derived from its payload inside its sealed log bundle. Its
// abort reason, its reasons for being invalid, its execution's target and
// revert reason and the errors of its retries are named in the timeline
// (events, and so spans and the console), in log lines and in the
// process record only in a form that quotes no payload value; the full
// text goes into the bundle, which is sealed whatever the step's outcome
// (aborted, invalid, flipped after a revert), or not stored at all when it
// cannot be sealed. The functions here are pure: the machine calls them
// where it builds details and commits.

// RedactedError is an error that can say what happened without quoting a
// value of the step's payload (e.g. "rules[2] (abortStep) holds"): a sealed
// step's abort reason outside its bundle is Redacted() rather than the
// generic SealedReason.
type RedactedError interface {
	error
	Redacted() string
}

// SealedReason is the abort reason a sealed step records outside its
// bundle when its error offers no RedactedError text.
func SealedReason(step string) string {
	return fmt.Sprintf("step %s aborted; the reason is in its sealed log bundle (its rule says encryptLogs)", step)
}

// sealedWithheld ends a detail whose error text a sealed step withholds.
const sealedWithheld = "details withheld: the step's logs are sealed"

// sealed reports whether a result's step seals its evidence: its rule asks
// for sealed logs (Sealed), or its selected branch's bundle policy says
// encryptLogs.
func (r Result) sealed() bool {
	return r.Sealed || (r.Evidence != nil && r.Evidence.Policy.Encrypt)
}

// publicReason is err as the abort reason of a step outside its bundle:
// its text, or for a sealed step its RedactedError text or SealedReason.
func publicReason(step string, err error, sealed bool) string {
	if !sealed {
		return fmt.Sprint(err)
	}
	var re RedactedError
	if errors.As(err, &re) {
		return re.Redacted()
	}
	return SealedReason(step)
}

// publicErr is an error of a retry as a timeline detail shows it.
func publicErr(err error, sealed bool) string {
	if sealed {
		return sealedWithheld
	}
	return fmt.Sprint(err)
}

// publicOutcome describes an execution's outcome for the timeline: a
// sealed step's without its revert reason or loss error (they may quote
// the call's arguments).
func publicOutcome(o execution.Outcome, sealed bool) string {
	if !sealed {
		return describeOutcome(o)
	}
	s := fmt.Sprintf("tx %s in block %d, gas %d: ", o.TxHash.Hex(), o.Block, o.GasUsed)
	switch {
	case o.Lost:
		return "lost (" + sealedWithheld + ")"
	case o.Status == 1:
		return s + "success"
	}
	return s + "reverted (" + sealedWithheld + ")"
}

// flipEvidence is the evidence of a step flipped to onInvalid after its
// onValid execution (rec) reverted, given the onInvalid branch's (ev, nil
// when the Flipper gave none): the onInvalid branch's settings
// (encryptLogs, logExpireDays, grants) and the evaluation's saves; a step
// that was sealed stays sealed whatever the onInvalid branch says (its
// inputs are the ones the rule's author asked to seal). Without ev, the
// onValid evaluation's rule, hash and saves with the operator's defaults,
// sealed as the step was.
func flipEvidence(rec execRecord, ev *EvidenceInput) *EvidenceInput {
	var out EvidenceInput
	switch {
	case ev != nil:
		out = *ev
	case rec.Evidence != nil:
		out = *rec.Evidence
		out.Policy.ExpireDays, out.Policy.Grants = 0, nil
	default:
		if !rec.Sealed {
			return nil
		}
	}
	if rec.Sealed || (rec.Evidence != nil && rec.Evidence.Policy.Encrypt) {
		out.Policy.Encrypt = true
	}
	return &out
}

// keptOutcome is an execution's outcome as the process record keeps it
// (execOutcome): a sealed step's without its revert reason and loss error.
func keptOutcome(o execution.Outcome, sealed bool) execution.Outcome {
	if sealed {
		o.RevertReason, o.Error = "", ""
	}
	return o
}
