package ruleexec_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/execution/scripted"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/logseal"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/ruleexec"
	"github.com/xgr-sidecar/xgr/testenv"
	"github.com/xgr-sidecar/xgr/tracing"
)

// Issue 38, Medium 4: a step whose rule asks for sealed logs and which
// then aborts with a reason that quotes a payload value (its execution
// target resolved from [ssn]) leaves that value nowhere outside its sealed
// bundle: not in any Redis key but the process's live input, not in a log
// line, not in a span (attributes, status, events), not in the timeline
// (which the console shows).

const planted = "SSN-PLANT-7Q4X9Z"

const sealedOwner = "0x00000000000000000000000000000000000000bb"

// sealedRule: the step is valid, and its onValid execution's target is
// the payload's ssn, which is no address: the step aborts with a reason
// that quotes it. Which branch says encryptLogs is the test's.
func sealedRule(validSeals, invalidSeals bool) string {
	return fmt.Sprintf(`{
  "payload": {"ssn": {"type": "string"}, "n": {"type": "int64"}},
  "rules": ["[n] > 0"],
  "onValid": {"payload": {"checked": "[ssn]"}, "encryptLogs": %v, "execution": {"to": "[ssn]"}},
  "onInvalid": {"payload": {"refused": "[ssn]"}, "encryptLogs": %v}
}`, validSeals, invalidSeals)
}

type keyMap map[common.Address]*envelope.ReadKey

func (k keyMap) ReadKey(_ context.Context, a common.Address) ([]byte, error) {
	if r, ok := k[a]; ok {
		return r.Public().Bytes(), nil
	}
	return nil, nil
}

func TestSealedStepAbortLeaksNoPayloadValue(t *testing.T) {
	for name, seals := range map[string][2]bool{"onValid seals": {true, false}, "only onInvalid seals": {false, true}} {
		t.Run(name, func(t *testing.T) { sealedAbort(t, seals[0], seals[1]) })
	}
}

