package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/session"
	"github.com/xgr-sidecar/xgr/testenv"
)

const owner = "0x00000000000000000000000000000000000000aa"

// flowText has an aliased rule reference (B1), which a runtime binds or
// not.
const flowText = `{"id": "flow", "structure": {"A1": {"rule": "0x00000000000000000000000000000000000000c1", "onValid": {"spawns": ["B1"]}},
	"B1": {"rule": "${addr:FEED}"}}}`

// orchestrations parses texts, and serves them.
func orchestrations(t *testing.T, texts ...string) (*reactor.StaticSource, []*registry.Orchestration) {
	t.Helper()
	out := make([]*registry.Orchestration, len(texts))
	for i, text := range texts {
		o, err := registry.Parse([]byte(text))
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		out[i] = o
	}
	return reactor.NewStaticSource(out...), out
}

// keys counts the keys in Redis: a refused start writes none.
func keys(t *testing.T, rdb *redis.Client) int64 {
	t.Helper()
	n, err := rdb.DBSize(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Every refusal that needs no chain, through one Starter: its kind, its
// path, what is allowed, and nothing written; the good start after them.
func TestStartRefusals(t *testing.T) {
	src, orchs := orchestrations(t, flowText)
	o := orchs[0]
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour, MaxPayloadBytes: 1024})
	bound := &rulesource.Loader{Addresses: rulesource.Addresses{"FEED": {0xfe}}}
	starter := session.Starter{Store: store, Source: src, Rules: bound}
	good := session.Request{Owner: owner, Registry: "file", OstcID: "flow", Step: "A1", Payload: json.RawMessage(`{"n": 1}`)}
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		starter session.Starter
		change  func(*session.Request)
		kind    session.Kind
		path    string
		says    string
	}{
		{"owner no address", starter, func(r *session.Request) { r.Owner = "bob" }, session.KindInvalidRequest, "owner", `owner: "bob": want an EVM address`},
		{"pin no hash", starter, func(r *session.Request) { r.OstcHash = "0x12" }, session.KindInvalidRequest, "ostcHash", "want 32 bytes of hex"},
		{"no step", starter, func(r *session.Request) { r.Step = "" }, session.KindInvalidRequest, "step", "step: empty"},
		{"reserved key", starter, func(r *session.Request) { r.Key = "-" }, session.KindInvalidRequest, "key", "reserved"},
		{"negative window", starter, func(r *session.Request) { r.Window = -1 }, session.KindInvalidRequest, "window", "window: -1"},
		{"payload over the cap", starter, func(r *session.Request) { r.Payload = json.RawMessage(`{"x": "` + strings.Repeat("a", 2000) + `"}`) },
			session.KindPayloadTooLarge, "payload", "the start payload is 2009 bytes, at most 1024 are allowed"},
		{"payload an array", starter, func(r *session.Request) { r.Payload = json.RawMessage(`[1]`) }, session.KindPayloadInvalid, "payload", "want a JSON object"},
		{"payload repeats a name", starter, func(r *session.Request) { r.Payload = json.RawMessage(`{"a": [{"k": 1, "k": 2}]}`) },
			session.KindPayloadInvalid, "payload.a[0].k", "payload.a[0].k: duplicate member name"},
		{"payload nested too deeply", starter, func(r *session.Request) {
			r.Payload = json.RawMessage(`{"a":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`)
		}, session.KindPayloadInvalid, "payload.a" + strings.Repeat("[0]", 31), "nested deeper than 32 levels"},
		{"__wakeUp not a list", starter, func(r *session.Request) { r.Payload = json.RawMessage(`{"__wakeUp": "not-a-list"}`) },
			session.KindPayloadInvalid, "payload.__wakeUp", "payload.__wakeUp: want an object"},
		{"__wakeUp wildcard", starter, func(r *session.Request) {
			r.Payload = json.RawMessage(`{"__wakeUp": {"steps": {"A1": {"rpc": ["*"]}}}}`)
		}, session.KindPayloadInvalid, "payload.__wakeUp.steps.A1.rpc[0]", `wildcard "*" is not allowed here`},
		{"on-chain registry, no authority", starter, func(r *session.Request) { r.Registry = "0x00000000000000000000000000000000000000b1" },
			session.KindAuthorityRequired, "registry", "no node to check it on"},
		{"unknown orchestration", starter, func(r *session.Request) { r.OstcID = "nope" }, session.KindUnknownOrchestration, "ostcId", "unknown orchestration"},
		{"hash mismatch", starter, func(r *session.Request) { r.OstcHash = "0x" + strings.Repeat("ab", 32) }, session.KindHashMismatch, "ostcHash", "orchestration hash mismatch"},
		{"unknown step", starter, func(r *session.Request) { r.Step = "Z9" }, session.KindUnknownStep, "step", `unknown start step: "Z9" is not a step of "flow" (steps: A1, B1)`},
		{"rule unresolved", session.Starter{Store: store, Source: starter.Source, Rules: &rulesource.Loader{Addresses: rulesource.Addresses{}}}, nil,
			session.KindRuleUnresolved, "structure.B1.rule", `rule reference "${addr:FEED}" does not resolve`},
		{"stale root", starter, func(r *session.Request) { r.RootPid = 7 }, session.KindStaleRoot, "rootPid", "not the owner's next root pid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := good
			if c.change != nil {
				c.change(&req)
			}
			before := keys(t, rdb)
			_, err := c.starter.Start(ctx, req)
			var se *session.Error
			if !errors.As(err, &se) || se.Kind != c.kind || se.Path != c.path || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("%v (%#v), want %s at %s saying %q", err, se, c.kind, c.path, c.says)
			}
			if se.Allowed == "" && se.Kind != session.KindUnavailable {
				t.Errorf("%s: no Allowed", c.kind)
			}
			if session.KindOf(err) != c.kind {
				t.Errorf("KindOf: %s", session.KindOf(err))
			}
			if after := keys(t, rdb); after != before {
				t.Errorf("a refused start changed Redis: %d keys, before %d", after, before)
			}
		})
	}

	// The good start, then its key again: the same session, nothing new.
	req := good
	req.Key = "k1"
	res, err := starter.Start(ctx, req)
	if err != nil || res.Ack != "queued" || res.Root != (joinstore.Root{Owner: owner, RootPid: 1}) || res.Pid != "1:1" || res.Key != "k1" || res.Orchestration != o || res.Replayed() {
		t.Fatalf("start: %+v %v", res, err)
	}
	meta, err := store.SessionMeta(ctx, res.Root)
	if err != nil || meta.OstcHash != o.Hash.Hex() || meta.StartStep != "A1" || meta.StartKey != "k1" || meta.XRC729 != "file" {
		t.Fatalf("meta: %+v %v", meta, err)
	}
	before := keys(t, rdb)
	again, err := starter.Start(ctx, req)
	if err != nil || !again.Replayed() || again.Root != res.Root {
		t.Fatalf("the same key again: %+v %v", again, err)
	}
	if after := keys(t, rdb); after != before {
		t.Errorf("a replayed start changed Redis: %d keys, before %d", after, before)
	}
	// The root pid a permit names, when it is the owner's next.
	req.Key, req.RootPid = "k2", 2
	if res, err := starter.Start(ctx, req); err != nil || res.Root.RootPid != 2 {
		t.Fatalf("start at root pid 2: %+v %v", res, err)
	}
}

