package scenario

import (
	"fmt"
	"strings"
	"time"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
	"github.com/xgr-sidecar/xgr/rule"
)

// Statuses a process can have, as timeline checks and waits name them.
var statuses = []string{"waiting", "running", "executing", "done", "aborted"}

// Parse reads a test-suite file: a scenario file (kind
// xgr.multi-test-scenario or xgr.test-scenario) or a plan file
// (xgr.multi-test-plan or xgr.test-plan). A rejected file returns a
// *jsondoc.Invalid listing every problem with its JSON path and
// line:column; problems inside a plan's embedded bundle name the string's
// path, then the path and line:column inside the embedded JSON. Members this
// runner does not use (analysis, bindings, UI state) are ignored.
func Parse(raw []byte) (*File, error) {
	d := &decoder{rep: jsondoc.NewReport(raw)}
	root, err := jsondoc.Parse(raw, 0)
	if err != nil {
		d.rep.Syntax(err)
		return nil, d.rep.Err("test-suite file")
	}
	f := d.file(root)
	if err := d.rep.Err("test-suite file"); err != nil {
		return nil, err
	}
	return f, nil
}

var kinds = []string{KindMultiScenario, KindScenario, KindMultiPlan, KindPlan}

func (d *decoder) file(root *jsondoc.Value) *File {
	if !d.object(root, "", "a test-suite file") {
		return nil
	}
	f := &File{Kind: d.str(root, "", "kind", false), Title: d.str(root, "", "title", false)}
	if f.Kind == "" {
		d.errorf(root, "kind", "missing \"kind\": want one of %s", quoted(kinds))
		return nil
	}
	if v := root.Get("version"); v != nil && !(v.Kind == jsondoc.Number && v.Text == "1") {
		d.errorf(v, "version", "version %s is not supported; this runner reads version 1", literal(v))
		return nil
	}
	switch f.Kind {
	case KindMultiScenario:
		for i, s := range d.array(root, "", "scenarios", true, "the scenarios, each an xgr.test-scenario") {
			p := jsondoc.Path("scenarios").Index(i)
			if d.object(s, p, "a scenario") {
				if k := d.str(s, p, "kind", false); k != "" && k != KindScenario {
					d.errorf(s.Get("kind"), p.Key("kind"), "kind %q: a scenario inside %s must be %q", k, KindMultiScenario, KindScenario)
					continue
				}
				f.Scenarios = append(f.Scenarios, d.scenario(s, p))
			}
		}
	case KindScenario:
		f.Scenarios = append(f.Scenarios, d.scenario(root, ""))
	case KindMultiPlan:
		for i, pv := range d.array(root, "", "plans", true, "the test plans") {
			p := jsondoc.Path("plans").Index(i)
			if d.object(pv, p, "a test plan") {
				if plan := d.plan(pv, p, ""); plan != nil {
					d.planFileChecks(plan, pv, p)
					f.Plans = append(f.Plans, plan)
				}
			}
		}
	case KindPlan:
		if plan := d.plan(root, "", ""); plan != nil {
			d.planFileChecks(plan, root, "")
			f.Plans = append(f.Plans, plan)
		}
	default:
		d.errorf(root.Get("kind"), "kind", "kind %q is not a test-suite file this runner reads; want one of %s", f.Kind, quoted(kinds))
		return nil
	}
	if f.Title == "" && len(f.Scenarios) == 1 && f.Scenarios[0] != nil {
		f.Title = f.Scenarios[0].Title
	}
	return f
}

