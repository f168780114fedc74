//go:build chaos

package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/session"
	"github.com/xgr-sidecar/xgr/testenv"
)

// xgrBin is the xgr binary built once for the suite.
var xgrBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "xgr-chaos-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	xgrBin = filepath.Join(dir, "xgr")
	args := []string{"build", "-tags", "xgrfailpoint", "-o", xgrBin}
	if os.Getenv("XGR_CHAOS_RACE") == "1" {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "../cmd/xgr")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building xgr:", err)
		os.Exit(1)
	}
	// The suite's own clients see every fault; go-redis would log each
	// failed dial. Start retries and the settle loop cover them.
	redis.SetLogger(quiet{})
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// config holds the knobs (environment variables, see doc.go); the defaults
// are the long preset of `make chaos`.
type config struct {
	sessions, replicas, kills, masterKills int
	duration, settle                       time.Duration
	seed                                   int64
}

func loadConfig(t *testing.T) config {
	c := config{sessions: 600, replicas: 3, kills: 8, masterKills: 1, duration: 60 * time.Second, settle: 90 * time.Second, seed: time.Now().UnixNano() % 1e6}
	ints := map[string]*int{"XGR_CHAOS_SESSIONS": &c.sessions, "XGR_CHAOS_REPLICAS": &c.replicas, "XGR_CHAOS_KILLS": &c.kills, "XGR_CHAOS_MASTER_KILLS": &c.masterKills}
	for name, p := range ints {
		if v := os.Getenv(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				t.Fatalf("%s=%q: want a whole number ≥ 1", name, v)
			}
			*p = n
		}
	}
	durs := map[string]*time.Duration{"XGR_CHAOS_DURATION": &c.duration, "XGR_CHAOS_SETTLE": &c.settle}
	for name, p := range durs {
		if v := os.Getenv(name); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d < 5*time.Second {
				t.Fatalf("%s=%q: want a Go duration of at least 5s (e.g. 20s)", name, v)
			}
			*p = d
		}
	}
	if v := os.Getenv("XGR_CHAOS_SEED"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("XGR_CHAOS_SEED=%q: want an integer", v)
		}
		c.seed = n
	}
	if c.replicas < 2 {
		t.Fatalf("XGR_CHAOS_REPLICAS=%d: want at least 2 (a killed replica's sessions need another one)", c.replicas)
	}
	return c
}

// shape is one orchestration the suite starts sessions of.
type shape struct {
	name, file, step string
	orch             *registry.Orchestration
}

// shapes are the mixed session shapes: a chain, a fan-out/fan-in "all"
// join with drain, a k-of-n kill join (one producer fails hard), a nested
// join and a k-of-n join over a spawn loop that only its kill ends.
func loadShapes(t *testing.T) []shape {
	list := []shape{
		{name: "chain", file: "testdata/chain.json", step: "S1"},
		{name: "fanout-all-drain", file: "testdata/fanout_all_drain.json", step: "F0"},
		{name: "kofn-kill", file: "../examples/ostc/kofn_three_sources.json", step: "A1"},
		{name: "nested-join", file: "../examples/ostc/nested_join.json", step: "A1"},
		{name: "kofn-backloop-kill", file: "../examples/ostc/kofn_backloop_kill.json", step: "A1"},
	}
	for i := range list {
		raw, err := os.ReadFile(list[i].file)
		if err != nil {
			t.Fatal(err)
		}
		if list[i].orch, err = registry.Parse(raw); err != nil {
			t.Fatalf("%s: %v", list[i].file, err)
		}
	}
	return list
}

// started is one session start: its idempotency key and what Start said.
type started struct {
	key, shape string
	root       joinstore.Root
	ack        string
	attempts   int
	err        error
}

