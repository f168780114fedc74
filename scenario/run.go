package scenario

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Engine is what a run needs from the outside world: a chain to deploy
// plans to and an engine to run their sessions on. The runner in
// cmd/xgr wires anvil, Redis, the session manager and the XRC-137
// executor; tests use fakes.
type Engine interface {
	// Deploy deploys a plan: its setup contracts, its XRC-137 rules and an
	// XRC-729 registry holding its orchestration, rewritten to the rules'
	// new addresses.
	Deploy(ctx context.Context, p *Plan) (*Deployment, error)
	// Start starts a session of a deployed plan.
	Start(ctx context.Context, req StartRequest) (SessionRef, error)
	// Observe reads a session's processes.
	Observe(ctx context.Context, s SessionRef) (*Observed, error)
}

// Deployment is where a plan was deployed in this run.
type Deployment struct {
	Plan string `json:"plan"`
	// Registry is the XRC-729 registry; OstcID and Hash the orchestration
	// registered there (the hash sessions pin); OldHash the plan's hash of
	// the public deployment.
	Registry string `json:"registry"`
	OstcID   string `json:"ostcId"`
	Hash     string `json:"ostcHash"`
	OldHash  string `json:"oldOstcHash,omitempty"`
	// Rules maps each XRC-137 alias to its contract (lower-case hex).
	Rules map[string]string `json:"rules"`
	// Setup maps each setup-contract key to its address.
	Setup map[string]string `json:"setup,omitempty"`
	// Notes are things the report should mention (warnings, what was not
	// performed).
	Notes []string `json:"notes,omitempty"`
}

// StartRequest starts a session of a deployed plan.
type StartRequest struct {
	Plan       *Plan
	Deployment *Deployment
	// Owner is the session owner (lower-case 0x hex): the starter's address.
	Owner   string
	Step    string
	Payload map[string]any
}

// Runner runs scenarios and plans on an Engine.
type Runner struct {
	Engine Engine
	// Actors maps every signer alias the file uses to its address.
	Actors map[string]string
	// Sleep waits (nil: a timer honouring ctx); Now tells the time (nil:
	// time.Now). Tests replace both.
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time
	// MaxPoll caps the interval of a wait (0: 100ms): the file's pollMs is
	// written for a remote UI; reading a local store often costs little.
	MaxPoll time.Duration
	// Settle is how long an assertion waits for its session to finish
	// before it checks what the session shows (0: 5s).
	Settle time.Duration
	// PlanWait is how long a plan run alone waits for its session to
	// finish before it checks (0: 2m).
	PlanWait time.Duration
	// Progress, when set, is called with each step report as it completes.
	Progress func(*RunReport, *StepReport)
}

// Report is the outcome of a file.
type Report struct {
	Kind   string       `json:"kind"`
	Title  string       `json:"title,omitempty"`
	Runs   []*RunReport `json:"runs"`
	Checks int          `json:"checks"`
	Failed int          `json:"failed"`
	Passed bool         `json:"passed"`
}

// RunReport is the outcome of one scenario, or of one plan run alone.
type RunReport struct {
	// Kind is "scenario" or "plan".
	Kind        string        `json:"kind"`
	Title       string        `json:"title,omitempty"`
	Path        string        `json:"path,omitempty"`
	Deployments []*Deployment `json:"deployments"`
	Steps       []*StepReport `json:"steps"`
}

// StepReport is the outcome of one step (deploy, start, wait, assert).
type StepReport struct {
	ID      string      `json:"id"`
	Type    string      `json:"type"`
	Path    string      `json:"path,omitempty"`
	Session *SessionRef `json:"session,omitempty"`
	Detail  string      `json:"detail,omitempty"`
	// Error is set when the step could not be carried out; it counts as a
	// failed check.
	Error  string  `json:"error,omitempty"`
	Checks []Check `json:"checks,omitempty"`
	// Notes are remarks that are not checks (what a deployment could not
	// do, rules the evaluator may refuse).
	Notes []string `json:"notes,omitempty"`
	// Observed is the session as the step last saw it (waits, asserts).
	Observed *Observed `json:"observed,omitempty"`
}

