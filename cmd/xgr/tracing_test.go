package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
	"github.com/xgr-sidecar/xgr/tracing"
)

// xgr run --otlp-endpoint exports each session's trace over OTLP/HTTP: a
// collector receives the session's root span and a span per step, all in
// the session's trace.
func TestRunExportsTraces(t *testing.T) {
	var mu sync.Mutex
	spans := map[string][]string{} // trace id → span names
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req coltrace.ExportTraceServiceRequest
		if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
			http.Error(w, "bad export", http.StatusBadRequest)
			return
		}
		mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					id := hex.EncodeToString(s.TraceId)
					spans[id] = append(spans[id], s.Name)
				}
			}
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(nil)
	}))
	defer collector.Close()

	srv := testenv.StartRedis(t)
	url := "redis://" + srv.Addr + "/0"
	flow := "../../examples/ostc/nested_join.json"
	if out, code := run(t, "session", "start", flow, "--redis", url, "--owner", testOwner, "--key", "k"); code != 0 {
		t.Fatalf("start: %s", out)
	}
	outcomes := writeFile(t, "o.json", `{"default":{"result":"valid"}}`)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	addr := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	go func() {
		done <- runApp(ctx, newApp(io.Discard, io.Discard), []string{"xgr", "run", "--redis", url, "--ostc", flow, "--outcomes", outcomes,
			"--poll", "20ms", "--listen", addr, "--otlp-endpoint", collector.URL})
	}()
	waitHealthz(t, addr)
	waitStatus(t, url, 1, "finished")
	cancel() // the replica drains and flushes its spans
	if err := <-done; err != nil {
		t.Fatalf("xgr run: %v", err)
	}
	want := tracing.TraceID(joinstore.Root{Owner: testOwner, RootPid: 1})
	mu.Lock()
	defer mu.Unlock()
	got := spans[hex.EncodeToString(want[:])]
	steps, root := 0, 0
	for _, n := range got {
		switch {
		case n == "session":
			root++
		case len(n) > 5 && n[:5] == "step ":
			steps++
		}
	}
	if root != 1 || steps < 8 || len(spans) != 1 {
		t.Fatalf("the collector got %s", fmt.Sprint(spans))
	}
}
