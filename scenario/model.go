package scenario

import (
	"time"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
	"github.com/xgr-sidecar/xgr/registry"
)

// The kinds of test-suite files.
const (
	KindMultiScenario = "xgr.multi-test-scenario"
	KindScenario      = "xgr.test-scenario"
	KindMultiPlan     = "xgr.multi-test-plan"
	KindPlan          = "xgr.test-plan"
)

// File is a parsed test-suite file: scenarios (a scenario file) or plans
// (a plan file), never both.
type File struct {
	Kind  string
	Title string
	// Scenarios run in order; each one deploys its own plans.
	Scenarios []*Scenario
	// Plans of a plan file run one after the other, each on its own.
	Plans []*Plan
}

// Scenario is a flow of steps over several plans' sessions.
type Scenario struct {
	Path  string
	ID    string
	Title string
	// Plans in document order, with their scenario keys.
	Plans []*Plan
	// Actors are the declared actor names in document order (empty: any
	// alias may be used).
	Actors []string
	// ActorAlias maps a declared actor name to its signer alias (usually
	// the same name).
	ActorAlias map[string]string
	Steps      []*Step
}

// Plan returns the plan with the given key (scenario key or bundle id), or nil.
func (s *Scenario) Plan(key string) *Plan {
	for _, p := range s.Plans {
		if p.Key == key {
			return p
		}
	}
	for _, p := range s.Plans {
		if p.BundleID == key {
			return p
		}
	}
	return nil
}

// Plan is one test plan: a bundle of XRC-137 rules and one XRC-729
// orchestration, how to start it, and what to expect.
type Plan struct {
	Path  string
	Key   string
	ID    string
	Title string
	// BundleID names the embedded bundle; OstcID the orchestration.
	BundleID string
	OstcID   string
	// OldHash is the ostcHash the plan recorded for the public deployment
	// (for the report; sessions run the hash of this run's text).
	OldHash string
	// Rules are the bundle's XRC-137 items in document order.
	Rules []*RuleItem
	// OSTC is the bundle's XRC-729 item.
	OSTC *OSTCItem
	// StartStep, Payload and WakeUp are the plan's runtime section.
	StartStep string
	Payload   map[string]any
	WakeUp    map[string]any
	// Expect is nil when the plan has no expectations section.
	Expect *Expectations
	Setup  []*SetupContract
	// OwnerAlias deploys the plan's contracts; StarterAlias starts its
	// sessions (both default to "owner").
	OwnerAlias, StarterAlias string

	doc *jsondoc.Value // the plan as parsed, for locating problems
}

// Rule returns the rule item with the given alias (or id), or nil.
func (p *Plan) Rule(alias string) *RuleItem {
	for _, r := range p.Rules {
		if r.Alias == alias {
			return r
		}
	}
	for _, r := range p.Rules {
		if r.ID == alias {
			return r
		}
	}
	return nil
}

// RuleItem is one XRC-137 item of a bundle.
type RuleItem struct {
	Path string
	// ID is the item's id (often its step); Alias its meta.alias (the name
	// $contract.address placeholders use; the id when there is none).
	ID, Alias string
	// Address is the item's address in the public deployment (lower-case
	// 0x hex), "" when it has none.
	Address string
	// Text is the rule document to deploy: the item without its bundle
	// bookkeeping members (id, bundleId, address, meta), 2-space indented,
	// members in document order, numbers as written. ${addr:KEY}
	// placeholders of setup contracts are still in it.
	Text []byte
	// AddrKeys are the setup-contract keys Text references as ${addr:KEY}.
	AddrKeys []string
}

// OSTCItem is the XRC-729 item of a bundle.
type OSTCItem struct {
	Path string
	// Raw is the orchestration text as found in the bundle.
	Raw []byte
	// Orchestration is Raw parsed.
	Orchestration *registry.Orchestration
	// StepRule maps each step id to the index in Plan.Rules of the rule
	// its "rule" names.
	StepRule map[string]int
}

// Step ids of the orchestration, in document order.
func (o *OSTCItem) Steps() []string {
	ids := make([]string, len(o.Orchestration.Steps))
	for i, s := range o.Orchestration.Steps {
		ids[i] = s.ID
	}
	return ids
}

// HasStep reports whether id is a step of the orchestration.
func (o *OSTCItem) HasStep(id string) bool { return o.Orchestration.Step(id) != nil }

// SetupContract is a helper contract a plan's rules refer to as ${addr:KEY}.
type SetupContract struct {
	Path string
	Key  string
	// Mode is "deploy" (compile Source and deploy ContractName) or "fixed"
	// (use Address).
	Mode         string
	ContractName string
	FileName     string
	Source       string
	// ConstructorArgs are the constructor's arguments (JSON values).
	ConstructorArgs []any
	// Address is a fixed or previously deployed address ("" when none).
	Address string
	// Always is true for the "deploy always" strategy; otherwise an
	// Address that holds code is reused.
	Always bool
	// By is the actor alias that deploys ("" = the plan's owner alias).
	By string
}

// Step types.
const (
	StartSession  = "startSession"
	WaitForStep   = "waitForStep"
	AssertSession = "assertSession"
)

// Step is one step of a scenario flow.
type Step struct {
	Path string
	ID   string
	Type string

	// startSession: the plan (by key) to start, as whom, where, with what.
	PlanKey   string
	Starter   string
	StartStep string
	// Payload overlays the plan's runtime payload (nil: none).
	Payload map[string]any
	// WakeUp is runtime.wakeUp of the step (nil: none).
	WakeUp map[string]any
	// SaveAs names the session for later steps.
	SaveAs string

	// waitForStep and assertSession: the session (a SaveAs name).
	Session string
	// waitForStep: the step and the status to reach, within Timeout,
	// looking every Poll.
	StepID  string
	Status  string
	Timeout time.Duration
	Poll    time.Duration

	// assertSession: what the session must show.
	Expect *Expectations
}

// Expectations are the checks on one session.
type Expectations struct {
	Path     string
	Timeline []*Group
	// FinalStatuses lists the accepted statuses of the final process (empty:
	// any); FinalStep its step ("": any).
	FinalStatuses []string
	FinalStep     string
	// FinalPath, FinalStepPath locate the two fields for the report.
	FinalStatusesPath, FinalStepPath string
}

// Group modes.
const (
	AllOf = "allOf"
	AnyOf = "anyOf"
)

// Group is one timeline entry: alternatives combined by Mode.
type Group struct {
	Path  string
	ID    string
	Label string
	Mode  string
	Alts  []*Alt
}

// Alt is one timeline check: the Occurrence-th process of StepID.
type Alt struct {
	Path       string
	StepID     string
	Occurrence int
	// Exist: whether such a process must exist (true) or must not (false).
	Exist bool
	// Valid is nil for any.
	Valid *bool
	// Status is "" for any, else waiting, running, done or aborted.
	Status string
	Input  []*Assertion
	API    []*Assertion
	Reads  []*Assertion
}

// Assertion checks one named value of a step: an input payload field, an
// API save alias or a contract-read key.
type Assertion struct {
	Path      string
	Field     string
	Op        string
	ValueType string
	// Value is the expected value as JSON-decoded (numbers as json.Number).
	Value any
}