// planFileChecks checks what a plan run alone needs: a start step and
// payload placeholders that resolve without a scenario.
func (d *decoder) planFileChecks(p *Plan, v *jsondoc.Value, path jsondoc.Path) {
	rt := path.Key("runtime")
	if p.StartStep == "" {
		d.errorf(v.Get("runtime"), rt.Key("stepId"), "missing the start step: runtime.stepId")
	}
	var runtime *jsondoc.Value
	if r := v.Get("runtime"); r != nil && r.Kind == jsondoc.Object {
		runtime = r
	}
	if runtime == nil {
		return
	}
	for _, name := range []string{"payload", "wakeUp"} {
		refsAt(runtime.Get(name), rt.Key(name), func(ref Ref, at *jsondoc.Value, path jsondoc.Path, err error) {
			switch {
			case err != nil:
				d.errorf(at, path, "%v", err)
			case ref.Kind == RefSessionID || ref.Kind == RefSessionOwner:
				d.errorf(at, path, "%s: a plan run alone has no other sessions; session placeholders belong in scenarios", ref)
			case ref.Kind == RefContractAddress:
				if ref.Name != p.Key && ref.Name != p.BundleID {
					d.errorf(at, path, "%s: bundle %q is not this plan (%q)", ref, ref.Name, p.Key)
				} else if p.Rule(ref.Alias) == nil {
					d.errorf(at, path, "%s: the plan's bundle has no XRC-137 item with alias %q (aliases: %s)", ref, ref.Alias, quoted(p.aliases()))
				}
			}
		})
	}
}

func (p *Plan) aliases() []string {
	out := make([]string, len(p.Rules))
	for i, r := range p.Rules {
		out[i] = r.Alias
	}
	return out
}

// plan reads one test plan; key is its scenario key ("" in a plan file:
// the bundle id, else the plan id).
func (d *decoder) plan(v *jsondoc.Value, path jsondoc.Path, key string) *Plan {
	p := &Plan{Path: string(path), Key: key, ID: d.str(v, path, "id", false), Title: d.str(v, path, "title", false), doc: v}
	sp := path.Key("source")
	src := v.Get("source")
	if !d.object(src, sp, "the plan's source {bundleId, ostcId, rawBundleJson, …}") {
		return nil
	}
	p.BundleID = d.str(src, sp, "bundleId", false)
	p.OstcID = d.str(src, sp, "ostcId", false)
	p.OldHash = d.str(src, sp, "ostcHash", false)
	if p.Key == "" {
		p.Key = p.BundleID
		if p.Key == "" {
			p.Key = p.ID
		}
	}
	p.OwnerAlias, p.StarterAlias = "owner", ""
	for _, sec := range []string{"metadata", "execution"} { // execution wins
		if m := v.Get(sec); m != nil && d.object(m, path.Key(sec), "the plan's "+sec) {
			if a := d.str(m, path.Key(sec), "ownerAlias", false); a != "" {
				p.OwnerAlias = a
			}
			if a := d.str(m, path.Key(sec), "starterAlias", false); a != "" {
				p.StarterAlias = a
			}
		}
	}
	if p.StarterAlias == "" {
		p.StarterAlias = p.OwnerAlias
	}
	if ts := v.Get("testSetup"); ts != nil && d.object(ts, path.Key("testSetup"), "the plan's test setup") {
		d.setup(p, ts, path.Key("testSetup"))
	}
	d.bundle(p, src, sp)
	if p.OSTC != nil {
		if p.OstcID != "" && p.OstcID != p.OSTC.Orchestration.ID {
			d.errorf(src.Get("ostcId"), sp.Key("ostcId"), "ostcId %q differs from the id of the bundle's orchestration, %q", p.OstcID, p.OSTC.Orchestration.ID)
		}
		p.OstcID = p.OSTC.Orchestration.ID
	}
	setupKeys := map[string]bool{}
	for _, s := range p.Setup {
		setupKeys[s.Key] = true
	}
	for _, r := range p.Rules {
		for _, k := range r.AddrKeys {
			if !setupKeys[k] {
				var keys []string
				for _, s := range p.Setup {
					keys = append(keys, s.Key)
				}
				d.errorf(src.Get("rawBundleJson"), jsondoc.Path(r.Path), "the rule refers to ${addr:%s}, but testSetup.contracts has no contract with key %q (keys: %s)", k, k, quoted(keys))
			}
		}
	}
	rp := path.Key("runtime")
	if rt := v.Get("runtime"); rt != nil && d.object(rt, rp, "the plan's runtime {stepId, payload, wakeUp}") {
		p.StartStep = d.str(rt, rp, "stepId", false)
		p.Payload = d.objectValue(rt, rp, "payload", "the start payload")
		p.WakeUp = d.objectValue(rt, rp, "wakeUp", "the wake-up allow list {default, steps}")
		if p.StartStep != "" {
			d.knownStep(p, rt.Get("stepId"), rp.Key("stepId"), p.StartStep)
		}
	}
	if ex := v.Get("expectations"); ex != nil && ex.Kind != jsondoc.Null {
		p.Expect = d.expectations(ex, path.Key("expectations"), p)
	}
	return p
}

