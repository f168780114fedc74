package rule

import (
	"math"
	"strings"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

func (d *decoder) rules(v *jsondoc.Value, path jsondoc.Path) []*Rule {
	if !d.expect(v, path, "an array of rule strings or {\"type\", \"expression\"} objects", jsondoc.Array) {
		return nil
	}
	if len(v.Items) > MaxRules {
		d.errorf(v, path, CodeLimit, "%d rules; XRC-137 allows at most %d (MaxRules)", len(v.Items), MaxRules)
	}
	var out []*Rule
	for i, it := range v.Items {
		ip := path.Index(i)
		r := &Rule{Index: i, Type: RuleValidate}
		switch it.Kind {
		case jsondoc.String:
			r.Expr = d.expr(it, ip)
		case jsondoc.Object:
			m := d.members(it, ip, "type", "expression")
			d.forbid(it, ip, "expr", `a rule object names its expression "expression"`)
			if tv, ok := m["type"]; ok && tv.Kind != jsondoc.Null && d.expect(tv, ip.Key("type"), "a string", jsondoc.String) {
				switch tv.Text {
				case "validate", "":
				case "abortStep":
					r.Type = RuleAbortStep
				case "cancelSession":
					r.Type = RuleCancelSession
				default:
					d.errorf(tv, ip.Key("type"), CodeRuleType, `rule type %q is not supported; use "validate", "abortStep" or "cancelSession"`, tv.Text)
				}
			}
			if d.require(it, m, ip, "expression", "the boolean CEL expression of the rule") {
				r.Expr = d.expr(m["expression"], ip.Key("expression"))
			}
		default:
			d.errorf(it, ip, CodeType, "expected a rule string or a {\"type\", \"expression\"} object, found %s", it.Kind)
		}
		if r.Expr != nil {
			out = append(out, r)
		}
	}
	return out
}

func (d *decoder) branch(v *jsondoc.Value, path jsondoc.Path) *Branch {
	b := &Branch{}
	if v.Kind == jsondoc.Null {
		return b
	}
	if !d.expect(v, path, "a branch object", jsondoc.Object) {
		return b
	}
	m := d.members(v, path, "payload", "execution", "grants", "wakeUps", "logExpireDays", "waitSec", "encryptLogs")
	if pv, ok := m["payload"]; ok && pv.Kind != jsondoc.Null {
		b.Payload = d.outputs(pv, path.Key("payload"), MaxOutcomeKeys, "MaxOutcomeKeys")
	}
	if wv, ok := m["waitSec"]; ok && wv.Kind != jsondoc.Null {
		b.WaitSec, _ = d.uintValue(wv, path.Key("waitSec"), "waitSec", maxWaitSec)
	}
	if ev, ok := m["execution"]; ok && ev.Kind != jsondoc.Null {
		b.Execution = d.execution(ev, path.Key("execution"))
	}
	if gv, ok := m["grants"]; ok && gv.Kind != jsondoc.Null {
		b.Grants = d.grants(gv, path.Key("grants"))
	}
	if wv, ok := m["wakeUps"]; ok && wv.Kind != jsondoc.Null {
		b.WakeUps = d.wakeUps(wv, path.Key("wakeUps"))
	}
	if lv, ok := m["logExpireDays"]; ok && lv.Kind != jsondoc.Null {
		if n, ok := d.uintValue(lv, path.Key("logExpireDays"), "logExpireDays", math.MaxUint32); ok {
			b.LogExpireDays = &n
		}
	}
	if ev, ok := m["encryptLogs"]; ok && ev.Kind != jsondoc.Null && d.expect(ev, path.Key("encryptLogs"), "true or false", jsondoc.Bool) {
		t := ev.True
		b.EncryptLogs = &t
	}
	return b
}

// outputs reads an output payload object: key → literal or Eval-or-Render string.
func (d *decoder) outputs(v *jsondoc.Value, path jsondoc.Path, max int, capName string) Outputs {
	if !d.expect(v, path, "an object mapping output keys to values", jsondoc.Object) {
		return nil
	}
	if max > 0 && len(v.Members) > max {
		d.errorf(v, path, CodeLimit, "payload has %d keys; XRC-137 allows at most %d (%s)", len(v.Members), max, capName)
	}
	d.members(v, path, memberNames(v)...)
	var out Outputs
	seen := map[string]bool{}
	for _, mem := range v.Members {
		if seen[mem.Name] {
			continue
		}
		seen[mem.Name] = true
		if !d.fieldName(mem, path, "output key") {
			continue
		}
		if val := d.value(mem.Value, path.Key(mem.Name)); val != nil {
			out = append(out, OutputField{Key: mem.Name, Value: val})
		}
	}
	return out
}

// value reads a literal, or classifies and prepares a string for Eval-or-Render.
func (d *decoder) value(v *jsondoc.Value, path jsondoc.Path) *Value {
	if v.Kind != jsondoc.String {
		return &Value{IsLiteral: true, Literal: d.literal(v, path)}
	}
	s, ok := d.str(v, path, "a string", MaxStringValueLen, "MaxStringValueLen")
	if !ok {
		return nil
	}
	val := &Value{Source: s, Kind: Classify(s)}
	if val.Kind == KindTemplate {
		if val.Template = d.template(v, path, s); val.Template == nil {
			return nil
		}
		return val
	}
	if msg := exprTooLong(s); msg != "" {
		d.errorf(v, path, CodeLimit, "%s (the string reads as an expression; see the Eval-or-Render rules)", msg)
		return nil
	}
	e, err := CompileExpr(s)
	if err != nil {
		d.errorf(v, path, CodeExpression, "%v (the string reads as an expression; see the Eval-or-Render rules)", unwrapExpr(err))
		return nil
	}
	val.Expr = e
	return val
}

// stringValue is value() for fields that must be strings.
func (d *decoder) stringValue(v *jsondoc.Value, path jsondoc.Path, what string) *Value {
	if !d.expect(v, path, what, jsondoc.String) {
		return nil
	}
	val := d.value(v, path)
	if val == nil || what != "an address string" {
		return val
	}
	constant := val.Kind == KindTemplate && len(val.Template.Keys()) == 0 || val.Kind == KindExpression && len(val.Expr.Keys) == 0
	if text := strings.Trim(strings.TrimSpace(val.Source), `"'`); constant && !IsAddress(text) {
		d.errorf(v, path, CodeAddress, "%q is not an address (0x followed by 40 hex digits)", val.Source)
	}
	return val
}

func (d *decoder) execution(v *jsondoc.Value, path jsondoc.Path) *Execution {
	if !d.expect(v, path, "an execution object", jsondoc.Object) {
		return nil
	}
	m := d.members(v, path, "to", "gas", "function", "args", "value", "extras")
	x := &Execution{}
	if d.require(v, m, path, "to", "the target address (a literal, template or expression)") {
		x.To = d.stringValue(m["to"], path.Key("to"), "an address string")
	}
	if gv, ok := m["gas"]; ok && gv.Kind != jsondoc.Null && d.expect(gv, path.Key("gas"), `{"limit": <uint64>}`, jsondoc.Object) {
		gm := d.members(gv, path.Key("gas"), "limit")
		if lv, ok := gm["limit"]; ok {
			if n, ok := d.uintValue(lv, path.Key("gas").Key("limit"), "gas limit", math.MaxUint64); ok {
				x.GasLimit = &n
			}
		}
	}
	if fv, ok := m["function"]; ok && fv.Kind != jsondoc.Null {
		x.Function = d.signature(fv, path.Key("function"), true)
	}
	if av, ok := m["args"]; ok && av.Kind != jsondoc.Null {
		x.Args = d.typedValues(av, path.Key("args"), MaxExecArgs, "MaxExecArgs")
	}
	if x.Function != "" {
		d.argCount(v, m["args"], path, x.Function)
		sig, err := ParseExecSignature(x.Function)
		if err != nil {
			d.errorf(m["function"], path.Key("function"), CodeSignature, "%v", err)
		}
		x.sig = sig
	} else if av, ok := m["args"]; ok && av.Kind == jsondoc.Array && len(av.Items) > 0 {
		d.warnf(av, path.Key("args"), CodeSignature, "%d args but no \"function\": args are encoded for a function signature such as \"settle(uint256,address)\"; without one the execution is a plain value transfer, and evaluating this branch is a hard error", len(av.Items))
	}
	if vv, ok := m["value"]; ok && vv.Kind != jsondoc.Null {
		x.Value = d.typedValue(vv, path.Key("value"))
	}
	if ev, ok := m["extras"]; ok && ev.Kind != jsondoc.Null {
		if d.expect(ev, path.Key("extras"), "an object", jsondoc.Object) {
			x.Extras = d.literal(ev, path.Key("extras"))
		}
	}
	return x
}

func (d *decoder) grants(v *jsondoc.Value, path jsondoc.Path) []*Grant {
	if !d.expect(v, path, "an array of grant objects", jsondoc.Array) {
		return nil
	}
	if len(v.Items) > MaxGrants {
		d.errorf(v, path, CodeLimit, "%d grants; XRC-137 allows at most %d per branch (MaxGrants)", len(v.Items), MaxGrants)
	}
	var out []*Grant
	for i, it := range v.Items {
		ip := path.Index(i)
		if !d.expect(it, ip, `a grant {"address", "rights", "expireDays"}`, jsondoc.Object) {
			continue
		}
		m := d.members(it, ip, "address", "rights", "expireDays")
		g := &Grant{}
		if d.require(it, m, ip, "address", "the grantee address") {
			g.Address = d.stringValue(m["address"], ip.Key("address"), "an address string")
		}
		if d.require(it, m, ip, "rights", "a bitmask: 1 read, 2 write, 4 manage") {
			if n, ok := d.uintValue(m["rights"], ip.Key("rights"), "rights", 7); ok {
				if n == 0 {
					d.errorf(m["rights"], ip.Key("rights"), CodeRange, "rights 0 grants nothing; use a bitmask of 1 (read), 2 (write), 4 (manage)")
				}
				g.Rights = uint8(n)
			}
		}
		if ev, ok := m["expireDays"]; ok && ev.Kind != jsondoc.Null {
			g.ExpireDays, _ = d.uintValue(ev, ip.Key("expireDays"), "expireDays", math.MaxUint32)
		}
		if g.Address != nil {
			out = append(out, g)
		}
	}
	return out
}

func (d *decoder) wakeUps(v *jsondoc.Value, path jsondoc.Path) []*WakeUp {
	if !d.expect(v, path, "an array of wake-up objects", jsondoc.Array) {
		return nil
	}
	var out []*WakeUp
	for i, it := range v.Items {
		ip := path.Index(i)
		if !d.expect(it, ip, `a wake-up {"runner", "sessionId", "stepId", "payload"}`, jsondoc.Object) {
			continue
		}
		m := d.members(it, ip, "runner", "sessionId", "stepId", "payload")
		w := &WakeUp{}
		if d.require(it, m, ip, "runner", "the address of the target session's owner") {
			w.Runner = d.stringValue(m["runner"], ip.Key("runner"), "an address string")
		}
		if d.require(it, m, ip, "sessionId", "the target session's root process id (> 0)") {
			sv := m["sessionId"]
			switch sv.Kind {
			case jsondoc.Number:
				if n, ok := d.uintValue(sv, ip.Key("sessionId"), "sessionId", math.MaxUint64); ok {
					if n == 0 {
						d.errorf(sv, ip.Key("sessionId"), CodeRange, "sessionId must be greater than 0")
					}
					w.SessionID = &Value{IsLiteral: true, Literal: d.literal(sv, ip.Key("sessionId"))}
				}
			default:
				w.SessionID = d.stringValue(sv, ip.Key("sessionId"), "a session id (number or string)")
			}
		}
		if d.require(it, m, ip, "stepId", "the step the target session waits on") {
			if s, ok := d.str(m["stepId"], ip.Key("stepId"), "a step id string (a literal, template or expression)", MaxFieldNameLen, "MaxStepIdLen"); ok {
				if strings.TrimSpace(s) == "" {
					d.errorf(m["stepId"], ip.Key("stepId"), CodeRequired, "stepId is empty")
				} else {
					w.Step = d.value(m["stepId"], ip.Key("stepId"))
				}
				w.StepID = s
			}
		}
		if pv, ok := m["payload"]; ok && pv.Kind != jsondoc.Null {
			w.Payload = d.outputs(pv, ip.Key("payload"), MaxOutcomeKeys, "MaxOutcomeKeys")
			for _, f := range w.Payload {
				if strings.HasPrefix(f.Key, "_") {
					d.warnf(pv.Get(f.Key), ip.Key("payload").Key(f.Key), CodeForbidden, "keys starting with _ are dropped from wake-up payloads")
				}
			}
		}
		out = append(out, w)
	}
	return out
}
