package registry

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

// Parse reads an OSTC document exactly as stored on chain and validates it.
// On success the returned orchestration carries its hash, its reachability
// closure and any warnings. A rejected document returns a *ValidationError
// listing every problem with its JSON path and line:column (broken JSON is
// one problem at the line:column where parsing stopped).
func Parse(raw []byte) (*Orchestration, error) {
	d := decoder{raw: raw, Report: jsondoc.NewReport(raw)}
	o := d.document()
	if err := d.Err("orchestration"); err != nil {
		return nil, err
	}
	o.raw = raw
	o.Hash = Hash(raw)
	o.reach = newClosure(o)
	d.checkJoinScopes(o)
	o.Warnings = d.Warnings
	return o, nil
}

// decoder walks the jsondoc tree, building the model and collecting problems.
type decoder struct {
	raw []byte
	*jsondoc.Report
}

// errorf reports a problem with the value v, located at v.
func (d *decoder) errorf(v *jsondoc.Value, code, format string, args ...any) {
	d.Errorf(v.Off, v.Path(), code, format, args...)
}

func (d *decoder) warnf(v *jsondoc.Value, code, format string, args ...any) {
	d.Warnf(v.Off, v.Path(), code, format, args...)
}

// missing reports a required member name absent from the object v.
func (d *decoder) missing(v *jsondoc.Value, name, format string, args ...any) {
	d.Errorf(v.Off, v.Path().Key(name), CodeRequired, format, args...)
}

// expect reports a type problem unless v has the kind.
func (d *decoder) expect(v *jsondoc.Value, what string, kind jsondoc.Kind) bool {
	if v.Kind == kind {
		return true
	}
	d.errorf(v, CodeType, "expected %s, found %s", what, v.Kind)
	return false
}

func (d *decoder) unique(v *jsondoc.Value) { d.Unique(v, CodeDuplicate) }

// defaulted warns that the member name of the object obj, which the
// orchestration spec requires (seed 002, section), is missing or null (got
// is its value, nil when absent), and says which default xgr applies and
// what is allowed. Documents written by the public builder always carry it.
func (d *decoder) defaulted(obj, got *jsondoc.Value, name, section, applied, allowed string) {
	off, path, what := obj.Off, obj.Path().Key(name), "is missing"
	if got != nil {
		off, path, what = got.Off, got.Path(), "is null"
	}
	d.Warnf(off, path, CodeDefaulted, "%q %s; the orchestration spec requires it (%s), so xgr applies the default %s; allowed: %s",
		name, what, section, applied, allowed)
}

func (d *decoder) unknown(m jsondoc.Member, allowed string) {
	d.Warnf(m.NameOff, m.Value.Path(), CodeUnknownField, "unknown field %q is ignored (known here: %s)", m.Name, allowed)
}

func (d *decoder) document() *Orchestration {
	o := &Orchestration{}
	if len(d.raw) > MaxOSTCBytes {
		d.Errorf(-1, "", CodeTooLarge,
			"document is %d bytes; XRC-729 allows at most %d bytes (MaxOSTCBytes)", len(d.raw), MaxOSTCBytes)
		return o
	}
	root, err := jsondoc.Parse(d.raw, maxDepth)
	if err != nil {
		d.Syntax(err)
		return o
	}
	if !d.expect(root, "an object with \"id\" and \"structure\"", jsondoc.Object) {
		return o
	}
	d.unique(root)
	var structure *jsondoc.Value
	for _, m := range root.Members {
		switch m.Name {
		case "id":
			if d.expect(m.Value, "a string", jsondoc.String) {
				o.ID = m.Value.Text
				if o.ID == "" {
					d.errorf(m.Value, CodeRequired, "orchestration id is empty")
				} else if !isIdentifier(o.ID) {
					d.warnf(m.Value, CodeIdentifier, "orchestration id %q has characters outside [A-Za-z0-9_-]; authoring tools may not accept it", o.ID)
				}
			}
		case "structure":
			structure = m.Value
		default:
			d.unknown(m, `"id", "structure"`)
		}
	}
	if root.Get("id") == nil {
		d.missing(root, "id", "missing \"id\": every orchestration needs an id string")
	}
	if structure == nil {
		d.missing(root, "structure", "missing \"structure\": an object mapping step ids to steps")
		return o
	}
	d.structure(o, structure)
	return o
}