func sealedAbort(t *testing.T, validSeals, invalidSeals bool) {
	ctx := context.Background()
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	ownerKey, err := envelope.GenerateReadKey()
	if err != nil {
		t.Fatal(err)
	}
	ev, err := evidence.New(rdb, evidence.Config{Grants: grant.New(rdb), Sealer: &logseal.Sealer{Keys: keyMap{common.HexToAddress(sealedOwner): ownerKey}}})
	if err != nil {
		t.Fatal(err)
	}
	o, err := registry.Parse([]byte(`{"id":"kyc","structure":{"KYC":{"rule":"<Kyc>"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	exp := tracetest.NewInMemoryExporter()
	tr := tracing.New(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithIDGenerator(tracing.IDs{})))
	x := &ruleexec.Executor{Rules: files(t, map[string]string{"Kyc.json": sealedRule(validSeals, invalidSeals)}), Evidence: true, Log: log, Observe: tr.Observe}

	clock := time.UnixMilli(1_800_000_000_000)
	res, err := store.Start(ctx, joinstore.StartRequest{Owner: sealedOwner, StartStep: "KYC", Now: clock, OstcID: o.ID, OstcHash: o.Hash.Hex(),
		Payload: json.RawMessage(`{"ssn":"` + planted + `","n":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	var events []reactor.Event
	r := &reactor.Runner{Store: store, Orch: o, Exec: x, Worker: "test", Bundles: ev, Log: log,
		Now: func() time.Time { return clock }, Advance: func(at time.Time) { clock = at },
		OnEvent: func(e reactor.Event) { events = append(events, e); tr.Event(res.Root, e) }}
	if err := r.Run(ctx, res.Root); err != nil {
		t.Fatal(err)
	}
	finishedMeta, _ := store.SessionMeta(ctx, res.Root)
	tr.Finished(res.Root, finishedMeta)

	p, err := store.Process(ctx, res.Root, 1)
	if err != nil || p.Status != "aborted" {
		t.Fatalf("the step did not abort: %+v %v", p, err)
	}

	// Outside the sealed bundle: nothing quotes the planted value.
	var leaks []string
	for _, e := range events {
		if strings.Contains(e.Detail, planted) {
			leaks = append(leaks, fmt.Sprintf("timeline %s: %s", e.Type, e.Detail))
		}
	}
	if strings.Contains(logs.String(), planted) {
		leaks = append(leaks, "log output:\n"+logs.String())
	}
	for _, sp := range exp.GetSpans() {
		if s := spanText(sp); strings.Contains(s, planted) {
			leaks = append(leaks, "span "+s)
		}
	}
	has := func(s string) bool { return strings.Contains(s, planted) }
	leaks = append(leaks, redisLeaks(t, rdb, res.Root, has)...)
	leaks = append(leaks, viewLeaks(t, store, ev, o, res.Root, events, has)...)
	if len(leaks) > 0 {
		t.Fatalf("the planted payload value is outside the sealed bundle:\n%s", strings.Join(leaks, "\n"))
	}

	// The bundle is sealed and holds the full evidence: its owner opens it.
	h, err := ev.Head(ctx, sealedOwner, res.Root.RootPid, 1)
	if err != nil || !h.Encrypted {
		t.Fatalf("bundle head %+v %v, want a sealed bundle", h, err)
	}
	body, _ := ev.Body(ctx, sealedOwner, res.Root.RootPid, 1)
	g, err := grant.New(rdb).Get(ctx, h.RID, grant.ScopeLog, sealedOwner)
	if err != nil || g == nil {
		t.Fatalf("owner grant %+v %v", g, err)
	}
	plain, err := envelope.Open(body, g.EncDEK, ownerKey, envelope.ScopeLog, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var b evidence.Bundle
	if err := json.Unmarshal(plain, &b); err != nil {
		t.Fatal(err)
	}
	if b.Outcome.Result != evidence.Aborted || len(b.Outcome.Reasons) != 1 || !strings.Contains(b.Outcome.Reasons[0], planted) || !strings.Contains(string(b.Payload), planted) {
		t.Fatalf("sealed bundle %s: want the payload and the full abort reason", plain)
	}
	if b.RuleHash == "" {
		t.Fatalf("sealed bundle %s: no ruleHash", plain)
	}
}

// spanText is everything a span exports: name, attributes, status,
// events and their attributes.
func spanText(sp tracetest.SpanStub) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s status=%q", sp.Name, sp.Status.Description)
	for _, a := range sp.Attributes {
		fmt.Fprintf(&sb, " %s=%q", a.Key, a.Value.String())
	}
	for _, e := range sp.Events {
		fmt.Fprintf(&sb, " event %s", e.Name)
		for _, a := range e.Attributes {
			fmt.Fprintf(&sb, " %s=%q", a.Key, a.Value.String())
		}
	}
	return sb.String()
}

// redisLeaks scans every key (SCAN, then its value by type and its DUMP)
// for the planted value. The one place allowed to hold it is the live
// input the session was started with: a process hash's resumePlain (the
// payload the engine runs the step on; it expires with the session).
// leaked says whether a text holds a planted value.
func redisLeaks(t *testing.T, rdb *redis.Client, root joinstore.Root, leaked func(string) bool) []string {
	t.Helper()
	ctx := context.Background()
	var leaks []string
	var cursor uint64
	for {
		keys, next, err := rdb.Scan(ctx, cursor, "*", 1000).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			var parts []string
			allowed := map[string]bool{}
			switch typ := rdb.Type(ctx, k).Val(); typ {
			case "string":
				parts = append(parts, rdb.Get(ctx, k).Val())
			case "hash":
				for f, v := range rdb.HGetAll(ctx, k).Val() {
					if f == "resumePlain" && strings.HasPrefix(k, fmt.Sprintf("xgr:{%s:%d}:", root.Owner, root.RootPid)) {
						allowed[v] = true
						continue
					}
					parts = append(parts, f+"="+v)
				}
			case "stream":
				for _, m := range rdb.XRange(ctx, k, "-", "+").Val() {
					parts = append(parts, fmt.Sprint(m.Values))
				}
			case "list":
				parts = append(parts, rdb.LRange(ctx, k, 0, -1).Val()...)
			case "set":
				parts = append(parts, rdb.SMembers(ctx, k).Val()...)
			case "zset":
				parts = append(parts, rdb.ZRange(ctx, k, 0, -1).Val()...)
			default:
				t.Fatalf("%s: type %s not scanned", k, typ)
			}
			if d := rdb.Dump(ctx, k).Val(); leaked(d) && len(allowed) == 0 {
				parts = append(parts, "DUMP "+d)
			}
			for _, s := range parts {
				if leaked(s) {
					leaks = append(leaks, fmt.Sprintf("redis %s: %.300s", k, s))
				}
			}
		}
		if cursor = next; cursor == 0 {
			return leaks
		}
	}
}

// plantedTarget is a payload value that becomes a sealed step's execution
// target; its revert reason quotes planted.
const plantedTarget = "0x5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed"

const sealedSettle = `{
  "payload": {"ssn": {"type": "string"}, "target": {"type": "string"}},
  "rules": ["[ssn] != ''"],
  "onValid": {"payload": {"paid": "1"}, "encryptLogs": true,
    "execution": {"to": "[target]", "function": "settle(string)", "args": [{"type": "string", "value": "[ssn]"}]}},
  "onInvalid": {"payload": {"refused": "1"}}
}`

// A sealed step whose execution (its target from the payload) fails to
// send once, fails a poll once, then reverts with a reason quoting the
// payload and flips to onInvalid: no timeline line, log line or span names
// the target or quotes the reason; the sealed bundle holds them.
func TestSealedStepRevertLeaksNoPayloadValue(t *testing.T) {
	ctx := context.Background()
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	ownerKey, _ := envelope.GenerateReadKey()
	ev, err := evidence.New(rdb, evidence.Config{Grants: grant.New(rdb), Sealer: &logseal.Sealer{Keys: keyMap{common.HexToAddress(sealedOwner): ownerKey}}})
	if err != nil {
		t.Fatal(err)
	}
	o, err := registry.Parse([]byte(`{"id":"pay","structure":{"PAY":{"rule":"<Settle>"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	exp := tracetest.NewInMemoryExporter()
	tr := tracing.New(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithIDGenerator(tracing.IDs{})))
	x := &ruleexec.Executor{Rules: files(t, map[string]string{"Settle.json": sealedSettle}), Evidence: true, Log: log, Observe: tr.Observe}
	act := &scripted.Actuator{Decide: func(execution.Scope, string, execution.Call) scripted.Plan {
		return scripted.Plan{SendFailures: 1, PollFailures: 1, Revert: true, RevertReason: "unknown ssn " + planted}
	}}
	clock := time.UnixMilli(1_800_000_000_000)
	res, err := store.Start(ctx, joinstore.StartRequest{Owner: sealedOwner, StartStep: "PAY", Now: clock, OstcID: o.ID, OstcHash: o.Hash.Hex(),
		XRC729: "0x00000000000000000000000000000000000000f1", Payload: json.RawMessage(`{"ssn":"` + planted + `","target":"` + plantedTarget + `"}`)})
	if err != nil {
		t.Fatal(err)
	}
	var events []reactor.Event
	r := &reactor.Runner{Store: store, Orch: o, Exec: x, Flipper: x, Actuator: act, Worker: "test", Bundles: ev, Log: log,
		Now: func() time.Time { return clock }, Advance: func(at time.Time) { clock = at },
		OnEvent: func(e reactor.Event) { events = append(events, e); tr.Event(res.Root, e) }}
	if err := r.Run(ctx, res.Root); err != nil {
		t.Fatal(err)
	}
	finishedMeta, _ := store.SessionMeta(ctx, res.Root)
	tr.Finished(res.Root, finishedMeta)
	p, err := store.Process(ctx, res.Root, 1)
	if err != nil || p.Valid == nil || *p.Valid {
		t.Fatalf("the step did not flip: %+v %v", p, err)
	}
	leaked := func(s string) bool {
		s = strings.ToLower(s)
		return strings.Contains(s, strings.ToLower(planted)) || strings.Contains(s, plantedTarget[2:14])
	}
	var leaks []string
	for _, e := range events {
		if leaked(e.Detail) {
			leaks = append(leaks, fmt.Sprintf("timeline %s: %s", e.Type, e.Detail))
		}
	}
	if leaked(logs.String()) {
		leaks = append(leaks, "log output:\n"+logs.String())
	}
	for _, sp := range exp.GetSpans() {
		if s := spanText(sp); leaked(s) {
			leaks = append(leaks, "span "+s)
		}
	}
	// Redis: the process keeps neither its execution record (the call's
	// target and arguments) nor its outcome's revert reason once it
	// committed; its resumePlain is the live payload.
	leaks = append(leaks, redisLeaks(t, rdb, res.Root, leaked)...)
	leaks = append(leaks, viewLeaks(t, store, ev, o, res.Root, events, leaked)...)
	if len(leaks) > 0 {
		t.Fatalf("a payload value is outside the sealed bundle:\n%s", strings.Join(leaks, "\n"))
	}
	h, err := ev.Head(ctx, sealedOwner, res.Root.RootPid, 1)
	if err != nil || !h.Encrypted || leaked(h.AbortReason) {
		t.Fatalf("bundle head %+v %v, want a sealed bundle", h, err)
	}
	body, _ := ev.Body(ctx, sealedOwner, res.Root.RootPid, 1)
	g, _ := grant.New(rdb).Get(ctx, h.RID, grant.ScopeLog, sealedOwner)
	plain, err := envelope.Open(body, g.EncDEK, ownerKey, envelope.ScopeLog, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(plain), "unknown ssn "+planted) || !strings.Contains(string(plain), `"ruleHash":"0x`) {
		t.Fatalf("sealed bundle %s: want the revert reason among its reasons and the rule's hash", plain)
	}
}