// Options of the Starter: a trusted one starts under an on-chain registry
// without an authority; one without Rules and without Authority resolves
// no reference (a runtime whose rules it does not know); a paused, delayed
// start; the clock.
func TestStartOptions(t *testing.T) {
	src, orchs := orchestrations(t, flowText)
	o := orchs[0]
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	now := time.UnixMilli(1_700_000_000_000)
	s := session.Starter{Store: store, Source: src, Trusted: true, Now: func() time.Time { return now }}
	ctx := context.Background()
	res, err := s.Start(ctx, session.Request{Owner: strings.ToUpper(owner[:2]) + owner[2:], Registry: "0x00000000000000000000000000000000000000b1", OstcID: "flow",
		OstcHash: strings.ToUpper(o.Hash.Hex()[2:]), Step: "A1", WakeAt: now.Add(time.Hour), Window: 2})
	if err != nil || res.Ack != "scheduled" || res.Root.Owner != owner {
		t.Fatalf("trusted start: %+v %v", res, err)
	}
	p, err := store.Process(ctx, res.Root, 1)
	if err != nil || !p.NextWakeAt.Equal(now.Add(time.Hour)) || string(p.ResumePlain) != "{}" {
		t.Fatalf("root process: %+v %v", p, err)
	}
	if res, err := s.Start(ctx, session.Request{Owner: owner, Registry: "file", OstcID: "flow", Step: "B1", Paused: true, Payload: json.RawMessage("null")}); err != nil || res.Ack != "paused" {
		t.Fatalf("paused start: %+v %v", res, err)
	}
}

// A store that does not answer decides nothing: KindUnavailable, without a
// path, wrapping the store's error.
func TestStartUnavailable(t *testing.T) {
	src, _ := orchestrations(t, flowText)
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(testenv.FreePort(t)), MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer down.Close()
	s := session.Starter{Store: joinstore.New(down, joinstore.Config{}), Source: src}
	_, err := s.Start(context.Background(), session.Request{Owner: owner, Registry: "file", OstcID: "flow", Step: "A1"})
	var se *session.Error
	if !errors.As(err, &se) || se.Kind != session.KindUnavailable || se.Path != "" || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("%v, want unavailable", err)
	}
}

// Kinds lists each kind once.
func TestKinds(t *testing.T) {
	seen := map[session.Kind]bool{}
	for _, k := range session.Kinds {
		if seen[k] || k == "" {
			t.Errorf("kind %q twice or empty", k)
		}
		seen[k] = true
	}
	if session.KindOf(errors.New("x")) != "" {
		t.Error("KindOf of another error")
	}
}
