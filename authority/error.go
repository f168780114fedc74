package authority

import (
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// Reason is the stable reason of a refusal (the gateway's data.reason).
const Reason = "runner-not-authorized"

// Error is a refusal: the runner is neither owner nor executor of a
// contract the session needs.
type Error struct {
	Runner common.Address
	// Refused is the first contract that refuses the runner (the registry
	// before the rule contracts).
	Refused Row
	// Missing is how many of the contracts checked refuse the runner: all
	// of them, unless RulesUnchecked.
	Missing int
	// RulesUnchecked: the registry refused before its orchestration was
	// read, so its rule contracts were not judged (a runner that may not
	// run the registry costs no reads of its rules); Missing counts the
	// registry alone.
	RulesUnchecked bool
}

func (e *Error) Error() string {
	r := e.Refused
	var b strings.Builder
	fmt.Fprintf(&b, "runner %s is not authorized on %s %s", e.Runner.Hex(), r.Kind.Standard(), r.Contract.Hex())
	if len(r.Uses) > 0 {
		uses := make([]string, len(r.Uses))
		for i, u := range r.Uses {
			uses[i] = fmt.Sprintf("orchestration %q step %s", u.OstcID, strings.Join(u.Steps, ", "))
		}
		fmt.Fprintf(&b, " (used by %s)", strings.Join(uses, "; "))
	}
	switch {
	case r.Owner == nil && r.ExecutorList:
		b.WriteString(": the contract answers no owner() and its executor list (getExecutorList) does not hold the runner")
	case r.Owner == nil:
		b.WriteString(": the contract answers neither owner() nor getExecutorList() (no contract at this address, or not an XRC-729/XRC-137 contract), so nobody is authorized")
	case !r.ExecutorList:
		fmt.Fprintf(&b, ": only its owner %s may run it (the contract has no getExecutorList(), so it is owner-only, XRC-729 §4.2)", r.Owner.Hex())
	default:
		fmt.Fprintf(&b, ": the runner is not its owner %s and not on its executor list (getExecutorList); the owner allows it with addExecutor(%s)", r.Owner.Hex(), e.Runner.Hex())
	}
	switch {
	case e.RulesUnchecked:
		b.WriteString("; the rule contracts were not checked because the registry refuses first (xgr ostc coverage lists every contract)")
	case e.Missing > 1:
		fmt.Fprintf(&b, "; %d contracts refuse the runner in all (xgr ostc coverage lists them)", e.Missing)
	}
	return b.String()
}
