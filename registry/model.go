package registry

import (
	"github.com/ethereum/go-ethereum/common"
)

// Orchestration is a parsed, validated OSTC. It is immutable after Parse and
// safe for concurrent use.
type Orchestration struct {
	// ID is the document's "id".
	ID string
	// Steps are the steps of "structure" in document order.
	Steps []*Step
	// Hash is keccak256 of the exact bytes parsed (the on-chain ostcHash).
	Hash common.Hash
	// Warnings lists what was accepted but looks unintended (unknown fields,
	// redundant settings, joins that can never close).
	Warnings []Problem

	raw   []byte
	index map[string]int
	reach *closure
}

// Step is one node of the graph: an XRC-137 rule and what follows it.
type Step struct {
	ID string
	// Index is the step's position in Orchestration.Steps.
	Index int
	// Rule references the XRC-137 rule contract: an address, a ${addr:ALIAS}
	// alias or a deployer placeholder such as <Step-Addr>, kept verbatim.
	Rule      string
	OnValid   *Branch
	OnInvalid *Branch

	off int // where the step's id stands in the document
}

// Branch says what happens after a step evaluated valid or invalid.
type Branch struct {
	// Outcome is OutcomeValid for onValid and OutcomeInvalid for onInvalid.
	Outcome Outcome
	// Spawns are the step ids started as new processes, in document order.
	Spawns []string
	// Join, when present, opens a join target fed by this branch's spawns.
	Join *Join
}

// Join declares a k-of-n join target fed by the producers of a fresh join group.
type Join struct {
	// Target is the join target's step id ("joinid").
	Target string
	// Mode is how k was given; K is the resolved threshold, 1 <= K <= len(From).
	Mode   Mode
	K      int
	Policy Policy
	From   []From
}

// From is one expected producer step of a join.
type From struct {
	Node string
	When When
}

// Outcome names a branch: the rule's verdict that selects it.
type Outcome uint8

// The two outcomes of a step.
const (
	OutcomeValid Outcome = iota
	OutcomeInvalid
)

func (o Outcome) String() string {
	if o == OutcomeInvalid {
		return "invalid"
	}
	return "valid"
}

// Field is the JSON member name of the branch ("onValid" or "onInvalid").
func (o Outcome) Field() string {
	if o == OutcomeInvalid {
		return "onInvalid"
	}
	return "onValid"
}

// Mode is the join mode as written; the threshold is Join.K.
type Mode uint8

// Join modes. ModeKofN covers "kofn" with "k" and the {"k":n} / {"kofn":n} objects.
const (
	ModeAny Mode = iota
	ModeAll
	ModeKofN
)

func (m Mode) String() string {
	switch m {
	case ModeAll:
		return "all"
	case ModeKofN:
		return "kofn"
	default:
		return "any"
	}
}

// When filters which outcome of a producer counts for a join input.
type When uint8

// Accepted outcomes of a join input; "" and "both" normalise to WhenAny.
const (
	WhenAny When = iota
	WhenValid
	WhenInvalid
)

func (w When) String() string {
	switch w {
	case WhenValid:
		return "valid"
	case WhenInvalid:
		return "invalid"
	default:
		return "any"
	}
}

// Accepts reports whether an outcome satisfies the filter.
func (w When) Accepts(valid bool) bool {
	return w == WhenAny || (w == WhenValid) == valid
}

// Policy is "waitonjoin": what happens to the rest of a join group once the join is decided.
type Policy uint8

// Join policies; drain is the default when "waitonjoin" is absent.
const (
	PolicyDrain Policy = iota
	PolicyKill
)

func (p Policy) String() string {
	if p == PolicyKill {
		return "kill"
	}
	return "drain"
}

// Step returns the step with the given id, or nil.
func (o *Orchestration) Step(id string) *Step {
	if i, ok := o.index[id]; ok {
		return o.Steps[i]
	}
	return nil
}

// StartStep is the step a start begins at: requested, or the document's
// first step when none is requested (every front door's default; a parsed
// orchestration has at least one step). It does not check that requested
// names a step: the start use case refuses an unknown one.
func (o *Orchestration) StartStep(requested string) string {
	if requested != "" {
		return requested
	}
	return o.Steps[0].ID
}

// Raw returns the exact bytes the orchestration was parsed from. The caller
// must not modify them.
func (o *Orchestration) Raw() []byte { return o.raw }

// Branch returns onValid or onInvalid; nil when the step has none.
func (s *Step) Branch(o Outcome) *Branch {
	if o == OutcomeInvalid {
		return s.OnInvalid
	}
	return s.OnValid
}

// Branches returns the step's branches that exist, onValid first.
func (s *Step) Branches() []*Branch {
	out := make([]*Branch, 0, 2)
	for _, b := range [...]*Branch{s.OnValid, s.OnInvalid} {
		if b != nil {
			out = append(out, b)
		}
	}
	return out
}