// knownStep reports a step id that is not a step of the plan's orchestration.
func (d *decoder) knownStep(p *Plan, at *jsondoc.Value, path jsondoc.Path, id string) bool {
	if p == nil || p.OSTC == nil || p.OSTC.HasStep(id) {
		return true
	}
	d.errorf(at, path, "%q is not a step of orchestration %q (steps: %s)", id, p.OSTC.Orchestration.ID, quoted(p.OSTC.Steps()))
	return false
}

func (d *decoder) setup(p *Plan, ts *jsondoc.Value, path jsondoc.Path) {
	keys := map[string]string{}
	for i, c := range d.array(ts, path, "contracts", false, "the setup contracts") {
		cp := path.Key("contracts").Index(i)
		if !d.object(c, cp, "a setup contract") {
			continue
		}
		s := &SetupContract{Path: string(cp), Key: d.str(c, cp, "key", true), ContractName: d.str(c, cp, "contractName", false)}
		if s.Key == "" {
			continue
		}
		if prev, dup := keys[s.Key]; dup {
			d.errorf(c.Get("key"), cp.Key("key"), "key %q is also the key of %s", s.Key, prev)
			continue
		}
		keys[s.Key] = string(cp)
		s.Address = d.str(c, cp, "address", false)
		if s.Address == "" {
			s.Address = d.str(c, cp, "deployedAddress", false)
		}
		if s.Address != "" && !rule.IsAddress(s.Address) {
			d.errorf(c, cp.Key("address"), "address %q is not 0x followed by 40 hex digits", s.Address)
		}
		switch mode := strings.ToLower(d.str(c, cp, "mode", false)); mode {
		case "deploy", "solidity", "":
			s.Mode = "deploy"
			srcv := c.Get("source")
			if srcv == nil || srcv.Kind != jsondoc.Object {
				d.errorf(c, cp.Key("source"), "mode deploy needs source {language: \"solidity\", code}")
				continue
			}
			if lang := strings.ToLower(d.str(srcv, cp.Key("source"), "language", false)); lang != "" && lang != "solidity" {
				d.errorf(srcv.Get("language"), cp.Key("source").Key("language"), "language %q: only solidity sources can be deployed", lang)
			}
			s.Source = d.str(srcv, cp.Key("source"), "code", true)
			s.FileName = d.str(srcv, cp.Key("source"), "fileName", false)
			if s.ContractName == "" {
				d.errorf(c, cp.Key("contractName"), "mode deploy needs contractName: the contract of the source to deploy")
			}
		case "fixed", "address", "fixedaddress", "usefixedaddress":
			s.Mode = "fixed"
			if !rule.IsAddress(s.Address) {
				d.errorf(c, cp.Key("address"), "mode %q needs address: 0x followed by 40 hex digits", mode)
			}
		default:
			d.errorf(c.Get("mode"), cp.Key("mode"), "mode %q: want deploy (compile and deploy source) or fixed (use address)", mode)
		}
		for i, a := range d.array(c, cp, "constructorArgs", false, "the constructor arguments") {
			s.ConstructorArgs = append(s.ConstructorArgs, goValue(a))
			_ = i
		}
		if dep := c.Get("deploy"); dep != nil && d.object(dep, cp.Key("deploy"), "the deploy settings {by, strategy}") {
			s.By = d.str(dep, cp.Key("deploy"), "by", false)
			switch st := strings.ToLower(d.str(dep, cp.Key("deploy"), "strategy", false)); st {
			case "", "deployifmissing":
			case "deployalways", "always":
				s.Always = true
			default:
				d.errorf(dep.Get("strategy"), cp.Key("deploy").Key("strategy"), "strategy %q: want deployIfMissing or deployAlways", st)
			}
		}
		p.Setup = append(p.Setup, s)
	}
}

