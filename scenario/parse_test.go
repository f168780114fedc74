package scenario

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

const examples = "../examples/scenario"

const kycFile = "Order_process_waits_for_KYC_and_continues_when_KYC_is_valid_scenario.json"

func readExample(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(examples, name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestParseKYCScenario(t *testing.T) {
	f, err := Parse(readExample(t, kycFile))
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != KindMultiScenario || len(f.Scenarios) != 1 || len(f.Plans) != 0 {
		t.Fatalf("file: %+v", f)
	}
	s := f.Scenarios[0]
	if len(s.Plans) != 2 || s.Plans[0].Key != "order_process" || s.Plans[1].Key != "kyc_worker" {
		t.Fatalf("plans: %v", s.planKeys())
	}
	if !reflect.DeepEqual(s.Actors, []string{"owner", "owner1"}) || !reflect.DeepEqual(f.Aliases(), []string{"owner", "owner1"}) {
		t.Errorf("actors %v, aliases %v", s.Actors, f.Aliases())
	}
	order, kyc := s.Plans[0], s.Plans[1]
	if order.OstcID != "order_kyc_bestellprozess" || len(order.Rules) != 5 || len(order.OSTC.StepRule) != 5 ||
		order.Rules[order.OSTC.StepRule["request_kyc"]].Alias != "RequestKyc" || order.OwnerAlias != "owner" || order.StartStep != "receive_order" {
		t.Errorf("order plan: %+v", order)
	}
	if kyc.OstcID != "kyc_order_wakeup_process" || len(kyc.Rules) != 12 || kyc.OwnerAlias != "owner1" || kyc.StarterAlias != "owner1" {
		t.Errorf("kyc plan: %+v", kyc)
	}
	// The deployed rule text is the item without its bundle bookkeeping.
	var doc map[string]any
	r := order.Rule("RequestKyc")
	if err := json.Unmarshal(r.Text, &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "bundleId", "address", "meta"} {
		if _, ok := doc[k]; ok {
			t.Errorf("rule text keeps %q", k)
		}
	}
	if doc["name"] == nil || doc["rules"] == nil || doc["onValid"] == nil || r.Address != "0x31c3faf88c3a457ced0d301a986123e3bbffa409" {
		t.Errorf("rule text %s, address %s", r.Text, r.Address)
	}
	if len(s.Steps) != 9 {
		t.Fatalf("%d steps", len(s.Steps))
	}
	st := s.Steps[2]
	if st.Type != StartSession || st.PlanKey != "order_process" || st.Starter != "owner" || st.StartStep != "receive_order" || st.SaveAs != "order_session" ||
		st.Payload["KycSessionId"] != "$session.id:kyc_worker_session" || st.Payload["totalAmount"] != json.Number("19900") {
		t.Errorf("start step: %+v", st)
	}
	w := s.Steps[1]
	if w.Type != WaitForStep || w.Session != "kyc_worker_session" || w.StepID != "wait_for_kyc_request" || w.Status != "waiting" || w.Timeout.Seconds() != 60 || w.Poll.Seconds() != 2 {
		t.Errorf("wait step: %+v", w)
	}
	a := s.Steps[7]
	if a.Type != AssertSession || a.Session != "order_session" || len(a.Expect.Timeline) != 5 || a.Expect.FinalStep != "fulfill_order" ||
		!reflect.DeepEqual(a.Expect.FinalStatuses, []string{"done"}) {
		t.Fatalf("assert step: %+v", a)
	}
	cancel := a.Expect.Timeline[4].Alts[0]
	if cancel.StepID != "cancel_order" || cancel.Exist || cancel.Valid != nil || cancel.Status != "" || cancel.Occurrence != 1 {
		t.Errorf("negative check: %+v", cancel)
	}
	req := a.Expect.Timeline[1].Alts[0]
	if req.StepID != "request_kyc" || !req.Exist || req.Valid == nil || !*req.Valid || req.Status != "done" {
		t.Errorf("request_kyc check: %+v", req)
	}
}

func TestParsePlanFiles(t *testing.T) {
	f, err := Parse(readExample(t, "xrc137_contractread_value_eq__valid_multi_plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != KindMultiPlan || len(f.Plans) != 1 {
		t.Fatalf("file: %+v", f)
	}
	p := f.Plans[0]
	if p.Key != "xrc137_contractread_value_eq__valid" || p.StartStep != "A1" || len(p.Rules) != 1 || p.Rules[0].Alias != "XRC137_A" ||
		!reflect.DeepEqual(p.Rules[0].AddrKeys, []string{"readContract"}) || len(p.Setup) != 1 {
		t.Fatalf("plan: %+v", p)
	}
	s := p.Setup[0]
	if s.Key != "readContract" || s.Mode != "deploy" || s.ContractName != "readContract" || !strings.Contains(s.Source, "return 42") || s.Always || s.By != "owner" {
		t.Errorf("setup: %+v", s)
	}
	alt := p.Expect.Timeline[0].Alts[0]
	if len(alt.Input) != 2 || alt.Input[0].Field != "AmountA" || alt.Input[0].Op != OpEq || alt.Input[0].Value != json.Number("50") ||
		len(alt.Reads) != 1 || alt.Reads[0].ValueType != "int256" {
		t.Errorf("alternative: %+v", alt)
	}
	f, err = Parse(readExample(t, "xrc137_api_slow_json_ok_valid_default_multi_plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	if a := f.Plans[0].Expect.Timeline[0].Alts[0]; len(a.API) != 1 || a.API[0].Field != "Ok" || a.API[0].Value != true {
		t.Errorf("api check: %+v", a)
	}
}

// A minimal scenario file, edited by the error cases below.
const small = `{
  "kind": "xgr.test-scenario",
  "version": 1,
  "title": "small",
  "actors": {"alice": {"alias": "alice", "signerKind": "alias"}},
  "plans": [{"key": "flow", "plan": {
    "source": {"bundleId": "b1", "rawBundleJson": ` + "BUNDLE" + `},
    "runtime": {"stepId": "A1", "payload": {"N": 1}}
  }}],
  "steps": [
    {"id": "go", "type": "startSession", "bundleKey": "flow", "starter": "alice", "payload": {"Who": "$actor.address:alice", "Rule": "$contract.address:flow:RuleA"}, "saveAs": "s"},
    {"id": "wait", "type": "waitForStep", "session": "$session.id:s", "runner": "$session.owner:s", "stepId": "B1", "status": "done"},
    {"id": "check", "type": "assertSession", "session": "$session.id:s", "expect": {"timeline": [{"stepId": "A1", "exist": true, "valid": true}], "finalStatuses": ["done"], "finalStep": "B1"}}
  ]
}`

const smallBundle = `{"format": "xgr-multi-bundle@1", "bundles": [{"bundleId": "b1", "items": [
  {"id": "A1", "address": "0x00000000000000000000000000000000000000a1", "meta": {"type": "xrc137", "alias": "RuleA"}, "payload": {"N": {"type": "int64"}}, "rules": ["[N] > 0"]},
  {"id": "B1", "address": "0x00000000000000000000000000000000000000b1", "meta": {"type": "xrc137", "alias": "RuleB"}, "payload": {}},
  {"id": "flow", "meta": {"type": "xrc729"}, "structure": {
    "A1": {"rule": "0x00000000000000000000000000000000000000A1", "onValid": {"spawns": ["B1"]}},
    "B1": {"rule": "RuleB"}}}
]}]}`

func smallFile(edit func(string) string, bundleEdit func(string) string) []byte {
	b := smallBundle
	if bundleEdit != nil {
		b = bundleEdit(b)
	}
	q, _ := json.Marshal(b)
	s := strings.Replace(small, "BUNDLE", string(q), 1)
	if edit != nil {
		s = edit(s)
	}
	return []byte(s)
}

func TestParseSmall(t *testing.T) {
	f, err := Parse(smallFile(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	p := f.Scenarios[0].Plans[0]
	if p.OSTC.StepRule["A1"] != 0 || p.OSTC.StepRule["B1"] != 1 || f.Title != "small" {
		t.Fatalf("rule mapping by address and by alias: %v", p.OSTC.StepRule)
	}
}

// Every rejected file names what is wrong, where (JSON path) and what is allowed.
func TestParseErrors(t *testing.T) {
	rep := func(old, new string) func(string) string {
		return func(s string) string {
			if !strings.Contains(s, old) {
				panic("test edit does not apply: " + old)
			}
			return strings.Replace(s, old, new, 1)
		}
	}
	for _, tc := range []struct {
		name         string
		edit, bundle func(string) string
		path, msg    string
	}{
		{"broken JSON", rep(`"title": "small",`, `"title": "small"`), nil, "", "broken JSON"},
		{"kind", rep(`"xgr.test-scenario"`, `"xgr.test-thing"`), nil, "kind", `want one of "xgr.multi-test-scenario"`},
		{"version", rep(`"version": 1`, `"version": 2`), nil, "version", "version 2 is not supported"},
		{"step type", rep(`"type": "waitForStep"`, `"type": "sleep"`), nil, "steps[1].type", `want "startSession", "waitForStep", "assertSession"`},
		{"unknown plan", rep(`"bundleKey": "flow"`, `"bundleKey": "flo"`), nil, "steps[0].bundleKey", `names no plan of this scenario (plans: "flow")`},
		{"undeclared actor", rep(`"starter": "alice"`, `"starter": "bob"`), nil, "steps[0].starter", `actor "bob" is not declared in actors (declared: "alice")`},
		{"session before start", rep(`"Who": "$actor.address:alice"`, `"Who": "$session.id:s"`), nil, "steps[0].payload.Who", `no earlier startSession saved a session as "s"`},
		{"unknown contract alias", rep(`$contract.address:flow:RuleA`, `$contract.address:flow:RuleC`), nil, "steps[0].payload.Rule", `plan "flow" has no XRC-137 item with alias "RuleC" (aliases: "RuleA", "RuleB")`},
		{"malformed placeholder", rep(`$actor.address:alice`, `$actor.adress:alice`), nil, "steps[0].payload.Who", `unknown kind "actor.adress"`},
		{"wait on unknown session", rep(`"session": "$session.id:s", "runner"`, `"session": "$session.id:t", "runner"`), nil, "steps[1].session", `no earlier startSession saved a session as "t"`},
		{"runner mismatch", rep(`"runner": "$session.owner:s"`, `"runner": "$session.owner:go"`), nil, "steps[1].runner", `no earlier startSession saved a session as "go"`},
		{"unknown step", rep(`"stepId": "B1", "status"`, `"stepId": "B2", "status"`), nil, "steps[1].stepId", `"B2" is not a step of orchestration "flow" (steps: "A1", "B1")`},
		{"bad status", rep(`"status": "done"`, `"status": "finished"`), nil, "steps[1].status", `status "finished": want one of "waiting", "running", "executing", "done", "aborted"`},
		{"bad final status", rep(`"finalStatuses": ["done"]`, `"finalStatuses": ["ok"]`), nil, "steps[2].expect.finalStatuses[0]", `status "ok"`},
		{"bad occurrence", rep(`{"stepId": "A1", "exist": true`, `{"stepId": "A1", "occurrence": 0, "exist": true`), nil, "steps[2].expect.timeline[0].occurrence", "expected an integer ≥ 1, found 0"},
		{"valid not a bool", rep(`"valid": true}`, `"valid": "yes"}`), nil, "steps[2].expect.timeline[0].valid", `valid "yes": want true, false, or "any"`},
		{"no steps", rep(`"steps": [`, `"stepz": [`), nil, "steps", `missing "steps"`},
		{"embedded JSON broken", nil, rep(`"bundles": [`, `"bundles": [[`), "plans[0].plan.source.rawBundleJson", "the embedded JSON is broken"},
		{"rule not in bundle", nil, rep(`"rule": "RuleB"`, `"rule": "RuleZ"`), "plans[0].plan.source.rawBundleJson → bundles[0].items[2].structure.B1.rule", `rule "RuleZ" is none of the bundle's XRC-137 items`},
		{"duplicate alias", nil, rep(`"alias": "RuleB"`, `"alias": "RuleA"`), "plans[0].plan.source.rawBundleJson → bundles[0].items[1]", `alias "RuleA" is also the alias of`},
		{"no orchestration", nil, rep(`"type": "xrc729"`, `"type": "xrc137", "alias": "X"`), "plans[0].plan.source.rawBundleJson → bundles[0].items", "the bundle has no XRC-729 item"},
		{"bundle id", nil, rep(`"bundleId": "b1"`, `"bundleId": "b2"`), "plans[0].plan.source.rawBundleJson → bundles", `no bundle has bundleId "b1"`},
		{"setup placeholder without setup", nil, rep(`"rules": ["[N] > 0"]`, `"rules": ["[N] > 0"], "contractReads": [{"to": "${addr:feed}", "function": "f()", "saveAs": {"0": {"key": "x", "type": "int64"}}}]`), "plans[0].plan.source.rawBundleJson → bundles[0].items[0]", `refers to ${addr:feed}, but testSetup.contracts has no contract with key "feed"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(smallFile(tc.edit, tc.bundle))
			var inv *jsondoc.Invalid
			if !errors.As(err, &inv) {
				t.Fatalf("want *jsondoc.Invalid, got %v", err)
			}
			for _, p := range inv.Problems {
				if p.Path == tc.path && strings.Contains(p.Message, tc.msg) {
					if p.Line == 0 {
						t.Errorf("problem without a line: %v", p)
					}
					return
				}
			}
			t.Fatalf("no problem at %q containing %q in:\n%v", tc.path, tc.msg, err)
		})
	}
}
