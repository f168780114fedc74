package reactor

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// migrationShape is a session of 8 steps with a join: A fans out to four
// producers, the join J closes when all four delivered, then B and C.
const migrationShape = `{"id":"migrate","structure":{
  "A":{"rule":"x","onValid":{"spawns":["P0","P1","P2","P3"],
    "join":{"joinid":"J","mode":"all","waitonjoin":"drain","from":[{"node":"P0"},{"node":"P1"},{"node":"P2"},{"node":"P3"}]}}},
  "P0":{"rule":"x"},"P1":{"rule":"x"},"P2":{"rule":"x"},"P3":{"rule":"x"},
  "J":{"rule":"x","onValid":{"spawns":["B"]}},
  "B":{"rule":"x","onValid":{"spawns":["C"]}},"C":{"rule":"x"}}}`

// migrationSessions is how many sessions each run starts (over 3 masters,
// so every master serves some of them).
const migrationSessions = 24

// Sessions keep committing while the slots they live in move from one
// master to another with the real resharding protocol (CLUSTER SETSLOT
// IMPORTING / MIGRATING, MIGRATE … KEYS in batches, CLUSTER SETSLOT NODE on
// every master): the commits that meet the migration are redirected (ASK)
// or refused before they run (TRYAGAIN), and every session still ends as it
// does without a migration: every process done, every step committed once.
//
// The migration is synchronized with the sessions on what they show: every
// session's first step is held in its execution until the first key batch
// of every slot has moved (the slots are split between two masters, so a
// session's commit meets TRYAGAIN), the rest of the keys move only after
// the client saw a TRYAGAIN, and the slots are handed over only after it
// saw an ASK.
func TestSessionsCommitThroughSlotMigration(t *testing.T) {
	c := testenv.StartCluster(t, 3)
	red := &redirects{ask: make(chan struct{})}
	var addrs []string
	for _, n := range c.Nodes {
		addrs = append(addrs, n.Addr)
	}
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs,
		// Every node client counts the redirections it receives.
		NewClient: func(opt *redis.Options) *redis.Client {
			cl := redis.NewClient(opt)
			cl.AddHook(red)
			return cl
		}})
	t.Cleanup(func() { rdb.Close() })
	adm := newClusterAdmin(t, c)
	o, err := registry.Parse([]byte(migrationShape))
	if err != nil {
		t.Fatal(err)
	}

	// Without a migration: what every session ends with.
	want := runMigrationSessions(t, rdb, o, "base", nil)

	// With one: the slots of the sessions one master serves move to
	// another master (one direction: the target's config epoch, bumped at
	// each import, stays the highest, so no stale claim of the source wins).
	moved := runMigrationSessions(t, rdb, o, "moved", func(ctx context.Context, roots []joinstore.Root, release func()) {
		var moves []slotMove
		seen := map[int64]bool{}
		from := -1
		for _, r := range roots {
			slot := adm.slotOf(ctx, fmt.Sprintf("xgr:{%s:%d}:meta", r.Owner, r.RootPid))
			owner := adm.owner(ctx, 0, slot)
			if from < 0 {
				from = owner
			}
			if seen[slot] || owner != from {
				continue
			}
			seen[slot] = true
			moves = append(moves, slotMove{slot: slot, from: from, to: (from + 1) % len(adm.nodes)})
		}
		// Open every slot and move its first keys: each session's keys
		// are now split between its slot's source and target.
		for _, m := range moves {
			adm.open(ctx, m)
			if n := adm.moveKeys(ctx, m, 2); n == 0 {
				t.Fatalf("slot %d: no keys to move while its session runs", m.slot)
			}
		}
		tryAgain0, ask0 := red.tryAgains.Load(), red.asks.Load()
		// The moved sessions' transitions are refused until their slots
		// are whole again: the split lasts until the client was refused
		// 12 times per moved session (go-redis's own retries of one
		// command are at most 4), so the store has to outlast the refusal.
		n := 0
		for _, r := range roots {
			if seen[adm.slotOf(ctx, fmt.Sprintf("xgr:{%s:%d}:meta", r.Owner, r.RootPid))] {
				n++
			}
		}
		refusals := red.expectTryAgains(tryAgain0 + int64(12*n))
		release()
		await(t, refusals, fmt.Sprintf("%d TRYAGAIN replies for the commits of %d sessions in split slots", 12*n, n))
		// The rest of the keys, a few at a time, then the handover.
		for _, m := range moves {
			for adm.moveKeys(ctx, m, 3) > 0 {
			}
		}
		await(t, red.ask, "an ASK for a command on a moved session's keys")
		for _, m := range moves {
			adm.finish(ctx, m)
		}
		for _, m := range moves {
			adm.awaitOwner(ctx, m)
		}
		t.Logf("moved %d slots while their sessions committed; redirections during the move: %d TRYAGAIN, %d ASK",
			len(moves), red.tryAgains.Load()-tryAgain0, red.asks.Load()-ask0)
	})

	if len(moved) != len(want) {
		t.Fatalf("%d sessions with the migration, %d without", len(moved), len(want))
	}
	for i := range want {
		if moved[i] != want[i] {
			t.Errorf("session %d: with the migration %+v, without %+v", i, moved[i], want[i])
		}
	}
	t.Logf("redirections in all: %d TRYAGAIN, %d ASK, %d MOVED; server errorstats: %s",
		red.tryAgains.Load(), red.asks.Load(), red.moveds.Load(), adm.errorstats(context.Background()))
}

