package session

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
)

// Starter starts sessions: the start use case. Its fields are what a front
// door's runtime has; a Starter is a value, safe for concurrent use when
// its parts are.
type Starter struct {
	// Store is where the session is created; its payload cap applies.
	Store *joinstore.Store
	// Source serves the orchestrations (the indexer's hash-verified cache,
	// or the files a command was given).
	Source reactor.Source
	// Authority judges the runner on the registry and on every rule
	// contract the orchestration references (XRC-729 §3.1, §4.2). nil runs
	// without a chain: no authority is read, and a start under an on-chain
	// registry is refused (KindAuthorityRequired) unless Trusted.
	Authority *authority.Checker
	// Trusted starts sessions for the operator's own tooling on its own
	// deployments (xgr bench, xgr scenario run, xgr dev's demo flows): a
	// start under an on-chain registry needs no Authority. Front doors
	// that serve anyone else never set it.
	Trusted bool
	// Rules resolves the steps' rule references as the runtime that runs
	// the session resolves them (its *rulesource.Loader;
	// authority.ScriptedSteps for one that plays uncovered steps from
	// scripted outcomes). nil: the Authority's resolver
	// (authority.Checker.WithRules); without an Authority either, the
	// references are not resolved at start.
	Rules authority.Resolver
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Start checks req and creates its session, in the order the package doc
// gives; a refusal is an *Error and writes nothing. A request whose Key
// started a session before answers that session (Started.Replayed).
func (s Starter) Start(ctx context.Context, req Request) (Started, error) {
	req.Owner = joinstore.NormalizeOwner(req.Owner)
	pin, bad := checkRequest(req)
	if bad != nil {
		return Started{}, bad
	}
	if len(req.Payload) == 0 || string(req.Payload) == "null" {
		req.Payload = json.RawMessage("{}")
	}
	if bad := checkPayload(s.Store, req.Payload); bad != nil {
		return Started{}, bad
	}
	runner := common.HexToAddress(req.Owner)
	if common.IsHexAddress(req.Registry) && (s.Authority != nil || !s.Trusted) {
		// The registry before its orchestration is read: a runner that may
		// not run it costs no more.
		if s.Authority == nil {
			return Started{}, refuse(KindAuthorityRequired, "registry", "a registry label such as \"file\", or a starter that reads the chain",
				fmt.Errorf("registry %s is on chain: the runner's authority on it must be checked, and this start has no node to check it on", req.Registry))
		}
		reg := common.HexToAddress(req.Registry)
		if bad := s.admit(ctx, runner, &reg, nil); bad != nil {
			return Started{}, bad
		}
	}
	o, bad := s.orchestration(ctx, req, pin)
	if bad != nil {
		return Started{}, bad
	}
	if s.Rules != nil || s.Authority != nil {
		if bad := s.admit(ctx, runner, nil, o); bad != nil {
			return Started{}, bad
		}
	}
	return s.create(ctx, req, o)
}

// checkRequest checks the request's own fields; pin is its OstcHash.
func checkRequest(req Request) (pin common.Hash, bad *Error) {
	if err := joinstore.CheckOwner(req.Owner); err != nil {
		return pin, invalid("owner", "an EVM address (0x and 40 hex digits): the session's runner", "%q", req.Owner)
	}
	if req.OstcHash != "" {
		digits := strings.TrimPrefix(strings.TrimPrefix(req.OstcHash, "0x"), "0X")
		b, err := hex.DecodeString(digits)
		if err != nil || len(b) != 32 {
			return pin, invalid("ostcHash", "32 bytes of hex (0x and 64 digits)", "%q", req.OstcHash)
		}
		pin = common.BytesToHash(b)
	}
	switch {
	case req.Step == "":
		return pin, invalid("step", "the id of the step the session starts at", "empty")
	case req.Key == "-":
		return pin, invalid("key", "any other key (\"-\" is reserved)", "%q", req.Key)
	case req.Window < 0:
		return pin, invalid("window", "0 (no cap) or more concurrent executions", "%d", req.Window)
	case req.RootPid < 0:
		return pin, invalid("rootPid", "the owner's next root pid (0: any)", "%d", req.RootPid)
	}
	return pin, nil
}

// orchestration fetches req's orchestration, pinned, and checks its start
// step.
func (s Starter) orchestration(ctx context.Context, req Request, pin common.Hash) (*registry.Orchestration, *Error) {
	o, err := s.Source.Orchestration(ctx, req.Registry, req.OstcID, pin)
	switch {
	case errors.Is(err, reactor.ErrUnknownOrchestration):
		return nil, refuse(KindUnknownOrchestration, "ostcId", "an orchestration recorded under "+req.Registry, fmt.Errorf("start %s/%s: %w", req.Registry, req.OstcID, err))
	case errors.Is(err, reactor.ErrHashMismatch):
		return nil, refuse(KindHashMismatch, "ostcHash", "the keccak256 of the orchestration's text", fmt.Errorf("start %s/%s: %w", req.Registry, req.OstcID, err))
	case err != nil:
		return nil, unavailable(fmt.Sprintf("start %s/%s: read the orchestration", req.Registry, req.OstcID), err)
	}
	if o.Step(req.Step) == nil {
		ids := stepIDs(o)
		return nil, refuse(KindUnknownStep, "step", "a step of "+o.ID+": "+strings.Join(ids, ", "),
			fmt.Errorf("start %s: %w: %q is not a step of %q (steps: %s)", req.OstcID, ErrUnknownStep, req.Step, o.ID, strings.Join(ids, ", ")))
	}
	return o, nil
}

// ErrUnknownStep: a start names a step its orchestration does not have
// (KindUnknownStep).
var ErrUnknownStep = errors.New("unknown start step")

// admit resolves the rule references of o (nil: none) as the runtime
// will, then, with an Authority, judges runner on reg (nil: none) and on
// every rule contract they resolve to (authority.Checker.Admit, or
// Authorize with the checker's own resolver when the Starter has no
// Rules).
func (s Starter) admit(ctx context.Context, runner common.Address, reg *common.Address, o *registry.Orchestration) *Error {
	var err error
	switch {
	case s.Authority == nil:
		_, err = authority.ResolvePlan(reg, s.Rules, o)
	case s.Rules == nil:
		err = s.Authority.Authorize(ctx, runner, reg, o)
	default:
		err = s.Authority.Admit(ctx, s.Rules, runner, reg, o)
	}
	var ue *authority.UnresolvedError
	var ae *authority.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ue):
		return refuse(KindRuleUnresolved, "structure."+ue.Step+".rule",
			"a 0x address, a reference the runtime's --rules DIR maps or the addresses: section of its --config binds", err)
	case errors.As(err, &ae):
		return refuse(KindNotAuthorized, "owner", "the owner or an executor (getExecutorList) of the registry and of every rule contract", err)
	}
	return unavailable("authority", err)
}