// Failed reports whether the step failed: an error or a failed check.
func (s *StepReport) Failed() bool {
	if s.Error != "" {
		return true
	}
	for _, c := range s.Checks {
		if !c.Passed {
			return true
		}
	}
	return false
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Runner) sleep(ctx context.Context, d time.Duration) error {
	if r.Sleep != nil {
		return r.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Run runs every scenario or plan of the file, in order.
func (r *Runner) Run(ctx context.Context, f *File) *Report {
	rep := &Report{Kind: f.Kind, Title: f.Title}
	for _, s := range f.Scenarios {
		rep.Runs = append(rep.Runs, r.RunScenario(ctx, s))
	}
	for _, p := range f.Plans {
		rep.Runs = append(rep.Runs, r.RunPlan(ctx, p))
	}
	for _, run := range rep.Runs {
		for _, s := range run.Steps {
			if s.Error != "" {
				rep.Checks++
				rep.Failed++
			}
			for _, c := range s.Checks {
				rep.Checks++
				if !c.Passed {
					rep.Failed++
				}
			}
		}
	}
	rep.Passed = rep.Failed == 0 && rep.Checks > 0
	return rep
}

func (r *Runner) add(run *RunReport, s *StepReport) *StepReport {
	run.Steps = append(run.Steps, s)
	if r.Progress != nil {
		r.Progress(run, s)
	}
	return s
}

// deploy deploys the plans; false when one failed (reported).
func (r *Runner) deploy(ctx context.Context, run *RunReport, plans []*Plan) (map[string]*Deployment, bool) {
	deps := map[string]*Deployment{}
	for _, p := range plans {
		d, err := r.Engine.Deploy(ctx, p)
		s := &StepReport{ID: "deploy " + p.Key, Type: "deploy", Path: p.Path}
		if err != nil {
			s.Error = err.Error()
			r.add(run, s)
			return nil, false
		}
		run.Deployments = append(run.Deployments, d)
		deps[p.Key] = d
		s.Detail = fmt.Sprintf("%d XRC-137 rules, XRC-729 %s holds %q with hash %s", len(d.Rules), d.Registry, d.OstcID, d.Hash)
		if len(d.Setup) > 0 {
			s.Detail += fmt.Sprintf(", %d setup contracts", len(d.Setup))
		}
		s.Notes = d.Notes
		r.add(run, s)
	}
	return deps, true
}

// env returns the placeholder environment of a run.
func (r *Runner) env(actorNames map[string]string, plans []*Plan, deps map[string]*Deployment) Env {
	e := Env{Actors: map[string]string{}, Sessions: map[string]SessionRef{}, Contracts: map[string]map[string]string{}}
	for alias, a := range r.Actors {
		e.Actors[alias] = a
	}
	for name, alias := range actorNames {
		if a, ok := r.Actors[alias]; ok {
			e.Actors[name] = a
		}
	}
	for _, p := range plans {
		if d := deps[p.Key]; d != nil {
			e.Contracts[p.Key] = d.Rules
			if p.BundleID != "" {
				if _, taken := e.Contracts[p.BundleID]; !taken {
					e.Contracts[p.BundleID] = d.Rules
				}
			}
		}
	}
	return e
}

// RunScenario deploys the scenario's plans, then runs its steps in order.
// A step that fails is reported and the flow goes on (later checks still
// tell what happened), except that steps of a session that never started
// fail at once.
func (r *Runner) RunScenario(ctx context.Context, s *Scenario) *RunReport {
	run := &RunReport{Kind: "scenario", Title: s.Title, Path: s.Path}
	deps, ok := r.deploy(ctx, run, s.Plans)
	if !ok {
		return run
	}
	env := r.env(s.ActorAlias, s.Plans, deps)
	for _, st := range s.Steps {
		rep := &StepReport{ID: st.ID, Type: st.Type, Path: st.Path}
		if err := ctx.Err(); err != nil {
			rep.Error = "not run: " + cause(ctx)
			r.add(run, rep)
			continue
		}
		switch st.Type {
		case StartSession:
			p := s.Plan(st.PlanKey)
			ref, err := r.start(ctx, p, deps[p.Key], env, st.Starter, st.StartStep,
				StartPayload(p.Payload, st.Payload, p.WakeUp, st.WakeUp), st.Path+".payload")
			if err != nil {
				rep.Error = err.Error()
				break
			}
			env.Sessions[st.SaveAs] = ref
			rep.Session = &ref
			rep.Detail = fmt.Sprintf("session %d of %s: %s at %s, saved as %q", ref.ID, ref.Owner, p.OstcID, st.StartStep, st.SaveAs)
		case WaitForStep:
			ref, ok := env.Sessions[st.Session]
			if !ok {
				rep.Error = fmt.Sprintf("session %q was not started (its startSession failed)", st.Session)
				break
			}
			rep.Session = &ref
			r.wait(ctx, st, ref, rep)
		case AssertSession:
			ref, ok := env.Sessions[st.Session]
			if !ok {
				rep.Error = fmt.Sprintf("session %q was not started (its startSession failed)", st.Session)
				break
			}
			rep.Session = &ref
			obs, settled, err := r.settle(ctx, ref, r.Settle, 5*time.Second)
			if err != nil {
				rep.Error = err.Error()
				break
			}
			rep.Observed = obs
			rep.Checks = Evaluate(st.Expect, obs)
			if !settled {
				rep.Detail = "the session was still live when checked"
			}
		}
		r.add(run, rep)
	}
	return run
}

// RunPlan deploys one plan, starts its session at runtime.stepId with its
// runtime payload, waits until the session finishes (at most PlanWait) and
// checks the plan's expectations.
func (r *Runner) RunPlan(ctx context.Context, p *Plan) *RunReport {
	title := p.Title
	if title == "" {
		title = p.Key
	}
	run := &RunReport{Kind: "plan", Title: title, Path: p.Path}
	deps, ok := r.deploy(ctx, run, []*Plan{p})
	if !ok {
		return run
	}
	env := r.env(nil, []*Plan{p}, deps)
	rep := &StepReport{ID: "run " + p.Key, Type: "plan", Path: p.Path}
	ref, err := r.start(ctx, p, deps[p.Key], env, p.StarterAlias, p.StartStep, StartPayload(p.Payload, nil, p.WakeUp), p.Path+".runtime.payload")
	if err != nil {
		rep.Error = err.Error()
		r.add(run, rep)
		return run
	}
	rep.Session = &ref
	obs, settled, err := r.settle(ctx, ref, r.PlanWait, 2*time.Minute)
	if err != nil {
		rep.Error = err.Error()
		r.add(run, rep)
		return run
	}
	rep.Observed = obs
	rep.Detail = fmt.Sprintf("session %d of %s: %s at %s", ref.ID, ref.Owner, p.OstcID, p.StartStep)
	if !settled {
		rep.Detail += "; still live when checked"
	}
	if p.Expect == nil {
		rep.Error = "the plan has no expectations to check"
	} else {
		rep.Checks = Evaluate(p.Expect, obs)
	}
	r.add(run, rep)
	return run
}

// start resolves the payload and starts a session owned by the starter.
func (r *Runner) start(ctx context.Context, p *Plan, d *Deployment, env Env, starter, step string, payload map[string]any, path string) (SessionRef, error) {
	owner, ok := env.Actors[starter]
	if !ok {
		return SessionRef{}, fmt.Errorf("starter %q has no key (actors: %s)", starter, quoted(sortedKeys(env.Actors)))
	}
	resolved, err := env.Resolve(payload, path)
	if err != nil {
		return SessionRef{}, err
	}
	return r.Engine.Start(ctx, StartRequest{Plan: p, Deployment: d, Owner: strings.ToLower(owner), Step: step, Payload: resolved.(map[string]any)})
}

// wait polls the session until the step reaches the status (ever, see
// Observed.Reached), the session finishes without it, or the step's
// timeout passes.
func (r *Runner) wait(ctx context.Context, st *Step, ref SessionRef, rep *StepReport) {
	status := st.Status
	if status == "" {
		status = "any status"
	}
	c := Check{Name: fmt.Sprintf("waitForStep %s %s", st.StepID, status), Path: st.Path,
		Expected: fmt.Sprintf("%s reaches %s within %s", st.StepID, status, st.Timeout)}
	poll := st.Poll
	maxPoll := r.MaxPoll
	if maxPoll <= 0 {
		maxPoll = 100 * time.Millisecond
	}
	poll = min(poll, maxPoll)
	t0 := r.now()
	for {
		obs, err := r.Engine.Observe(ctx, ref)
		if err != nil {
			rep.Error = err.Error()
			return
		}
		rep.Observed = obs
		elapsed := r.now().Sub(t0)
		if p := obs.Reached(st.StepID, st.Status); p != nil {
			c.Passed = true
			c.Actual = fmt.Sprintf("reached after %s (%s)", elapsed.Round(time.Millisecond), describe(p))
			break
		}
		if obs.Finished {
			c.Actual = fmt.Sprintf("the session finished without it after %s; %s", elapsed.Round(time.Millisecond), summary(obs))
			break
		}
		if elapsed >= st.Timeout {
			c.Actual = fmt.Sprintf("not reached within %s; %s", st.Timeout, summary(obs))
			break
		}
		if err := r.sleep(ctx, poll); err != nil {
			c.Actual = fmt.Sprintf("not reached when the run was stopped (%s) after %s; %s", cause(ctx), elapsed.Round(time.Millisecond), summary(obs))
			break
		}
	}
	rep.Checks = append(rep.Checks, c)
}

// settle observes a session until it has finished or d (0: def) passed.
func (r *Runner) settle(ctx context.Context, ref SessionRef, d, def time.Duration) (*Observed, bool, error) {
	if d <= 0 {
		d = def
	}
	t0 := r.now()
	for {
		obs, err := r.Engine.Observe(ctx, ref)
		if err != nil {
			return nil, false, err
		}
		if obs.Finished {
			return obs, true, nil
		}
		if r.now().Sub(t0) >= d || r.sleep(ctx, 50*time.Millisecond) != nil {
			return obs, false, nil
		}
	}
}

// summary lists a session's processes briefly: "1:1 A1 done valid, 1:2 B1 waiting".
func summary(o *Observed) string {
	if len(o.Procs) == 0 {
		return "no processes"
	}
	parts := make([]string, len(o.Procs))
	for i := range o.Procs {
		p := &o.Procs[i]
		parts[i] = p.Pid + " " + p.Step + " " + p.Status
		if p.Valid != nil {
			parts[i] += " " + validText(p)
		}
		if p.Error != "" {
			parts[i] += " (error: " + p.Error + ")"
		}
	}
	return "processes: " + strings.Join(parts, ", ")
}

func cause(ctx context.Context) string {
	if err := context.Cause(ctx); err != nil {
		return err.Error()
	}
	return "stopped"
}
