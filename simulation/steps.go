package simulation

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sort"
	"time"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/replica"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/rulesource"
)

// StepsConfig says where a simulation's steps come from.
type StepsConfig struct {
	// Scripted is the parsed outcomes file (nil: none).
	Scripted *reactor.Scripted
	// Rules is the rule loader (rule directory and chain source); nil
	// when neither --rules nor --rpc was given.
	Rules *rulesource.Loader
	// API and Reads are what rule evaluations call.
	API   *rule.HTTPCaller
	Reads *chain.Reads
	// WaitOverride, when set, replaces every step's wait (seconds, 0 or
	// more).
	WaitOverride *float64
}

// UsageError is a simulation the command line asked for that cannot run
// (a missing step source, a broken or unusable rule, a bad bound): the
// message says what and where.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// checkWaitOverride refuses a wait override that is not a duration in
// seconds, 0 or more.
func checkWaitOverride(secs float64) (time.Duration, error) {
	if secs < 0 || math.IsNaN(secs) || secs > math.MaxInt64/float64(time.Second) {
		return 0, &UsageError{fmt.Sprintf("simulate: --wait-override %v: give seconds, 0 or more", secs)}
	}
	return time.Duration(secs * float64(time.Second)), nil
}

// Steps builds the step executor and the resolver the start use case
// checks the steps' rule references with (it refuses a step that can run
// neither from a rule nor from the outcomes; with a chain it judges the
// owner on the contracts the references resolve to). Every step's rule is
// loaded once before anything runs; a rule that resolves but cannot be
// used is a *UsageError.
func Steps(ctx context.Context, o *registry.Orchestration, cfg StepsConfig) (reactor.Executor, authority.Resolver, error) {
	var exec reactor.Executor
	if cfg.Scripted != nil {
		exec = cfg.Scripted
	}
	var rules authority.Resolver
	if cfg.Rules != nil {
		uncovered, err := ruleSteps(ctx, o, cfg.Rules)
		if err != nil {
			return nil, nil, err
		}
		if len(uncovered) > 0 && cfg.Scripted != nil {
			slog.Info("steps run from --outcomes", "steps", uncovered)
		}
		if exec, err = (replica.Steps{Rules: cfg.Rules, API: cfg.API, Reads: cfg.Reads, Scripted: cfg.Scripted}).Executor(); err != nil {
			return nil, nil, err
		}
		// The steps no rule source covers: without outcomes the start
		// refuses them (rule-unresolved), with them they play scripted.
		l := loadable{rules: cfg.Rules, uncovered: map[string]error{}}
		for _, id := range uncovered {
			ref := o.Step(id).Rule
			_, l.uncovered[ref] = cfg.Rules.Load(ctx, ref)
		}
		rules = l
		if cfg.Scripted != nil {
			rules = authority.ScriptedSteps(l)
		}
	}
	if exec == nil {
		return nil, nil, &UsageError{"simulate: give --outcomes FILE, or --rules DIR / --rpc URL to run the steps' XRC-137 rules"}
	}
	if cfg.WaitOverride != nil {
		wait, err := checkWaitOverride(*cfg.WaitOverride)
		if err != nil {
			return nil, nil, err
		}
		exec = reactor.FixedWait{Exec: exec, Wait: wait}
	}
	if rules == nil {
		rules = authority.ScriptedSteps(nil)
	}
	return exec, rules, nil
}

// ruleSteps loads the rule of every step once, before anything runs, and
// returns the steps no source covers. A rule that resolves but cannot be
// used (broken, encrypted, unreadable, hash mismatch) is a *UsageError.
func ruleSteps(ctx context.Context, o *registry.Orchestration, src rulesource.Source) (uncovered []string, err error) {
	for _, s := range o.Steps {
		l, err := src.Load(ctx, s.Rule)
		if errors.Is(err, rulesource.ErrNotCovered) {
			uncovered = append(uncovered, s.ID)
			continue
		}
		var ve *rule.ValidationError
		var le *rulesource.Error
		if errors.As(err, &ve) && errors.As(err, &le) {
			return nil, &UsageError{ve.Report(fmt.Sprintf("simulate: step %s: rule %q (%s) is not a valid rule document:", s.ID, s.Rule, le.Origin), le.Origin)}
		}
		if err != nil {
			return nil, &UsageError{fmt.Sprintf("simulate: step %s: %v", s.ID, err)}
		}
		slog.Debug("step rule", "step", s.ID, "rule", s.Rule, "from", l.Origin, "hash", l.Doc.Hash)
	}
	sort.Strings(uncovered)
	return uncovered, nil
}

// loadable resolves rule references as rules does, except the ones this
// simulation cannot load (no rule file or binding, or a contract without
// a node), which it answers with their load error (wrapping
// rulesource.ErrNotCovered): the start use case then refuses them, or
// authority.ScriptedSteps plays them from the outcomes.
type loadable struct {
	rules     *rulesource.Loader
	uncovered map[string]error
}

func (l loadable) Resolve(ref string) (rulesource.Target, error) {
	if err, ok := l.uncovered[ref]; ok {
		return rulesource.Target{}, err
	}
	return l.rules.Resolve(ref)
}