// expectations reads an expectations object; p (may be nil) checks step ids.
func (d *decoder) expectations(v *jsondoc.Value, path jsondoc.Path, p *Plan) *Expectations {
	if !d.object(v, path, "expectations {timeline, finalStatuses, finalStep}") {
		return nil
	}
	e := &Expectations{Path: string(path), FinalStatusesPath: string(path.Key("finalStatuses")), FinalStepPath: string(path.Key("finalStep"))}
	for i, g := range d.array(v, path, "timeline", false, "the timeline entries") {
		gp := path.Key("timeline").Index(i)
		if !d.object(g, gp, "a timeline entry") {
			continue
		}
		if g.Get("alternatives") == nil { // a flat entry (scenario asserts)
			if a := d.alt(g, gp, p); a != nil {
				e.Timeline = append(e.Timeline, &Group{Path: string(gp), Mode: AllOf, Label: a.label(), Alts: []*Alt{a}})
			}
			continue
		}
		grp := &Group{Path: string(gp), ID: d.str(g, gp, "id", false), Label: d.str(g, gp, "label", false)}
		switch mode := d.str(g, gp, "mode", false); strings.ToLower(mode) {
		case "", "allof", "all":
			grp.Mode = AllOf
		case "anyof", "any":
			grp.Mode = AnyOf
		default:
			d.errorf(g.Get("mode"), gp.Key("mode"), "mode %q: want allOf (every alternative must hold) or anyOf (one must)", mode)
		}
		for j, a := range d.array(g, gp, "alternatives", true, "the alternatives of this entry") {
			ap := gp.Key("alternatives").Index(j)
			if d.object(a, ap, "a timeline alternative") {
				if alt := d.alt(a, ap, p); alt != nil {
					grp.Alts = append(grp.Alts, alt)
				}
			}
		}
		if grp.Label == "" && len(grp.Alts) > 0 {
			grp.Label = grp.Alts[0].label()
		}
		e.Timeline = append(e.Timeline, grp)
	}
	for i, s := range d.array(v, path, "finalStatuses", false, "the accepted final statuses") {
		sp := path.Key("finalStatuses").Index(i)
		if s.Kind != jsondoc.String {
			d.errorf(s, sp, "expected a status string, found %s", s.Kind)
			continue
		}
		if st, ok := d.status(s, sp, s.Text); ok && st != "" {
			e.FinalStatuses = append(e.FinalStatuses, st)
		}
	}
	e.FinalStep = d.str(v, path, "finalStep", false)
	if strings.EqualFold(e.FinalStep, "any") {
		e.FinalStep = ""
	}
	if e.FinalStep != "" {
		d.knownStep(p, v.Get("finalStep"), path.Key("finalStep"), e.FinalStep)
	}
	return e
}

// status normalizes a status name: "" for any.
func (d *decoder) status(at *jsondoc.Value, path jsondoc.Path, s string) (string, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || s == "any" || s == "*" {
		return "", true
	}
	for _, ok := range statuses {
		if s == ok {
			return s, true
		}
	}
	d.errorf(at, path, "status %q: want one of %s, or \"\" / \"any\" for any status", s, quoted(statuses))
	return "", false
}

func (d *decoder) alt(v *jsondoc.Value, path jsondoc.Path, p *Plan) *Alt {
	a := &Alt{Path: string(path), StepID: d.str(v, path, "stepId", true)}
	if a.StepID == "" {
		return nil
	}
	d.knownStep(p, v.Get("stepId"), path.Key("stepId"), a.StepID)
	a.Occurrence = int(d.integer(v, path, "occurrence", 1, 1))
	a.Exist = d.boolean(v, path, "exist", true)
	if m := v.Get("valid"); m != nil {
		switch {
		case m.Kind == jsondoc.Bool:
			b := m.True
			a.Valid = &b
		case m.Kind == jsondoc.Null, m.Kind == jsondoc.String && (m.Text == "" || strings.EqualFold(m.Text, "any")):
		default:
			d.errorf(m, path.Key("valid"), "valid %s: want true, false, or \"any\"", literal(m))
		}
	}
	if m := v.Get("status"); m != nil && m.Kind == jsondoc.String {
		a.Status, _ = d.status(m, path.Key("status"), m.Text)
	} else if m != nil && m.Kind != jsondoc.Null {
		d.errorf(m, path.Key("status"), "expected a status string, found %s", m.Kind)
	}
	a.Input = d.assertions(v, path, "inputAssertions")
	a.API = d.assertions(v, path, "apiAssertions")
	a.Reads = d.assertions(v, path, "contractReadAssertions")
	return a
}