func (d *decoder) structure(o *Orchestration, v *jsondoc.Value) {
	if !d.expect(v, "an object mapping step ids to steps", jsondoc.Object) {
		return
	}
	if len(v.Members) == 0 {
		d.errorf(v, CodeRequired, "structure has no steps; at least one is required")
		return
	}
	if len(v.Members) > MaxSteps {
		d.errorf(v, CodeLimit, "structure has %d steps; XRC-729 allows at most %d (MaxSteps)", len(v.Members), MaxSteps)
	}
	o.index = make(map[string]int, len(v.Members))
	o.Steps = make([]*Step, 0, len(v.Members))
	steps := make([]Step, len(v.Members)) // one allocation for all steps
	values := make([]*jsondoc.Value, 0, len(v.Members))
	for _, m := range v.Members {
		if first, dup := o.index[m.Name]; dup {
			line, col := d.Pos(o.Steps[first].off)
			d.Errorf(m.NameOff, m.Value.Path(), CodeDuplicate, "step %q is defined twice (first at %d:%d)", m.Name, line, col)
			continue
		}
		if msg := checkIdentifier(m.Name); msg != "" {
			d.Errorf(m.NameOff, m.Value.Path(), CodeIdentifier, "step id %s", msg)
		}
		s := &steps[len(o.Steps)]
		s.ID, s.Index, s.off = m.Name, len(o.Steps), m.NameOff
		o.index[m.Name] = s.Index
		o.Steps = append(o.Steps, s)
		values = append(values, m.Value)
	}
	for i, s := range o.Steps {
		d.step(o, s, values[i])
	}
}

func (d *decoder) step(o *Orchestration, s *Step, v *jsondoc.Value) {
	if !d.expect(v, "a step object with \"rule\"", jsondoc.Object) {
		return
	}
	d.unique(v)
	for _, m := range v.Members {
		switch m.Name {
		case "rule":
			if d.expect(m.Value, "a string (XRC-137 contract address)", jsondoc.String) {
				s.Rule = m.Value.Text
				d.rule(m.Value)
			}
		case "onValid":
			s.OnValid = d.branch(o, m.Value, OutcomeValid)
		case "onInvalid":
			s.OnInvalid = d.branch(o, m.Value, OutcomeInvalid)
		default:
			d.unknown(m, `"rule", "onValid", "onInvalid"`)
		}
	}
	if v.Get("rule") == nil {
		d.missing(v, "rule", "step %q has no \"rule\": every step references an XRC-137 rule contract", s.ID)
	}
}

// rule accepts any non-empty reference and warns about forms that cannot be
// resolved to a contract as they stand.
func (d *decoder) rule(v *jsondoc.Value) {
	r := v.Text
	switch {
	case r == "":
		d.errorf(v, CodeRequired, "rule is empty; give the XRC-137 contract address")
	case isHexAddress(r):
	case strings.HasPrefix(r, "${addr:") && strings.HasSuffix(r, "}") && len(r) > len("${addr:}"):
	case strings.HasPrefix(r, "<") && strings.HasSuffix(r, ">"):
		d.warnf(v, CodeRule, "rule %q is a deployer placeholder; replace it with the deployed XRC-137 address", r)
	default:
		d.warnf(v, CodeRule, "rule %q is neither a 0x address (40 hex digits) nor a ${addr:ALIAS} alias", r)
	}
}