// sessionEnd is what a session ended with.
type sessionEnd struct {
	Outcome                 joinstore.Outcome
	Commits, Procs, NotDone int
	Steps                   string
	// Executions counts the executor's runs of the session's steps (a
	// step run again after its commit failed counts twice); Recoveries
	// the processes' recoveries from expired leases.
	Executions, Recoveries int
}

// runMigrationSessions starts migrationSessions sessions of o, runs them on
// one replica that batches its transitions (as xgr run does) and returns
// how each ended, after checking that none committed a step twice. With
// migrate set, every session's first step is held until migrate called
// release; migrate gets the sessions' roots and runs while they commit.
func runMigrationSessions(t *testing.T, rdb *redis.ClusterClient, o *registry.Orchestration, tag string,
	migrate func(ctx context.Context, roots []joinstore.Root, release func())) []sessionEnd {
	t.Helper()
	ctx := context.Background()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour, Batch: joinstore.DefaultBatch})
	src := NewStaticSource(o)
	inner, _ := ParseOutcomes([]byte(`{"default":{"result":"valid"}}`))
	gate := &holdStep{inner: inner, step: "A", want: migrationSessions, all: make(chan struct{}), open: make(chan struct{}),
		runs: map[int64]int{}}
	if migrate == nil {
		close(gate.open)
	}
	var roots []joinstore.Root
	for i := 0; i < migrationSessions; i++ {
		res, err := Start(ctx, store, src, StartRequest{Owner: owner, XRC729: "test", OstcID: o.ID, Step: o.Steps[0].ID,
			IdempotencyKey: fmt.Sprint(tag, i)}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		roots = append(roots, res.Root)
	}
	logs := &syncBuffer{}
	runCtx, cancel := context.WithCancel(ctx)
	m := &Manager{Store: store, Source: src, Exec: gate, Replica: "r-" + tag, Poll: 20 * time.Millisecond,
		Log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	done := make(chan error, 1)
	go func() { done <- m.Run(runCtx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		if n := strings.Count(logs.String(), "\n"); n > 0 {
			t.Logf("%s: the replica warned %d times:\n%s", tag, n, logs.String())
		}
	}()
	if migrate != nil {
		await(t, gate.all, "every session holding its first step")
		migrate(ctx, roots, func() { close(gate.open) })
	}
	waitFinished(t, store, roots, 15*time.Second)
	checkOnce(t, rdb, roots, 8)
	var out []sessionEnd
	for _, r := range roots {
		meta, err := store.SessionMeta(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		procs, err := store.Processes(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		e := sessionEnd{Outcome: joinstore.OutcomeOf(meta), Commits: int(meta.Steps), Procs: len(procs), Executions: gate.ran(r.RootPid)}
		var steps []string
		for _, p := range procs {
			if p.Status != joinstore.StatusDone {
				e.NotDone++
			}
			steps = append(steps, p.ResumeStep)
			n, err := rdb.HGet(ctx, fmt.Sprintf("xgr:{%s:%d}:p:%d", r.Owner, r.RootPid, p.Iter), "recoveries").Int()
			if err != nil && err != redis.Nil {
				t.Fatal(err)
			}
			e.Recoveries += n
		}
		sort.Strings(steps)
		e.Steps = strings.Join(steps, ",")
		out = append(out, e)
	}
	return out
}

// holdStep runs inner, holding every execution of step until open is
// closed; all is closed when want of them are held. It counts the runs of
// each session's steps.
type holdStep struct {
	inner Executor
	step  string
	want  int
	held  atomic.Int64
	all   chan struct{}
	open  chan struct{}

	mu   sync.Mutex
	runs map[int64]int // by root pid
}

func (h *holdStep) ran(rootPid int64) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.runs[rootPid]
}

func (h *holdStep) Execute(ctx context.Context, e Execution) (Result, error) {
	h.mu.Lock()
	h.runs[e.Session]++
	h.mu.Unlock()
	if e.Step.ID == h.step {
		if h.held.Add(1) == int64(h.want) {
			close(h.all)
		}
		select {
		case <-h.open:
		case <-ctx.Done():
			return Result{}, ctx.Err()
		}
	}
	return h.inner.Execute(ctx, e)
}

// await waits for ch to close; the bound only turns a hang into a failure.
func await(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(15 * time.Second):
		t.Fatalf("no %s within 15s", what)
	}
}

// redirects is a go-redis hook on every node client of a cluster client:
// it counts the ASK, MOVED and TRYAGAIN replies the client received (and
// then followed or retried), and closes tryAgain and ask at the first.
type redirects struct {
	asks, moveds, tryAgains atomic.Int64
	ask                     chan struct{}
	onceAsk                 sync.Once

	mu      sync.Mutex
	want    int64         // tryAgains to wait for
	reached chan struct{} // closed when tryAgains reached want
}

// expectTryAgains returns a channel closed once the count of TRYAGAIN
// replies reaches n.
func (r *redirects) expectTryAgains(n int64) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	ch := make(chan struct{})
	if r.tryAgains.Load() >= n {
		close(ch)
		return ch
	}
	r.want, r.reached = n, ch
	return ch
}

func (r *redirects) count(errs ...error) {
	for _, err := range errs {
		if err == nil {
			continue
		}
		switch s := err.Error(); {
		case strings.HasPrefix(s, "ASK "):
			r.asks.Add(1)
			r.onceAsk.Do(func() { close(r.ask) })
		case strings.HasPrefix(s, "MOVED "):
			r.moveds.Add(1)
		case strings.HasPrefix(s, "TRYAGAIN"):
			n := r.tryAgains.Add(1)
			r.mu.Lock()
			if r.reached != nil && n >= r.want {
				close(r.reached)
				r.reached = nil
			}
			r.mu.Unlock()
		}
	}
}

func (r *redirects) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r *redirects) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd) // the cmd's own error is set after the hooks
		r.count(err)
		return err
	}
}