func (a *Alt) label() string { return fmt.Sprintf("%s #%d", a.StepID, a.Occurrence) }

func (d *decoder) assertions(v *jsondoc.Value, path jsondoc.Path, name string) []*Assertion {
	var out []*Assertion
	for i, it := range d.array(v, path, name, false, "the value checks {field, op, value}") {
		ip := path.Key(name).Index(i)
		if !d.object(it, ip, "a value check {field, op, value}") {
			continue
		}
		a := &Assertion{Path: string(ip), Field: d.str(it, ip, "field", true), ValueType: d.str(it, ip, "valueType", false)}
		op := d.str(it, ip, "op", false)
		if op == "" {
			op = "eq"
		}
		norm, ok := normalizeOp(op)
		if !ok {
			d.errorf(it.Get("op"), ip.Key("op"), "op %q: want one of %s", op, quoted(opNames))
			continue
		}
		a.Op = norm
		if val := it.Get("value"); val != nil {
			a.Value = goValue(val)
		} else if a.Op != OpExists && a.Op != OpMissing {
			d.errorf(it, ip.Key("value"), "op %q needs a value", op)
			continue
		}
		if a.Field != "" {
			out = append(out, a)
		}
	}
	return out
}

// scenario reads one scenario.
func (d *decoder) scenario(v *jsondoc.Value, path jsondoc.Path) *Scenario {
	s := &Scenario{Path: string(path), ID: d.str(v, path, "id", false), Title: d.str(v, path, "title", false), ActorAlias: map[string]string{}}
	for i, pv := range d.array(v, path, "plans", true, "the scenario's plans, each {key, plan}") {
		pp := path.Key("plans").Index(i)
		if !d.object(pv, pp, "a scenario plan {key, plan}") {
			continue
		}
		key := d.str(pv, pp, "key", true)
		if key == "" {
			continue
		}
		if s.Plan(key) != nil {
			d.errorf(pv.Get("key"), pp.Key("key"), "plan key %q is used twice", key)
			continue
		}
		plan := pv.Get("plan")
		if !d.object(plan, pp.Key("plan"), "the test plan") {
			continue
		}
		if p := d.plan(plan, pp.Key("plan"), key); p != nil {
			s.Plans = append(s.Plans, p)
		}
	}
	if a := v.Get("actors"); a != nil && a.Kind != jsondoc.Null && d.object(a, path.Key("actors"), "the actors {NAME: {alias, signerKind}}") {
		for _, m := range a.Members {
			alias := m.Name
			if m.Value.Kind == jsondoc.Object {
				if x := d.str(m.Value, path.Key("actors").Key(m.Name), "alias", false); x != "" {
					alias = x
				}
			}
			s.Actors = append(s.Actors, m.Name)
			s.ActorAlias[m.Name] = alias
		}
	}
	for i, b := range d.array(v, path, "bundles", false, "the bundle sources {key, bundleId, source}") {
		bp := path.Key("bundles").Index(i)
		if !d.object(b, bp, "a bundle source") {
			continue
		}
		key := d.str(b, bp, "key", false)
		if src := d.str(b, bp, "source", false); src != "" && src != "embedded-plan" {
			d.errorf(b.Get("source"), bp.Key("source"), "bundle source %q is not supported: this runner deploys the bundles embedded in the plans (source \"embedded-plan\")", src)
		} else if key != "" && s.Plan(key) == nil {
			d.errorf(b.Get("key"), bp.Key("key"), "bundle key %q names no plan of this scenario (plans: %s)", key, quoted(s.planKeys()))
		}
	}
	sessions := map[string]*Plan{} // saveAs → plan, as the steps define them
	stepIDs := map[string]bool{}
	for i, sv := range d.array(v, path, "steps", true, "the flow: startSession, waitForStep and assertSession steps") {
		sp := path.Key("steps").Index(i)
		if !d.object(sv, sp, "a scenario step") {
			continue
		}
		st := d.step(s, sv, sp, i, sessions)
		if st == nil {
			continue
		}
		if stepIDs[st.ID] {
			d.errorf(sv.Get("id"), sp.Key("id"), "step id %q is used twice", st.ID)
		}
		stepIDs[st.ID] = true
		s.Steps = append(s.Steps, st)
	}
	return s
}

