package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// xgr meter lists the meter per owner per day: one owner or every owner
// metered in the range, as JSON and as CSV with a header; a bad date or
// both formats are usage errors.
func TestMeterCommandJSONAndCSV(t *testing.T) {
	srv := testenv.StartRedis(t)
	redisURL := "redis://" + srv.Addr + "/0"
	ctx := context.Background()
	store := joinstore.New(srv.Client(), joinstore.Config{SessionTTL: time.Hour})
	a, b := "0x00000000000000000000000000000000000000aa", "0x00000000000000000000000000000000000000bb"
	now := time.Now().UTC().Truncate(time.Millisecond)
	finish := func(owner string, gas uint64) {
		t.Helper()
		res, err := store.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: now})
		if err != nil {
			t.Fatal(err)
		}
		iters, _ := store.DueIters(ctx, res.Root, now, 10)
		claims, err := store.Claim(ctx, res.Root, now, time.Minute, "w1", joinstore.StepTable{"A1": {}}, iters)
		if err != nil || len(claims) != 1 {
			t.Fatalf("claim: %v %v", claims, err)
		}
		if _, err := store.Commit(ctx, claims[0], now.Add(time.Second), joinstore.Commit{Status: "done", Gas: gas}); err != nil {
			t.Fatal(err)
		}
	}
	finish(a, 300)
	finish(a, 200)
	finish(b, 70)
	today := joinstore.MeterDay(now)

	out, code := run(t, "meter", "--redis", redisURL, "--json")
	var rows []joinstore.DayUsage
	if err := json.Unmarshal([]byte(out), &rows); code != 0 || err != nil {
		t.Fatalf("xgr meter --json: %d %v\n%s", code, err, out)
	}
	if len(rows) != 2 || rows[0].Owner != a || rows[0].Day != today || rows[0].Sessions != 2 || rows[0].Steps != 2 || rows[0].ValidationGas != 500 ||
		rows[0].DurationMs != 2000 || rows[0].Bytes <= 0 || rows[1].Owner != b || rows[1].ValidationGas != 70 || rows[1].ValueWei != "0" {
		t.Errorf("xgr meter --json: %+v", rows)
	}
	yesterday := joinstore.MeterDay(now.Add(-24 * time.Hour))
	out, code = run(t, "meter", b, "--from", yesterday, "--to", today, "--redis", redisURL, "--csv")
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil {
		t.Fatalf("xgr meter --csv: %d %v\n%s", code, err, out)
	}
	want := [][]string{{"day", "owner", "sessions", "steps", "validationGas", "durationMs", "bytes", "executions", "execGas", "valueWei", "feeWei"},
		{today, b, "1", "1", "70", "1000", recs[len(recs)-1][6], "0", "0", "0", "0"}}
	if len(recs) != 2 || strings.Join(recs[0], ",") != strings.Join(want[0], ",") || strings.Join(recs[1], ",") != strings.Join(want[1], ",") {
		t.Errorf("xgr meter %s --csv:\n%s\nwant %v", b, out, want)
	}
	if out, code = run(t, "meter", "--redis", redisURL); code != 0 || !strings.Contains(out, "SESSIONS") || !strings.Contains(out, a) {
		t.Errorf("xgr meter (text): %d\n%s", code, out)
	}
	for _, bad := range [][]string{{"--from", "11/01/2026"}, {"--json", "--csv"}, {"0xnope"}, {"--from", today, "--to", yesterday}} {
		out, code := run(t, append([]string{"meter", "--redis", redisURL}, bad...)...)
		if code == 0 {
			t.Errorf("xgr meter %v: exit 0:\n%s", bad, out)
		}
	}
}
