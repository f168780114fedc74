package ruleexec_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/xgr-sidecar/xgr/console"
	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
)

// viewLeaks reads every view outside the sealed bundle that shows a
// session's processes — the console's JSON (session detail with its
// process panel and flow graph, timeline in both formats, orchestration
// overlay, step log view, session list) and what `xgr session show
// --json` encodes (processes, summary, history) — and returns the ones in
// which leaked finds a payload value. events are the run's timeline
// events, recorded into the console as a replica's Manager would.
func viewLeaks(t *testing.T, store *joinstore.Store, ev *evidence.Store, o *registry.Orchestration, root joinstore.Root,
	events []reactor.Event, leaked func(string) bool) []string {
	t.Helper()
	ctx := context.Background()
	c := console.New(console.Config{Store: store, Bundles: ev, Source: reactor.NewStaticSource(o)})
	defer c.Close()
	for _, e := range events {
		c.Record(root, e)
	}
	hs := httptest.NewServer(c.Handler())
	defer hs.Close()
	q := url.Values{"owner": {root.Owner}, "root": {fmt.Sprint(root.RootPid)}}.Encode()
	var leaks []string
	for _, path := range []string{"/ui/api/session?" + q, "/ui/api/timeline?" + q, "/ui/api/timeline?format=ndjson&" + q,
		"/ui/api/orchestration?" + q, "/ui/api/steplog?pid=1&" + q, "/ui/api/sessions?owner=" + root.Owner} {
		resp, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("console GET %s: %d %s", path, resp.StatusCode, body)
		}
		if leaked(string(body)) {
			leaks = append(leaks, fmt.Sprintf("console %s: %.600s", path, body))
		}
	}
	// xgr session show --json encodes these.
	procs, err := store.Processes(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := reactor.Summarize(procs)
	if err != nil {
		t.Fatal(err)
	}
	history, err := store.History(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	show, _ := json.Marshal(map[string]any{"processes": procs, "summary": sum, "history": history})
	if leaked(string(show)) {
		leaks = append(leaks, fmt.Sprintf("xgr session show --json: %.600s", show))
	}
	return leaks
}