func (r *redirects) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, c := range cmds {
			r.count(c.Err())
		}
		return err
	}
}

// clusterAdmin talks to each master of a test cluster on its own.
type clusterAdmin struct {
	t     *testing.T
	nodes []*redis.Client
	ids   []string
}

// slotMove moves slot from master from to master to (indexes into nodes).
type slotMove struct {
	slot     int64
	from, to int
}

func newClusterAdmin(t *testing.T, c *testenv.Cluster) *clusterAdmin {
	a := &clusterAdmin{t: t}
	for _, n := range c.Nodes {
		cl := redis.NewClient(&redis.Options{Addr: n.Addr})
		t.Cleanup(func() { cl.Close() })
		id, err := cl.Do(context.Background(), "cluster", "myid").Text()
		if err != nil {
			t.Fatal(err)
		}
		a.nodes, a.ids = append(a.nodes, cl), append(a.ids, id)
	}
	return a
}

func (a *clusterAdmin) must(err error, what string) {
	if err != nil {
		a.t.Helper()
		a.t.Fatalf("%s: %v", what, err)
	}
}

func (a *clusterAdmin) slotOf(ctx context.Context, key string) int64 {
	slot, err := a.nodes[0].ClusterKeySlot(ctx, key).Result()
	a.must(err, "CLUSTER KEYSLOT")
	return slot
}