// run is one chaos run against one Redis deployment.
type run struct {
	t      *testing.T
	cfg    config
	name   string
	rdb    redis.UniversalClient
	store  *joinstore.Store
	fleet  *fleet
	shapes []shape
	owner  string
	rng    *rand.Rand
	begin  time.Time

	mu      sync.Mutex
	starts  []started
	roots   []joinstore.Root
	startWG sync.WaitGroup

	kills  []Kill
	faults []string
	counts map[string]int

	// payload, when set, is the start payload of session i (default
	// {"n":i}).
	payload func(i int) []byte

	// cut, when set, starts every cutEvery-th session with its last call
	// cut and no retry (cut_test.go); cuts counts them.
	cut  *joinstore.Store
	cuts atomic.Int64
}

func newRun(t *testing.T, cfg config, name string, rdb redis.UniversalClient, fl *fleet, shapes []shape) *run {
	return &run{t: t, cfg: cfg, name: name, rdb: rdb, store: joinstore.New(rdb, joinstore.Config{}), fleet: fl, shapes: shapes,
		owner: "0x" + strings.Repeat("0", 36) + "c4a0", rng: rand.New(rand.NewSource(cfg.seed)), counts: map[string]int{}}
}

// startLoad starts cfg.sessions sessions, round robin over the shapes,
// spread evenly over window. Each start is retried with its idempotency
// key until it is acknowledged (Redis may be down, paused or failing
// over); the key makes a retry of a start that did happen a no-op.
func (rn *run) startLoad(window time.Duration) {
	orchs := make([]*registry.Orchestration, len(rn.shapes))
	for i, s := range rn.shapes {
		orchs[i] = s.orch
	}
	src := reactor.NewStaticSource(orchs...)
	deadline := rn.begin.Add(rn.cfg.duration + rn.cfg.settle/2)
	rn.startWG.Add(1)
	go func() {
		defer rn.startWG.Done()
		for i := 0; i < rn.cfg.sessions; i++ {
			time.Sleep(time.Until(rn.begin.Add(window * time.Duration(i) / time.Duration(rn.cfg.sessions))))
			sh := rn.shapes[i%len(rn.shapes)]
			s := started{key: fmt.Sprintf("chaos-%s-%d", rn.name, i), shape: sh.name}
			payload := []byte(fmt.Sprintf(`{"n":%d}`, i))
			if rn.payload != nil {
				payload = rn.payload(i)
			}
			if rn.cut != nil && i%cutEvery == cutEvery/2 {
				req := session.Request{Owner: rn.owner, Registry: "file", OstcID: sh.orch.ID,
					Step: sh.step, Payload: payload, Key: s.key}
				if root, ok := rn.cutStart(src, req); ok {
					s.attempts, s.root, s.ack = 1, root, "cut"
					rn.mu.Lock()
					rn.starts = append(rn.starts, s)
					rn.roots = append(rn.roots, s.root)
					rn.mu.Unlock()
					continue
				}
			}
			for time.Now().Before(deadline) {
				s.attempts++
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
				res, err := session.Starter{Store: rn.store, Source: src}.Start(ctx, session.Request{Owner: rn.owner, Registry: "file", OstcID: sh.orch.ID,
					Step: sh.step, Payload: payload, Key: s.key})
				cancel()
				s.err = err
				if err == nil {
					s.root, s.ack = res.Root, res.Ack
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			rn.mu.Lock()
			rn.starts = append(rn.starts, s)
			if s.err == nil {
				rn.roots = append(rn.roots, s.root)
			}
			rn.mu.Unlock()
		}
	}()
}

func (rn *run) startedRoots() []joinstore.Root {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	return append([]joinstore.Root(nil), rn.roots...)
}

// fault is one scheduled fault.
type fault struct {
	at   time.Duration
	kind string
	do   func() (string, error)
}

// plan spreads the faults evenly over the duration: the special ones (in
// their order) on slots around its middle, n kill -9s of replicas on the
// other slots, each with a little jitter, so that one fault's recovery
// is mostly over before the next one. Each kill kills the busiest
// replica: the one holding the most root leases at that moment (ties
// broken at random). A replica adopts every due session it can lease, so
// the first one to poll tends to hold most sessions, and a random victim
// would often hold none.
func (rn *run) plan(n int, special ...fault) []fault {
	total := n + len(special)
	step := rn.cfg.duration / time.Duration(total+1)
	specialAt := map[int]fault{}
	for i, f := range special {
		// Slots (i+1)/(len+1) of the way through, e.g. 1/4, 2/4, 3/4.
		specialAt[total*(i+1)/(len(special)+1)] = f
	}
	var out []fault
	for j := 0; j < total; j++ {
		at := step * time.Duration(j+1)
		f, ok := specialAt[j]
		if !ok {
			at += time.Duration(rn.rng.Int63n(int64(step/3))) - step/6
			f = fault{kind: "replica kill -9", do: rn.killReplica}
		}
		f.at = at
		out = append(out, f)
	}
	return out
}

// busiest reads every started session's root lease and returns the slot
// whose replica holds the most, with the sessions it holds and a summary
// of who holds what.
func (rn *run) busiest() (slot int, held []joinstore.Root, summary string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	hs, err := rn.store.RootHolders(ctx, rn.startedRoots())
	by := map[string][]joinstore.Root{}
	for r, h := range hs {
		by[h] = append(by[h], r)
	}
	best := -1
	var parts []string
	for s := 0; s < rn.cfg.replicas; s++ {
		name := rn.fleet.current(s).name
		parts = append(parts, fmt.Sprintf("%s=%d", name, len(by[name])))
		if best < 0 || len(by[name]) > len(held) || len(by[name]) == len(held) && rn.rng.Intn(2) == 0 {
			best, held = s, by[name]
		}
	}
	return best, held, strings.Join(parts, " "), err
}

// killReplica kills the busiest replica with SIGKILL, right after reading
// which sessions it holds (for the takeover figures) and its metrics, and
// starts its next incarnation.
func (rn *run) killReplica() (string, error) {
	slot, held, summary, snapErr := rn.busiest()
	victim, at, err := rn.fleet.kill9(slot)
	rn.kills = append(rn.kills, Kill{Victim: victim, At: at, Held: held})
	msg := fmt.Sprintf("kill -9 %s, holding %d sessions (leases: %s)", victim, len(held), summary)
	if snapErr != nil {
		msg += fmt.Sprintf(" [lease snapshot partial: %v]", snapErr)
	}
	return msg, err
}

// runFaults performs the faults in time order, each at its time or right
// after the previous one finished, and waits for the load to be started.
func (rn *run) runFaults(fs []fault) {
	sort.Slice(fs, func(i, j int) bool { return fs[i].at < fs[j].at })
	for _, f := range fs {
		time.Sleep(time.Until(rn.begin.Add(f.at)))
		start := time.Since(rn.begin)
		msg, err := f.do()
		line := fmt.Sprintf("+%5.1fs %s", start.Seconds(), msg)
		if err != nil {
			line += " ERROR: " + err.Error()
			rn.t.Errorf("%s: fault %q failed: %v", rn.name, f.kind, err)
		} else {
			rn.counts[f.kind]++
		}
		rn.faults = append(rn.faults, line)
		rn.t.Log(line)
	}
	time.Sleep(time.Until(rn.begin.Add(rn.cfg.duration)))
	// startLoad gives up at duration + settle/2; one start attempt takes
	// 3.2 s at most.
	awaitGroup(rn.t, &rn.startWG, time.Until(rn.begin.Add(rn.cfg.duration+rn.cfg.settle/2))+10*time.Second,
		rn.name+": the session starter (startLoad)")
}

// settle waits until every started session finished or the settle time
// is over.
func (rn *run) settle() time.Duration {
	start := time.Now()
	pending := map[joinstore.Root]bool{}
	for _, r := range rn.startedRoots() {
		pending[r] = true
	}
	for len(pending) > 0 && time.Since(start) < rn.cfg.settle {
		for r := range pending {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			m, err := rn.store.SessionMeta(ctx, r)
			cancel()
			if err == nil && m.Status == joinstore.SessionFinished {
				delete(pending, r)
			}
		}
		if len(pending) > 0 {
			time.Sleep(300 * time.Millisecond)
		}
	}
	if len(pending) > 0 {
		rn.t.Logf("%s: %d sessions not finished after settling %s", rn.name, len(pending), rn.cfg.settle)
	}
	return time.Since(start)
}

// report is a run's figures.
type report struct {
	started, startFailed, inRedis, finished, stuckSessions, liveProcs int
	lost, commits                                                     int
	doubleCommits, targetsTwice, targetCommitsTwice, childrenTwice    int
	claimed, executed, fenced, inferred                               float64
	perSession, perKill                                               []time.Duration
	takeoverMissing                                                   int
	findings                                                          []Finding
}

// audit reads everything back from Redis and checks it (AuditSession per
// session, plus the session index against the acknowledged starts).
func (rn *run) audit() report {
	ctx := context.Background()
	var rep report
	byRoot := map[joinstore.Root][]string{}
	rn.mu.Lock()
	starts := append([]started(nil), rn.starts...)
	rn.mu.Unlock()
	rep.started = len(starts)
	for _, s := range starts {
		if s.err != nil {
			rep.startFailed++
			rn.t.Errorf("%s: start %s was never acknowledged after %d attempts: %v", rn.name, s.key, s.attempts, s.err)
			continue
		}
		byRoot[s.root] = append(byRoot[s.root], s.key)
	}
	listed, err := rn.store.Sessions(ctx, rn.owner, 0, 10*rn.cfg.sessions+100, true)
	if err != nil {
		rn.t.Fatalf("%s: listing sessions: %v", rn.name, err)
	}
	rep.inRedis = len(listed)
	indexed := map[joinstore.Root]bool{}
	for _, ref := range listed {
		indexed[ref.Root] = true
		if byRoot[ref.Root] == nil {
			rep.findings = append(rep.findings, Finding{Kind: KindExtraSession, Session: ref.Root.String(), Detail: "in the owner's index, but no acknowledged start names it"})
		}
	}
	var roots []joinstore.Root
	for r, keys := range byRoot {
		roots = append(roots, r)
		if len(keys) > 1 {
			rep.lost += len(keys) - 1
			rep.findings = append(rep.findings, Finding{Kind: KindLost, Session: r.String(), Detail: fmt.Sprintf("idempotency keys %v all name this one session", keys)})
		}
	}
	sort.Slice(roots, func(i, j int) bool { return roots[i].RootPid < roots[j].RootPid })
	hist := map[joinstore.Root][]joinstore.HistoryEntry{}
	finishedAt := map[joinstore.Root]time.Time{}
	for _, r := range roots {
		meta, err := rn.store.SessionMeta(ctx, r)
		if errors.Is(err, joinstore.ErrNotFound) {
			rep.lost++
			rep.findings = append(rep.findings, Finding{Kind: KindLost, Session: r.String(), Detail: fmt.Sprintf("start %v was acknowledged, the session is not in Redis", byRoot[r])})
			continue
		}
		if err != nil {
			rn.t.Fatalf("%s: session %s: %v", rn.name, r, err)
		}
		if !indexed[r] {
			rep.findings = append(rep.findings, Finding{Kind: KindNotIndexed, Session: r.String(), Detail: "the session exists, its owner's index does not list it"})
		}
		procs, err := rn.store.Processes(ctx, r)
		if err != nil {
			rn.t.Fatalf("%s: processes of %s: %v", rn.name, r, err)
		}
		h, err := rn.store.History(ctx, r)
		if err != nil {
			rn.t.Fatalf("%s: history of %s: %v", rn.name, r, err)
		}
		a := AuditSession(r.String(), meta, procs, h)
		hist[r] = h
		rep.commits += a.Commits
		rep.liveProcs += len(a.LiveProcesses)
		if a.Finished {
			rep.finished++
			finishedAt[r] = a.FinishedAt
			rep.findings = append(rep.findings, rn.keysWithoutTTL(ctx, r)...)
		} else {
			rep.stuckSessions++
		}
		rep.findings = append(rep.findings, a.Findings...)
	}
	for _, f := range rep.findings {
		switch f.Kind {
		case KindDoubleCommit:
			rep.doubleCommits++
		case KindTargetCommittedTwice:
			rep.targetCommitsTwice++
		case KindTargetTwice:
			rep.targetsTwice++
		case KindChildTwice:
			rep.childrenTwice++
		}
	}
	for _, k := range rn.kills {
		per, worst, missing := Takeover(k, hist, finishedAt)
		rep.perSession = append(rep.perSession, per...)
		if len(per) > 0 {
			rep.perKill = append(rep.perKill, worst)
		}
		rep.takeoverMissing += len(missing)
	}
	// Executions per incarnation: its last scrape of xgr_events_total,
	// raised to what proc_steps proves. A replica counts "executed" before
	// it commits and "ignored" when the commit is fenced off, so it executed
	// at least its commits plus its fenced results; events between the
	// last scrape and a kill -9 are recovered that way when they led to a
	// commit (and missed when they did not).
	commitsBy := map[string]float64{}
	for _, h := range hist {
		for _, e := range h {
			if e.Commit() {
				commitsBy[e.Worker]++
			}
		}
	}
	for _, r := range rn.fleet.incarnations() {
		claimed, executed, fenced := r.count("claimed"), r.count("executed"), r.count("ignored")
		if floor := commitsBy[r.name] + fenced; executed < floor {
			rep.inferred += floor - executed
			executed = floor
		}
		claimed = max(claimed, executed)
		rep.claimed += claimed
		rep.executed += executed
		rep.fenced += fenced
	}
	return rep
}

// keysWithoutTTL finds the keys of a finished session that would stay in
// Redis forever (TTL -1).
func (rn *run) keysWithoutTTL(ctx context.Context, r joinstore.Root) []Finding {
	var out []Finding
	check := func(ctx context.Context, c redis.Cmdable) error {
		it := c.Scan(ctx, 0, joinstore.SessionKeyPattern(r), 1000).Iterator()
		for it.Next(ctx) {
			if ttl, err := c.TTL(ctx, it.Val()).Result(); err == nil && ttl == -1 {
				out = append(out, Finding{Kind: KindNoTTL, Session: r.String(), Detail: it.Val() + " has no TTL after the session finished"})
			}
		}
		return it.Err()
	}
	var err error
	if cc, ok := rn.rdb.(*redis.ClusterClient); ok {
		// The session's keys share one hash tag: one master holds them all.
		var c *redis.Client
		if c, err = cc.MasterForKey(ctx, joinstore.SessionKeyPattern(r)); err == nil {
			err = check(ctx, c)
		}
	} else {
		err = check(ctx, rn.rdb)
	}
	if err != nil {
		rn.t.Errorf("%s: keys of %s: %v", rn.name, r, err)
	}
	return out
}

// print writes the report table and fails the test on any finding.
func (rn *run) print(rep report, settled time.Duration, extra []string) {
	var b strings.Builder
	row := func(k, format string, args ...any) { fmt.Fprintf(&b, "  %-34s %s\n", k, fmt.Sprintf(format, args...)) }
	fmt.Fprintf(&b, "\n=== chaos report: %s (seed %d, %d replicas, %s of faults, settled in %s) ===\n",
		rn.name, rn.cfg.seed, rn.cfg.replicas, rn.cfg.duration, settled.Round(100*time.Millisecond))
	var shapes []string
	for _, s := range rn.shapes {
		shapes = append(shapes, s.name)
	}
	row("sessions started (acknowledged)", "%d of %d (%s)", rep.started-rep.startFailed, rn.cfg.sessions, strings.Join(shapes, ", "))
	row("sessions in Redis / finished", "%d / %d", rep.inRedis, rep.finished)
	row("sessions lost", "%d", rep.lost)
	row("sessions stuck / live processes", "%d / %d", rep.stuckSessions, rep.liveProcs)
	row("replica kill -9 survived", "%d", rn.counts["replica kill -9"])
	row("starts cut before their last call", "%d (never retried; each must run)", rn.cuts.Load())
	for _, e := range extra {
		k, v, _ := strings.Cut(e, "\t")
		row(k, "%s", v)
	}
	unexpected := rn.fleet.unexpectedExits()
	row("replica exits on their own", "%d", len(unexpected))
	row("commits (proc_steps)", "%d", rep.commits)
	row("processes committed twice", "%d", rep.doubleCommits)
	row("join targets created twice", "%d (children listed twice: %d)", rep.targetsTwice, rep.childrenTwice)
	row("join targets committed twice", "%d", rep.targetCommitsTwice)
	row("executions begun / completed", "%.0f / %.0f (xgr_events_total claimed / executed of every incarnation; %.0f inferred from proc_steps)", rep.claimed, rep.executed, rep.inferred)
	row("extra executions", "%.0f completed beyond the commits; %.0f begun beyond the commits", rep.executed-float64(rep.commits), rep.claimed-float64(rep.commits))
	row("results fenced off (lease lost)", "%.0f", rep.fenced)
	row("takeover after kill, per session", "p50 %s  p99 %s  (n=%d, unmeasured %d)", Percentile(rep.perSession, 50), Percentile(rep.perSession, 99), len(rep.perSession), rep.takeoverMissing)
	row("takeover after kill, whole replica", "p50 %s  p99 %s  (n=%d)", Percentile(rep.perKill, 50), Percentile(rep.perKill, 99), len(rep.perKill))
	warn := rn.fleet.warnings()
	var ws []string
	for k, n := range warn {
		ws = append(ws, fmt.Sprintf("%d× %s", n, k))
	}
	sort.Strings(ws)
	if len(ws) > 0 {
		fmt.Fprintf(&b, "  replica log warnings/errors:\n")
		for _, w := range ws {
			fmt.Fprintf(&b, "    %s\n", w)
		}
	}
	fmt.Fprintf(&b, "  faults:\n")
	for _, f := range rn.faults {
		fmt.Fprintf(&b, "    %s\n", f)
	}
	rn.t.Log(b.String())
	for _, u := range unexpected {
		rn.t.Logf("%s: a replica exited on its own: %s", rn.name, u)
	}
	for i, f := range rep.findings {
		if i == 60 {
			rn.t.Errorf("%s: … and %d more findings", rn.name, len(rep.findings)-i)
			break
		}
		rn.t.Errorf("%s: %s", rn.name, f)
	}
}

// TestChaos runs the chaos suite: on one redis-server with AOF, then on a
// Redis Cluster of three masters with one replica each.
func TestChaos(t *testing.T) {
	cfg := loadConfig(t)
	t.Logf("knobs: XGR_CHAOS_SESSIONS=%d XGR_CHAOS_REPLICAS=%d XGR_CHAOS_KILLS=%d XGR_CHAOS_MASTER_KILLS=%d XGR_CHAOS_DURATION=%s XGR_CHAOS_SETTLE=%s XGR_CHAOS_SEED=%d",
		cfg.sessions, cfg.replicas, cfg.kills, cfg.masterKills, cfg.duration, cfg.settle, cfg.seed)
	shapes := loadShapes(t)
	t.Run("single", func(t *testing.T) { runSingle(t, cfg, shapes) })
	t.Run("cluster", func(t *testing.T) { runCluster(t, cfg, shapes) })
}

var (
	ostcFiles = []string{"testdata/chain.json", "testdata/fanout_all_drain.json", "../examples/ostc/kofn_three_sources.json",
		"../examples/ostc/nested_join.json", "../examples/ostc/kofn_backloop_kill.json"}
	outcomesFile = "testdata/outcomes.json"
)

func abs(t *testing.T, files ...string) []string {
	var out []string
	for _, f := range files {
		a, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}

// runSingle: one redis-server with appendonly yes and appendfsync always,
// so every write Redis acknowledged is on disk before the reply and
// survives its kill -9. Faults: kill -9 of replicas, one SIGSTOP of a
// replica for longer than its leases, one kill -9 and restart of Redis on
// the same AOF directory, one CLIENT PAUSE ALL.
func runSingle(t *testing.T, cfg config, shapes []shape) {
	rds := testenv.StartRedis(t, testenv.WithAOF())
	rdb := redis.NewClient(&redis.Options{Addr: rds.Addr, ContextTimeoutEnabled: true, DialTimeout: time.Second, ReadTimeout: 3 * time.Second, WriteTimeout: 3 * time.Second})
	defer rdb.Close()
	aof, err := rdb.ConfigGet(context.Background(), "append*").Result()
	if err != nil {
		t.Fatal(err)
	}
	fl := newFleet(t, cfg.replicas, []string{"--redis", "redis://" + rds.Addr + "/0"}, abs(t, ostcFiles...), abs(t, outcomesFile)[0])
	rn := newRun(t, cfg, "single", rdb, fl, shapes)
	cut := redis.NewClient(&redis.Options{Addr: rds.Addr, ContextTimeoutEnabled: true, DialTimeout: time.Second, ReadTimeout: 3 * time.Second, WriteTimeout: 3 * time.Second})
	defer cut.Close()
	rn.cut = cutStore(cut)
	rn.begin = time.Now()
	rn.startLoad(cfg.duration * 9 / 10)
	fs := rn.plan(cfg.kills,
		fault{kind: "replica SIGSTOP", do: func() (string, error) {
			slot, held, _, _ := rn.busiest()
			name, err := fl.freeze(slot, 3*time.Second)
			return fmt.Sprintf("SIGSTOP %s (holding %d sessions) for 3s (root and proc leases are 2s), then SIGCONT", name, len(held)), err
		}},
		fault{kind: "redis kill -9 + restart", do: func() (string, error) {
			start := time.Now()
			if err := rds.TryRestart(); err != nil {
				return "redis kill -9 + restart", err
			}
			return fmt.Sprintf("redis-server kill -9, restarted on its AOF (down %s)", time.Since(start).Round(time.Millisecond)), nil
		}},
		fault{kind: "CLIENT PAUSE", do: func() (string, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			return "CLIENT PAUSE 3000 ALL", rdb.Do(ctx, "CLIENT", "PAUSE", "3000", "ALL").Err()
		}},
	)
	rn.runFaults(fs)
	settled := rn.settle()
	fl.scrapeAll()
	fl.stop(10 * time.Second)
	rep := rn.audit()
	rn.print(rep, settled, []string{
		"redis persistence\t" + fmt.Sprintf("appendonly %s, appendfsync %s (acknowledged writes survive kill -9)", aof["appendonly"], aof["appendfsync"]),
		"redis kill -9 + restart survived\t" + strconv.Itoa(rn.counts["redis kill -9 + restart"]),
		"CLIENT PAUSE 3s survived\t" + strconv.Itoa(rn.counts["CLIENT PAUSE"]),
		"replica SIGSTOP 3s survived\t" + strconv.Itoa(rn.counts["replica SIGSTOP"]),
	})
}
