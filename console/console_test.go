package console

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/session"
	"github.com/xgr-sidecar/xgr/testenv"
)

const testOwner = "0x00000000000000000000000000000000000000aa"

// newTestConsole serves a console on a real redis-server holding one
// session of minimal_join whose first process waits (no replica runs it).
func newTestConsole(t *testing.T, direct bool) (*httptest.Server, joinstore.Root, *joinstore.Store) {
	t.Helper()
	srv := testenv.StartRedis(t)
	store := joinstore.New(srv.Client(), joinstore.Config{SessionTTL: time.Hour})
	raw, err := os.ReadFile("../examples/ostc/minimal_join.json")
	if err != nil {
		t.Fatal(err)
	}
	o, err := registry.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	src := reactor.NewStaticSource(o)
	res, err := session.Starter{Store: store, Source: src}.Start(context.Background(), session.Request{Owner: testOwner, Registry: "file", OstcID: o.ID,
		Step: o.Steps[0].ID, Payload: json.RawMessage(`{"n": 1}`), WakeAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	c := New(Config{Store: store, Source: src, DirectActions: direct})
	hs := httptest.NewServer(c.Handler())
	t.Cleanup(func() { c.Close(); hs.Close() })
	return hs, res.Root, store
}

func do(t *testing.T, method, url, body string, header bool) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		if header {
			req.Header.Set(ActionHeader, "1")
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Read-only by default: actions are refused, the views answer.
func TestConsoleReadOnly(t *testing.T) {
	hs, root, _ := newTestConsole(t, false)
	for _, path := range []string{"/ui/", "/ui/app.js", "/ui/api/config", "/ui/api/sessions", "/ui/api/index",
		"/ui/api/session?owner=" + root.Owner + "&root=1", "/ui/api/orchestration?owner=" + root.Owner + "&root=1",
		"/ui/api/timeline?owner=" + root.Owner + "&root=1&format=ndjson"} {
		if code, body := do(t, http.MethodGet, hs.URL+path, "", false); code != 200 {
			t.Errorf("GET %s: %d %s", path, code, body)
		}
	}
	code, body := do(t, http.MethodGet, hs.URL+"/ui/api/config", "", false)
	if code != 200 || !strings.Contains(body, `"actions":"off"`) {
		t.Errorf("config: %d %s", code, body)
	}
	code, body = do(t, http.MethodPost, hs.URL+"/ui/api/kill", `{"owner":"`+root.Owner+`","rootPid":1}`, true)
	if code != http.StatusForbidden || !strings.Contains(body, "direct actions are off") {
		t.Errorf("kill on a read-only console: %d %s", code, body)
	}
	code, body = do(t, http.MethodGet, hs.URL+"/ui/api/session?owner=alice&root=1", "", false)
	if code != 400 || !strings.Contains(body, `query owner: owner \"alice\": want an EVM address`) {
		t.Errorf("bad owner: %d %s", code, body)
	}
	code, body = do(t, http.MethodGet, hs.URL+"/ui/api/session?owner="+root.Owner+"&root=9", "", false)
	if code != 404 {
		t.Errorf("unknown session: %d %s", code, body)
	}
}

// With direct actions, the page wakes with an exact payload and kills;
// requests without the console's header, or from another origin, are
// refused and change nothing.
func TestConsoleDirectActions(t *testing.T) {
	hs, root, store := newTestConsole(t, true)
	ctx := context.Background()
	wake := `{"owner":"` + root.Owner + `","pid":"1:1","payload":{"amount": 18446744073709551617, "_secret": 1}}`
	if code, body := do(t, http.MethodPost, hs.URL+"/ui/api/wake", wake, false); code != http.StatusForbidden || !strings.Contains(body, ActionHeader) {
		t.Errorf("wake without the header: %d %s", code, body)
	}
	req, _ := http.NewRequest(http.MethodPost, hs.URL+"/ui/api/wake", strings.NewReader(wake))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(ActionHeader, "1")
	req.Header.Set("Origin", "http://evil.example")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("wake from another origin: %v %v", resp.StatusCode, err)
	}
	if p, _ := store.Process(ctx, root, 1); string(p.ResumePlain) != `{"n": 1}` {
		t.Fatalf("a refused wake changed the payload: %s", p.ResumePlain)
	}
	if code, body := do(t, http.MethodPost, hs.URL+"/ui/api/wake", `{"owner":"`+root.Owner+`","pid":"1:1","payload":[1]}`, true); code != 400 || !strings.Contains(body, "payload: want a JSON object") {
		t.Errorf("wake with an array: %d %s", code, body)
	}
	for _, bad := range []string{`{"a":` + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + `}`, `{"ok": 1, "ok": 2}`} {
		code, body := do(t, http.MethodPost, hs.URL+"/ui/api/wake", `{"owner":"`+root.Owner+`","pid":"1:1","payload":`+bad+`}`, true)
		if code != 400 || !strings.Contains(body, "nested deeper than 32 levels") && !strings.Contains(body, "payload.ok: duplicate member name") {
			t.Errorf("wake with %.20s…: %d %.300s", bad, code, body)
		}
	}
	if p, _ := store.Process(ctx, root, 1); string(p.ResumePlain) != `{"n": 1}` {
		t.Fatalf("a refused wake changed the payload: %s", p.ResumePlain)
	}
	code, body := do(t, http.MethodPost, hs.URL+"/ui/api/wake", wake, true)
	if code != 200 || !strings.Contains(body, `"woken":1`) {
		t.Fatalf("wake: %d %s", code, body)
	}
	p, _ := store.Process(ctx, root, 1)
	if plain := string(p.ResumePlain); !strings.Contains(plain, `"amount":18446744073709551617`) || strings.Contains(plain, "_secret") {
		t.Errorf("woken payload: %s", plain)
	}
	code, body = do(t, http.MethodPost, hs.URL+"/ui/api/kill", `{"owner":"`+root.Owner+`","rootPid":1}`, true)
	if code != 200 || !strings.Contains(body, `"1:1":"aborted"`) {
		t.Fatalf("kill: %d %s", code, body)
	}
	if meta, _ := store.SessionMeta(ctx, root); meta.Status != joinstore.SessionFinished || meta.KilledAt.IsZero() {
		t.Errorf("after the kill: %v", meta)
	}
	_, body = do(t, http.MethodGet, hs.URL+"/ui/api/timeline?owner="+root.Owner+"&root=1&format=ndjson", "", false)
	for _, want := range []string{`"type":"started"`, `"type":"woken"`, `"type":"killed"`, `"type":"session_killed"`, `"type":"finished"`} {
		if !strings.Contains(body, want) {
			t.Errorf("timeline lacks %s:\n%s", want, body)
		}
	}
	_, body = do(t, http.MethodGet, hs.URL+"/ui/api/sessions?status=killed", "", false)
	var list List
	if err := json.Unmarshal([]byte(body), &list); err != nil || list.Total != 1 || list.Rows[0].Status != "killed" {
		t.Errorf("killed sessions: %v %s", err, body)
	}
}

// The session view's "session" object is the session's meta hash as
// Redis holds it, field for field as stored, with the outcome once it
// finished: read through the typed meta (joinstore.SessionMeta), live
// and after a kill.
func TestSessionJSONIsTheStoredMeta(t *testing.T) {
	srv := testenv.StartRedis(t)
	rdb := srv.Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	ctx := context.Background()
	res, err := store.Start(ctx, joinstore.StartRequest{Owner: testOwner, StartStep: "A1", XRC729: "file", OstcID: "o", Now: time.Now(), IdempotencyKey: "k-1",
		Payload: json.RawMessage(`{"n":1,"__wakeUp":{"default":{"rpc":["0x00000000000000000000000000000000000000AB"]}}}`), Window: 2})
	if err != nil {
		t.Fatal(err)
	}
	root := res.Root
	c := New(Config{Store: store})
	hs := httptest.NewServer(c.Handler())
	t.Cleanup(func() { c.Close(); hs.Close() })
	compare := func(when, outcome string) {
		t.Helper()
		_, body := do(t, http.MethodGet, hs.URL+"/ui/api/session?owner="+root.Owner+"&root=1", "", false)
		var d struct {
			Session map[string]string `json:"session"`
		}
		if err := json.Unmarshal([]byte(body), &d); err != nil {
			t.Fatalf("%s: %v: %s", when, err, body)
		}
		want, err := rdb.HGetAll(ctx, "xgr:{"+root.Owner+":1}:meta").Result()
		if err != nil {
			t.Fatal(err)
		}
		if outcome != "" {
			want["outcome"] = outcome
		}
		if !maps.Equal(d.Session, want) {
			t.Errorf("%s: the view's session:\n%v\nthe stored meta:\n%v", when, d.Session, want)
		}
	}
	compare("live", "")
	if _, err := store.AcquireRoot(ctx, root, "r1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Pause(ctx, root, time.Now(), true); err != nil {
		t.Fatal(err)
	}
	compare("held and paused", "")
	if _, err := reactor.Kill(ctx, store, root, time.Now()); err != nil {
		t.Fatal(err)
	}
	compare("killed", "killed")
}