// owner is the master that serves slot, as node sees it.
func (a *clusterAdmin) owner(ctx context.Context, node int, slot int64) int {
	shards, err := a.nodes[node].ClusterShards(ctx).Result()
	a.must(err, "CLUSTER SHARDS")
	for _, sh := range shards {
		for _, r := range sh.Slots {
			if r.Start <= slot && slot <= r.End {
				if i := masterOf(sh, a.ids); i >= 0 {
					return i
				}
			}
		}
	}
	a.t.Fatalf("slot %d: no master serves it", slot)
	return -1
}

// masterOf is the index in ids of the shard's master, -1 if none.
func masterOf(sh redis.ClusterShard, ids []string) int {
	for _, n := range sh.Nodes {
		for i, id := range ids {
			if n.Role == "master" && n.ID == id {
				return i
			}
		}
	}
	return -1
}

// open marks the slot importing on its target, then migrating on its source.
func (a *clusterAdmin) open(ctx context.Context, m slotMove) {
	a.must(a.nodes[m.to].Do(ctx, "cluster", "setslot", m.slot, "importing", a.ids[m.from]).Err(), "SETSLOT IMPORTING")
	a.must(a.nodes[m.from].Do(ctx, "cluster", "setslot", m.slot, "migrating", a.ids[m.to]).Err(), "SETSLOT MIGRATING")
}

// moveKeys migrates up to n keys of the slot still on its source and
// returns how many it moved.
func (a *clusterAdmin) moveKeys(ctx context.Context, m slotMove, n int) int {
	keys, err := a.nodes[m.from].ClusterGetKeysInSlot(ctx, int(m.slot), n).Result()
	a.must(err, "CLUSTER GETKEYSINSLOT")
	if len(keys) == 0 {
		return 0
	}
	host, port, err := net.SplitHostPort(a.nodes[m.to].Options().Addr)
	a.must(err, "target address")
	args := []any{"migrate", host, port, "", 0, 5000, "keys"}
	for _, k := range keys {
		args = append(args, k)
	}
	a.must(a.nodes[m.from].Do(ctx, args...).Err(), "MIGRATE")
	return len(keys)
}

// finish assigns the slot to its target on every master, the target first.
func (a *clusterAdmin) finish(ctx context.Context, m slotMove) {
	order := []int{m.to, m.from}
	for i := range a.nodes {
		if i != m.to && i != m.from {
			order = append(order, i)
		}
	}
	for _, i := range order {
		a.must(a.nodes[i].Do(ctx, "cluster", "setslot", m.slot, "node", a.ids[m.to]).Err(), "SETSLOT NODE")
	}
}

// awaitOwner waits until every master says the slot is its target's (they
// were all told so; the bound turns a disagreement into a failure).
func (a *clusterAdmin) awaitOwner(ctx context.Context, m slotMove) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		agree := true
		for i := range a.nodes {
			agree = agree && a.owner(ctx, i, m.slot) == m.to
		}
		if agree {
			return
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("slot %d: the masters do not agree that node %d serves it after 10s", m.slot, m.to)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// errorstats are the redirection counts every master reports.
func (a *clusterAdmin) errorstats(ctx context.Context) string {
	var out []string
	for i, n := range a.nodes {
		s, err := n.Info(ctx, "errorstats").Result()
		if err != nil {
			return err.Error()
		}
		var got []string
		for _, line := range strings.Split(s, "\n") {
			line = strings.TrimSpace(line)
			for _, e := range []string{"ASK", "MOVED", "TRYAGAIN"} {
				if strings.HasPrefix(line, "errorstat_"+e+":") {
					got = append(got, line)
				}
			}
		}
		out = append(out, fmt.Sprintf("node %d [%s]", i, strings.Join(got, " ")))
	}
	return strings.Join(out, "; ")
}

// syncBuffer is a bytes.Buffer for concurrent writers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
