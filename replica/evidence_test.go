package replica

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/console"
	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// The console of a replica that writes no bundles itself still reads the
// ones other replicas wrote, as xgr session log does; with Bundles
// it reads through the replica's own store.
func TestConsoleReadsBundles(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	gs := grant.New(rdb)
	writer, err := evidence.New(rdb, evidence.Config{Grants: gs})
	if err != nil {
		t.Fatal(err)
	}
	const owner = "0x00000000000000000000000000000000000000aa"
	b := &evidence.Bundle{Owner: owner, SessionID: 4, Pid: "4:2", Iter: 2, Step: "A1", Payload: json.RawMessage(`{"n":18446744073709551617}`),
		Outcome: evidence.Outcome{Result: evidence.Valid}, Time: time.Now().UnixMilli()}
	if _, err := writer.Put(context.Background(), b, evidence.Policy{}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if consoleBundles(rdb, writer, gs) != writer {
		t.Error("with --log-bundles the console does not read through the replica's store")
	}
	c := console.New(console.Config{Store: joinstore.New(rdb, joinstore.Config{}), Bundles: consoleBundles(rdb, nil, gs), Grants: gs})
	rec := httptest.NewRecorder()
	c.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/ui/api/steplog?owner="+owner+"&root=4&pid=4:2", nil))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `18446744073709551617`) || !strings.Contains(rec.Body.String(), `"rights":"owner"`) {
		t.Fatalf("steplog: %d %s", rec.Code, rec.Body)
	}
}