func (s *Scenario) planKeys() []string {
	keys := make([]string, len(s.Plans))
	for i, p := range s.Plans {
		keys[i] = p.Key
	}
	return keys
}

// actor checks an actor name against the declared actors.
func (d *decoder) actor(s *Scenario, at *jsondoc.Value, path jsondoc.Path, name string) {
	if len(s.Actors) == 0 {
		return
	}
	if _, ok := s.ActorAlias[name]; !ok {
		d.errorf(at, path, "actor %q is not declared in actors (declared: %s)", name, quoted(s.Actors))
	}
}

// step reads one flow step; sessions holds the saveAs names defined by
// the steps before it and learns this one's.
func (d *decoder) step(s *Scenario, v *jsondoc.Value, path jsondoc.Path, i int, sessions map[string]*Plan) *Step {
	st := &Step{Path: string(path), ID: d.str(v, path, "id", false), Type: d.str(v, path, "type", true)}
	if st.ID == "" {
		st.ID = fmt.Sprintf("step %d", i+1)
	}
	// sessionRef reads a "$session.id:NAME" (or $session.owner) member.
	sessionRef := func(name string, kind string, required bool) string {
		m := v.Get(name)
		if m == nil || m.Kind == jsondoc.Null {
			if required {
				d.errorf(v, path.Key(name), "missing %q: the session, as \"$%s:SAVEAS\"", name, kind)
			}
			return ""
		}
		ref, ok, err := ParseRef(m.Text)
		if m.Kind != jsondoc.String || !ok || err != nil || ref.Kind != kind {
			d.errorf(m, path.Key(name), "%s: want \"$%s:SAVEAS\" naming a session an earlier startSession saved", literal(m), kind)
			return ""
		}
		if sessions[ref.Name] == nil {
			d.errorf(m, path.Key(name), "no earlier startSession saved a session as %q (saved so far: %s)", ref.Name, quoted(sortedKeys(sessions)))
			return ""
		}
		return ref.Name
	}
	sessionOf := func() (string, *Plan) {
		name := sessionRef("session", RefSessionID, true)
		if runner := sessionRef("runner", RefSessionOwner, false); runner != "" && name != "" && runner != name {
			d.errorf(v.Get("runner"), path.Key("runner"), "runner names session %q, but session names %q; they must be the same session", runner, name)
		}
		return name, sessions[name]
	}
	switch st.Type {
	case StartSession:
		st.PlanKey = d.str(v, path, "bundleKey", true)
		p := s.Plan(st.PlanKey)
		if st.PlanKey != "" && p == nil {
			d.errorf(v.Get("bundleKey"), path.Key("bundleKey"), "bundleKey %q names no plan of this scenario (plans: %s)", st.PlanKey, quoted(s.planKeys()))
		}
		if p != nil {
			st.PlanKey = p.Key
		}
		st.Starter = d.str(v, path, "starter", false)
		if st.Starter == "" && p != nil {
			st.Starter = p.StarterAlias
		}
		if st.Starter != "" {
			d.actor(s, v.Get("starter"), path.Key("starter"), st.Starter)
		}
		if rt := v.Get("runtime"); rt != nil && rt.Kind != jsondoc.Null && d.object(rt, path.Key("runtime"), "the step's runtime {stepId, wakeUp}") {
			st.StartStep = d.str(rt, path.Key("runtime"), "stepId", false)
			st.WakeUp = d.objectValue(rt, path.Key("runtime"), "wakeUp", "the wake-up allow list {default, steps}")
			if st.StartStep != "" {
				d.knownStep(p, rt.Get("stepId"), path.Key("runtime").Key("stepId"), st.StartStep)
			}
		}
		if st.StartStep == "" && p != nil {
			st.StartStep = p.StartStep
		}
		if st.StartStep == "" && p != nil {
			d.errorf(v, path.Key("runtime").Key("stepId"), "no start step: neither the step's runtime.stepId nor the plan's runtime.stepId is set")
		}
		st.Payload = d.objectValue(v, path, "payload", "the start payload")
		st.SaveAs = d.str(v, path, "saveAs", false)
		if st.SaveAs == "" {
			st.SaveAs = st.ID
		}
		// Placeholders may name sessions saved before this step only.
		check := func(val *jsondoc.Value, at jsondoc.Path) {
			refsAt(val, at, func(ref Ref, at *jsondoc.Value, path jsondoc.Path, err error) {
				switch {
				case err != nil:
					d.errorf(at, path, "%v", err)
				case ref.Kind == RefActorAddress:
					d.actor(s, at, path, ref.Name)
				case ref.Kind == RefSessionID || ref.Kind == RefSessionOwner:
					if sessions[ref.Name] == nil {
						d.errorf(at, path, "%s: no earlier startSession saved a session as %q (saved so far: %s)", ref, ref.Name, quoted(sortedKeys(sessions)))
					}
				case ref.Kind == RefContractAddress:
					if bp := s.Plan(ref.Name); bp == nil {
						d.errorf(at, path, "%s: no plan or bundle %q in this scenario (plans: %s)", ref, ref.Name, quoted(s.planKeys()))
					} else if bp.Rule(ref.Alias) == nil {
						d.errorf(at, path, "%s: plan %q has no XRC-137 item with alias %q (aliases: %s)", ref, bp.Key, ref.Alias, quoted(bp.aliases()))
					}
				}
			})
		}
		check(v.Get("payload"), path.Key("payload"))
		if rt := v.Get("runtime"); rt != nil && rt.Kind == jsondoc.Object {
			check(rt.Get("wakeUp"), path.Key("runtime").Key("wakeUp"))
		}
		if p != nil && p.doc != nil {
			if rt := p.doc.Get("runtime"); rt != nil && rt.Kind == jsondoc.Object {
				check(rt.Get("payload"), jsondoc.Path(p.Path).Key("runtime").Key("payload"))
				check(rt.Get("wakeUp"), jsondoc.Path(p.Path).Key("runtime").Key("wakeUp"))
			}
		}
		if sessions[st.SaveAs] != nil {
			d.errorf(v.Get("saveAs"), path.Key("saveAs"), "saveAs %q names a session an earlier step saved already", st.SaveAs)
		} else if p != nil {
			sessions[st.SaveAs] = p
		}
	case WaitForStep:
		var p *Plan
		st.Session, p = sessionOf()
		st.StepID = d.str(v, path, "stepId", true)
		if st.StepID != "" {
			d.knownStep(p, v.Get("stepId"), path.Key("stepId"), st.StepID)
		}
		if m := v.Get("status"); m != nil && m.Kind == jsondoc.String {
			st.Status, _ = d.status(m, path.Key("status"), m.Text)
		}
		st.Timeout = time.Duration(d.integer(v, path, "timeoutMs", 60000, 1)) * time.Millisecond
		st.Poll = time.Duration(d.integer(v, path, "pollMs", 1000, 1)) * time.Millisecond
	case AssertSession:
		var p *Plan
		st.Session, p = sessionOf()
		ex := v.Get("expect")
		if ex == nil {
			d.errorf(v, path.Key("expect"), "missing \"expect\": the session's expectations {timeline, finalStatuses, finalStep}")
			return nil
		}
		st.Expect = d.expectations(ex, path.Key("expect"), p)
	case "":
		return nil
	default:
		d.errorf(v.Get("type"), path.Key("type"), "step type %q: want %s", st.Type, quoted([]string{StartSession, WaitForStep, AssertSession}))
		return nil
	}
	return st
}