// create makes the session, its root process due at req.WakeAt with the
// start step's limits; the payload was checked (checkPayload).
func (s Starter) create(ctx context.Context, req Request, o *registry.Orchestration) (Started, error) {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	limits := reactor.Table(o)[req.Step]
	var quota *joinstore.QuotaError
	res, err := s.Store.Start(ctx, joinstore.StartRequest{
		Owner: req.Owner, IdempotencyKey: req.Key, XRC729: req.Registry, OstcID: req.OstcID, OstcHash: o.Hash.Hex(),
		StartStep: req.Step, Payload: req.Payload, WakeAt: req.WakeAt, Paused: req.Paused, Window: req.Window,
		RootPid: req.RootPid, Now: now(), StartLimits: &limits, MaxTotalGas: req.MaxTotalGas, PayloadChecked: true,
	})
	switch {
	case errors.Is(err, joinstore.ErrStaleRoot):
		return Started{}, refuse(KindStaleRoot, "rootPid", "the owner's next root pid", err)
	case errors.As(err, &quota):
		return Started{}, refuse(KindQuota, "owner", quotaAllowed(quota), err)
	case err != nil:
		return Started{}, unavailable("create the session", err)
	}
	return Started{Ack: res.Ack, Root: res.Root, Pid: res.Pid, Key: res.StartKey, Orchestration: o}, nil
}

func stepIDs(o *registry.Orchestration) []string {
	ids := make([]string, len(o.Steps))
	for i, st := range o.Steps {
		ids[i] = st.ID
	}
	return ids
}

// quotaAllowed is what a start over quota q would need: its owner under
// the quota's value.
func quotaAllowed(q *joinstore.QuotaError) string {
	switch q.Quota {
	case joinstore.QuotaLiveSessions:
		return fmt.Sprintf("an owner with fewer than %d live sessions (its %s quota)", q.Limit, q.Quota)
	case joinstore.QuotaStartsPerMinute:
		return fmt.Sprintf("an owner with fewer than %d starts in the last minute (its %s quota)", q.Limit, q.Quota)
	}
	return fmt.Sprintf("an owner whose sessions hold fewer than %d process slots (its %s quota)", q.Limit, q.Quota)
}
