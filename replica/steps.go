package replica

import (
	"context"
	"errors"
	"log/slog"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/ruleexec"
	"github.com/xgr-sidecar/xgr/rulesource"
)

// Steps is how a replica (or xgr simulate) runs steps: as the XRC-137 rules
// Rules resolves, with scripted outcomes for the steps no rule source
// covers, or all scripted.
type Steps struct {
	// Rules resolves a step's rule (nil: every step plays Scripted).
	Rules rulesource.Source
	// API and Reads perform the rules' apiCalls and contractReads (nil
	// fails each, so their defaults apply).
	API   rule.APICaller
	Reads rule.ContractReader
	// Scripted plays the steps no rule covers (every step without Rules;
	// nil with Rules: such a step is a hard error).
	Scripted *reactor.Scripted
	// Observe sees every completed evaluation (ruleexec.Executor.Observe).
	Observe func(reactor.Execution, *rulesource.Loaded, *rule.Result)
	// Log: nil is slog.Default().
	Log *slog.Logger
	// Evidence: log bundles are on (Config.Bundles): results carry what a
	// bundle needs and the branch's grants, encryptLogs and logExpireDays
	// are performed (ruleexec.Executor.Evidence).
	Evidence bool
}

// ErrNoSteps: Steps has neither rules nor scripted outcomes.
var ErrNoSteps = errors.New("no rule source and no scripted outcomes: nothing can run a step")

// Executor is the step executor of s: the XRC-137 executor with Scripted
// as its fallback, or Scripted alone.
func (s Steps) Executor() (reactor.Executor, error) {
	if s.Rules == nil {
		if s.Scripted == nil {
			return nil, ErrNoSteps
		}
		return s.Scripted, nil
	}
	x := &ruleexec.Executor{Rules: s.Rules, API: s.API, Reads: s.Reads, Observe: s.Observe, Log: s.Log, Evidence: s.Evidence}
	if s.Scripted != nil {
		x.Fallback = s.Scripted
	}
	return x, nil
}

// stepParts are a replica's steps: the executor (wrapped by
// cfg.Rules.Wrap), the revert flip of the unwrapped one, the rule source
// (nil when every step is scripted) and the resolver of rule references
// that start-time authority checks use.
type stepParts struct {
	exec     reactor.Executor
	flip     reactor.Flipper
	rules    rulesource.Source
	resolver authority.Resolver
}

// buildSteps builds the step executor of cfg.Rules: XRC-137 rules from
// Files and the chain (cached by the index, encrypted ones opened with
// the read key), Outcomes for the steps no rule covers; and, with a
// chain, the authority checker every front door of the replica decides a
// start's runner with.
func (r *Replica) buildSteps(ctx context.Context) error {
	rc := r.cfg.Rules
	var p stepParts
	if rc.Files == nil && !rc.FromChain {
		p.exec, p.resolver = rc.Outcomes, authority.ScriptedSteps(nil)
	} else {
		loader := &rulesource.Loader{Files: rc.Files, Addresses: rc.Addresses}
		reads := &chain.Reads{}
		if rc.FromChain {
			loader.Chain = rulesource.NewChain(r.chain)
			loader.Chain.Cache = r.cache // rules the index follows need no eth_call
			loader.Chain.Opener = r.evidence.opener
			reads.Default = r.chain
		}
		backends, err := r.dialBackends(ctx)
		if err != nil {
			return err
		}
		reads.Backends = backends
		api := rc.API
		if api == nil {
			api = &rule.HTTPCaller{}
		}
		x, err := Steps{Rules: loader, API: api, Reads: reads, Scripted: rc.Outcomes, Observe: r.observe(), Log: r.log,
			Evidence: r.evidence.bundles != nil}.Executor()
		if err != nil {
			return &Error{Part: PartRules, Usage: true, Err: err}
		}
		p.exec, p.rules, p.resolver = x, loader, loader
		if rc.Outcomes != nil {
			p.resolver = authority.ScriptedSteps(loader)
		}
	}
	p.flip, _ = p.exec.(reactor.Flipper)
	if rc.Wrap != nil {
		p.exec = rc.Wrap(p.exec)
	}
	r.steps = p
	if r.chain != nil {
		// Every front door of this replica (gateway, console, trigger
		// starter) resolves a start's rule references with the steps' own
		// resolver before it decides the runner's authority.
		r.checker = authority.NewChecker(authority.NewChainReader(r.chain)).WithRules(p.resolver)
	}
	return nil
}