func isHexAddress(s string) bool {
	if len(s) != 42 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return false
	}
	for _, c := range s[2:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func (d *decoder) branch(o *Orchestration, v *jsondoc.Value, out Outcome) *Branch {
	if v.Kind == jsondoc.Null {
		return nil
	}
	if !d.expect(v, "a branch object (\"spawns\", \"join\")", jsondoc.Object) {
		return nil
	}
	d.unique(v)
	b := &Branch{Outcome: out}
	var spawns *jsondoc.Value
	for _, m := range v.Members {
		switch m.Name {
		case "spawns":
			spawns = m.Value
			b.Spawns = d.spawns(o, m.Value)
		case "join":
			if m.Value.Kind != jsondoc.Null {
				b.Join = d.join(o, m.Value)
			}
		default:
			d.unknown(m, `"spawns", "join"`)
		}
	}
	if b.Join != nil && spawns != nil && spawns.Kind == jsondoc.Array {
		for _, it := range spawns.Items {
			if it.Kind == jsondoc.String && it.Text == b.Join.Target && b.Join.Target != "" {
				d.warnf(it, CodeRedundant, "%q is both spawned and the join target of this branch; it will run once as a producer and once as the target", it.Text)
			}
		}
	}
	return b
}

func (d *decoder) spawns(o *Orchestration, v *jsondoc.Value) []string {
	if v.Kind == jsondoc.Null {
		return nil
	}
	if !d.expect(v, "an array of step ids", jsondoc.Array) {
		return nil
	}
	if len(v.Items) > MaxSpawnsPerBranch {
		d.errorf(v, CodeLimit, "branch spawns %d steps; XRC-729 allows at most %d per branch (MaxSpawnsPerBranch)", len(v.Items), MaxSpawnsPerBranch)
	}
	out := make([]string, 0, len(v.Items))
	for _, it := range v.Items {
		id, ok := d.stepRef(o, it, "spawn")
		if !ok {
			continue
		}
		for j, prev := range out {
			if prev == id {
				d.warnf(it, CodeSpawnRepeated, "%q is spawned again (also at %s); each entry starts its own process", id, v.Path().Index(j))
				break
			}
		}
		out = append(out, id)
	}
	return out
}

// stepRef checks a reference to a step id: a string, an identifier, a defined step.
func (d *decoder) stepRef(o *Orchestration, v *jsondoc.Value, what string) (string, bool) {
	if !d.expect(v, "a step id string", jsondoc.String) {
		return "", false
	}
	id := v.Text
	if msg := checkIdentifier(id); msg != "" {
		d.errorf(v, CodeIdentifier, "%s target %s", what, msg)
		return "", false
	}
	if _, ok := o.index[id]; !ok {
		d.errorf(v, CodeUnknownStep, "%s target %q is not a step of structure (steps: %s)", what, id, stepList(o))
		return "", false
	}
	return id, true
}

func stepList(o *Orchestration) string {
	const show = 12
	ids := make([]string, 0, show+1)
	for i, s := range o.Steps {
		if i == show {
			ids = append(ids, fmt.Sprintf("… %d more", len(o.Steps)-show))
			break
		}
		ids = append(ids, s.ID)
	}
	return strings.Join(ids, ", ")
}

func (d *decoder) join(o *Orchestration, v *jsondoc.Value) *Join {
	if !d.expect(v, "a join object (\"joinid\", \"mode\", \"waitonjoin\", \"from\")", jsondoc.Object) {
		return nil
	}
	d.unique(v)
	j := &Join{}
	var mode, k, from, policy *jsondoc.Value
	var policyName string
	for _, m := range v.Members {
		switch m.Name {
		case "joinid":
			j.Target, _ = d.stepRef(o, m.Value, "join")
		case "mode":
			mode = m.Value
		case "k":
			k = m.Value
		case "from":
			from = m.Value
		case "waitonjoin", "waitOnJoin":
			if policyName != "" {
				d.Errorf(m.NameOff, m.Value.Path(), CodeDuplicate, "policy given twice (%q and %q); keep \"waitonjoin\"", policyName, m.Name)
				continue
			}
			policyName, policy = m.Name, m.Value
			if m.Name == "waitOnJoin" {
				d.Warnf(m.NameOff, m.Value.Path(), CodeUnknownField, "\"waitOnJoin\" is read as \"waitonjoin\"; the canonical spelling is lower case")
			}
			j.Policy = d.policy(m.Value)
		default:
			d.unknown(m, `"joinid", "mode", "k", "waitonjoin", "from"`)
		}
	}
	if v.Get("joinid") == nil {
		d.missing(v, "joinid", "join has no \"joinid\": name the step that runs when the join closes")
	}
	if mode == nil || mode.Kind == jsondoc.Null {
		applied := `"any" (k=1)`
		if k != nil && k.Kind != jsondoc.Null {
			applied = `"kofn", read from the given "k"`
		}
		d.defaulted(v, mode, "mode", "§6.2", applied, `"any", "all", "kofn" with "k", {"k": n} or {"kofn": n}`)
	}
	if policy == nil || policy.Kind == jsondoc.Null {
		d.defaulted(v, policy, "waitonjoin", "§6.2", `"drain" (producers still running when the join closes may finish)`, `"kill", "drain"`)
	}
	n := 0
	if from == nil {
		d.missing(v, "from", "join has no \"from\": list the expected producer steps as {\"node\": ..., \"when\": ...}")
	} else {
		j.From = d.from(o, from)
		if from.Kind == jsondoc.Array {
			n = len(from.Items)
		}
	}
	d.threshold(j, v, mode, k, n)
	return j
}

func (d *decoder) from(o *Orchestration, v *jsondoc.Value) []From {
	if !d.expect(v, "an array of {\"node\", \"when\"} objects", jsondoc.Array) {
		return nil
	}
	if len(v.Items) == 0 {
		d.errorf(v, CodeRequired, "join expects no producers; \"from\" needs at least one entry")
	}
	if len(v.Items) > MaxJoinInputs {
		d.errorf(v, CodeLimit, "join has %d inputs; XRC-729 allows at most %d (MaxJoinInputs)", len(v.Items), MaxJoinInputs)
	}
	out := make([]From, 0, len(v.Items))
	for i, it := range v.Items {
		if !d.expect(it, "a {\"node\", \"when\"} object", jsondoc.Object) {
			continue
		}
		d.unique(it)
		f := From{}
		ok := true
		for _, m := range it.Members {
			switch m.Name {
			case "node":
				f.Node, ok = d.stepRef(o, m.Value, "from")
			case "when":
				f.When = d.when(m.Value)
			default:
				d.unknown(m, `"node", "when"`)
			}
		}
		if when := it.Get("when"); when == nil || when.Kind == jsondoc.Null {
			d.defaulted(it, when, "when", "§6.3", `"any" (valid and invalid outcomes both deliver)`, `"valid", "invalid", "any"`)
		}
		node := it.Get("node")
		if node == nil {
			d.missing(it, "node", "from entry has no \"node\": name the expected producer step")
			continue
		}
		if !ok {
			continue
		}
		if dup := firstFrom(v.Items[:i], f.Node); dup >= 0 {
			d.errorf(node, CodeDuplicate, "from node %q is listed twice (also at %s); each producer step may be expected once", f.Node, v.Path().Index(dup))
			continue
		}
		out = append(out, f)
	}
	return out
}

// firstFrom returns the index of the first of the earlier from entries that names node, or -1.
func firstFrom(earlier []*jsondoc.Value, node string) int {
	for i, prev := range earlier {
		if n := prev.Get("node"); prev.Kind == jsondoc.Object && n != nil && n.Kind == jsondoc.String && n.Text == node {
			return i
		}
	}
	return -1
}

func (d *decoder) when(v *jsondoc.Value) When {
	if v.Kind == jsondoc.Null {
		return WhenAny
	}
	if !d.expect(v, `"valid", "invalid", "any" or "both"`, jsondoc.String) {
		return WhenAny
	}
	switch v.Text {
	case "valid":
		return WhenValid
	case "invalid":
		return WhenInvalid
	case "any", "both", "":
		return WhenAny
	}
	d.errorf(v, CodeWhen, "when %q is not allowed; use \"valid\", \"invalid\" or \"any\" (\"both\" and \"\" mean any)", v.Text)
	return WhenAny
}

func (d *decoder) policy(v *jsondoc.Value) Policy {
	if v.Kind == jsondoc.Null {
		return PolicyDrain
	}
	if !d.expect(v, `"kill" or "drain"`, jsondoc.String) {
		return PolicyDrain
	}
	switch v.Text {
	case "kill":
		return PolicyKill
	case "drain", "":
		return PolicyDrain
	}
	d.errorf(v, CodePolicy, "waitonjoin %q is not allowed; use \"kill\" or \"drain\" (absent means drain)", v.Text)
	return PolicyDrain
}

// threshold resolves mode and k of the join object v into Join.Mode and
// Join.K and checks 1 <= k <= n.
func (d *decoder) threshold(j *Join, v, mode, k *jsondoc.Value, n int) {
	joinK, haveJoinK := 0, false
	if k != nil && k.Kind != jsondoc.Null {
		if joinK, haveJoinK = d.count(k); !haveJoinK {
			return
		}
	}
	modeK, haveModeK := 0, false // k carried by the object form of mode
	switch {
	case mode == nil || mode.Kind == jsondoc.Null:
		j.Mode = ModeAny // join warns about the missing mode
		if haveJoinK {
			j.Mode = ModeKofN
		}
	case mode.Kind == jsondoc.String:
		switch mode.Text {
		case "any":
			j.Mode = ModeAny
		case "all":
			j.Mode = ModeAll
		case "kofn":
			j.Mode = ModeKofN
			if !haveJoinK {
				d.Errorf(mode.Off, v.Path().Key("k"), CodeK, "mode \"kofn\" needs \"k\": the number of from entries that must deliver")
				return
			}
		default:
			d.errorf(mode, CodeMode, "mode %q is not allowed; use \"any\", \"all\", \"kofn\" with \"k\", or {\"k\": n} / {\"kofn\": n}", mode.Text)
			return
		}
	case mode.Kind == jsondoc.Object:
		j.Mode = ModeKofN
		d.unique(mode)
		for _, m := range mode.Members {
			switch m.Name {
			case "k", "kofn":
				got, ok := d.count(m.Value)
				if !ok {
					return
				}
				if haveModeK && got != modeK {
					d.errorf(m.Value, CodeK, "mode gives k twice with different values (%d and %d)", modeK, got)
					return
				}
				modeK, haveModeK = got, true
			default:
				d.unknown(m, `"k", "kofn"`)
			}
		}
		if !haveModeK {
			d.errorf(mode, CodeMode, "mode object needs \"k\" or \"kofn\", e.g. {\"kofn\": 2}")
			return
		}
	default:
		d.errorf(mode, CodeType, "mode must be \"any\", \"all\", \"kofn\" or an object {\"kofn\": n}, found %s", mode.Kind)
		return
	}

	switch {
	case haveModeK:
		j.K = modeK
	case j.Mode == ModeKofN:
		j.K = joinK
	case j.Mode == ModeAll:
		j.K = n
	default:
		j.K = 1
	}
	if haveJoinK && (j.Mode != ModeKofN || haveModeK) {
		if joinK != j.K {
			d.errorf(k, CodeK, "k is %d but mode %s means k=%d; give the threshold once", joinK, describeMode(mode), j.K)
			return
		}
		d.warnf(k, CodeRedundant, "k=%d repeats what mode %s already says", joinK, describeMode(mode))
	}
	if n > 0 && (j.K < 1 || j.K > n) {
		at := k
		if haveModeK {
			at = mode
		}
		d.errorf(at, CodeK, "k=%d is out of range; it must be between 1 and %d (the number of from entries)", j.K, n)
	}
}

func describeMode(mode *jsondoc.Value) string {
	if mode != nil && mode.Kind == jsondoc.String {
		return strconv.Quote(mode.Text)
	}
	return "object"
}

// count reads a whole, non-negative JSON number.
func (d *decoder) count(v *jsondoc.Value) (int, bool) {
	if !d.expect(v, "a whole number", jsondoc.Number) {
		return 0, false
	}
	n, err := strconv.Atoi(v.Text)
	if err != nil || n < 0 {
		d.errorf(v, CodeK, "k must be a whole number between 1 and the number of from entries, found %s", v.Text)
		return 0, false
	}
	return n, true
}

// isIdentifier reports whether s is an ASCII identifier: [A-Za-z0-9_-]+.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// checkIdentifier returns "" for a valid step id, else what is wrong with it.
func checkIdentifier(s string) string {
	switch {
	case s == "":
		return "is empty; step ids are 1 to 64 characters of [A-Za-z0-9_-]"
	case len(s) > MaxStepIDLen:
		return fmt.Sprintf("%q is %d characters; at most %d are allowed (MaxStepIdLen)", s, len(s), MaxStepIDLen)
	case !isIdentifier(s):
		return fmt.Sprintf("%q has characters outside [A-Za-z0-9_-] (ASCII identifier required)", s)
	}
	return ""
}
