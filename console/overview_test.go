package console

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
)

func TestCountSessionsAndSteps(t *testing.T) {
	c := CountSessions([]Row{{Status: "live", Paused: true}, {Status: "finished", Outcome: "ok"}, {Status: "killed", Outcome: "killed"}, {Status: "finished"}})
	if c.Scanned != 4 || c.ByStatus["live"] != 1 || c.ByStatus["finished"] != 2 || c.ByStatus["killed"] != 1 || c.Paused != 1 ||
		c.ByOutcome["ok"] != 1 || c.ByOutcome["killed"] != 1 || len(c.ByOutcome) != 2 {
		t.Errorf("counts: %+v", c)
	}
	now := time.UnixMilli(100_000)
	at := func(ms int64) string { return strconv.FormatInt(ms, 10) }
	h := [][]joinstore.HistoryEntry{
		{{At: at(39_999), Worker: "a"}, {At: at(40_000), Worker: "a"}, {At: at(99_000), Worker: "b"}, {Event: joinstore.EventWoken, At: at(99_000)}},
		{{At: at(50_000), Worker: "b"}},
	}
	total, by := StepsSince(h, now.Add(-time.Minute))
	if total != 3 || by["a"] != 1 || by["b"] != 2 {
		t.Errorf("steps since: %d %v", total, by)
	}
	mem := ParseInfoMemory("n1", "# Memory\r\nused_memory:1048576\r\nused_memory_human:1.00M\r\nmaxmemory:0\r\nmaxmemory_policy:noeviction\r\n")
	if mem.UsedMemory != "1048576" || mem.UsedMemoryHuman != "1.00M" || mem.MaxMemory != "0" || mem.Policy != "noeviction" {
		t.Errorf("INFO memory: %+v", mem)
	}
}

// The overview page shows what the store holds: sessions per status, the
// steps of the last minute per replica, the due queue and its oldest step,
// a process lease another replica holds, a session a third one holds (its
// root lease), and Redis's memory.
func TestOverviewInBrowser(t *testing.T) {
	env := newBrowserEnv(t, false)
	ctx := context.Background()
	// Another replica claims the first due session's step: a process lease.
	o := loadOrchestration(t, "minimal_join.json")
	claims, err := env.store.Claim(ctx, env.due[0], time.Now(), time.Hour, "replica-b", reactor.Table(o), []int64{1})
	if err != nil || len(claims) != 1 {
		t.Fatalf("claim: %v %v", claims, err)
	}
	// A third replica holds the second due session's root lease (runs it).
	if _, err := env.store.AcquireRoot(ctx, env.due[1], "replica-c", time.Hour); err != nil {
		t.Fatal(err)
	}
	steps := 0
	for _, r := range env.finished {
		h, err := env.store.History(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range h {
			if e.Commit() && e.Worker == browserReplica {
				steps++
			}
		}
	}
	if steps < 4*4 {
		t.Fatalf("the replica committed %d steps of 4 minimal joins", steps)
	}
	var rep OverviewReport
	env.getJSON("/ui/api/overview", &rep)
	if rep.Sessions.Scanned != 9 || rep.Sessions.Capped || rep.Sessions.ByStatus["finished"] != 4 || rep.Sessions.ByStatus["live"] != 5 {
		t.Errorf("sessions: %+v", rep.Sessions)
	}
	if rep.Due.Steps != 1 || rep.Due.OldestAt == 0 || rep.Due.OldestAgeMs <= 0 {
		t.Errorf("due queue: %+v", rep.Due)
	}
	if len(rep.Redis) != 1 || rep.Redis[0].UsedMemory == "" || rep.Redis[0].Error != "" {
		t.Errorf("redis memory: %+v %v", rep.Redis, rep.Errors)
	}

	env.open("#/overview")
	env.wait("the overview", `!!document.getElementById('ov-replicas')`)
	env.shot("overview")
	get := func(expr string) string { return eval[string](env, expr) }
	if got := get(`document.querySelector('#ov-status [data-status="finished"] b').textContent`); got != "4" {
		t.Errorf("finished sessions shown: %q, want 4", got)
	}
	if got := get(`document.querySelector('#ov-status [data-status="live"] b').textContent`); got != "5" {
		t.Errorf("live sessions shown: %q, want 5", got)
	}
	if got := get(`document.querySelector('[data-key="steps"]').textContent`); got != strconv.Itoa(steps) {
		t.Errorf("steps of the last minute shown: %q, the histories hold %d", got, steps)
	}
	if got := get(`document.querySelector('[data-key="perSec"]').textContent`); got != strconv.FormatFloat(float64(steps)/60, 'f', 2, 64) {
		t.Errorf("steps per second shown: %q (%d steps)", got, steps)
	}
	if got := get(`document.querySelector('[data-replica="replica-a"]').textContent`); !strings.Contains(got, strconv.Itoa(steps)) {
		t.Errorf("replica-a row: %q, want its %d steps", got, steps)
	}
	if got := get(`[...document.querySelectorAll('[data-replica="replica-b"] td')].map(td => td.textContent).join('|')`); got != "replica-b|0|0|1" {
		t.Errorf("replica-b row: %q, want no steps, no session and one process lease", got)
	}
	if got := get(`[...document.querySelectorAll('[data-replica="replica-c"] td')].map(td => td.textContent).join('|')`); got != "replica-c|0|1|0" {
		t.Errorf("replica-c row: %q, want one session held (its root lease) and nothing else", got)
	}
	if got := get(`document.querySelector('[data-key="dueSteps"]').textContent`); got != "1" {
		t.Errorf("due steps shown: %q, want 1", got)
	}
	if got := get(`document.querySelector('[data-key="oldest"]').textContent`); !strings.Contains(got, "waiting") {
		t.Errorf("oldest due step: %q", got)
	}
	if got := get(`document.querySelector('#ov-redis [data-key="used"]').textContent`); !strings.ContainsAny(got, "BKM") {
		t.Errorf("Redis memory shown: %q", got)
	}
	if n := eval[int](env, `document.querySelectorAll('[data-capped]').length`); n != 0 {
		t.Errorf("%d numbers say they were capped; nothing was", n)
	}
	// A status links to the list filtered by it.
	env.do("click live", chromedpClick(`#ov-status [data-status="live"]`))
	env.wait("the live sessions", `location.hash.includes('status=live') && document.querySelectorAll('table.sessions tbody tr[data-root]').length === 5`)
	env.onlyHere()
}
