package rpc_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rpc"
)

// fanOut is the waiting processes of a fan session: A1 spawns 32 B at once,
// each B 9 W1 that wait an hour.
const fanOut = 32 * 9

func fanText() string {
	rep := func(s string, n int) string { return strings.TrimSuffix(strings.Repeat(`"`+s+`",`, n), ",") }
	return `{"id": "fan", "structure": {
  "A1": {"rule": "x", "onValid": {"spawns": [` + rep("B", 32) + `]}},
  "B":  {"rule": "x", "onValid": {"spawns": [` + rep("W1", 9) + `]}},
  "W1": {"rule": "x"}}}`
}

// fanExec runs A1 with no wait and parks B's children for an hour.
type fanExec struct{}

func (fanExec) Execute(_ context.Context, e reactor.Execution) (reactor.Result, error) {
	if e.Step.ID == "A1" {
		return reactor.Result{Valid: true}, nil
	}
	return reactor.Result{Valid: true, Wait: time.Hour}, nil
}

// newFanGateway is a gateway that also serves the fan orchestration.
func newFanGateway(t testing.TB, mutate func(*rpc.Config)) (*gateway, *registry.Orchestration) {
	t.Helper()
	fan, err := registry.Parse([]byte(fanText()))
	if err != nil {
		t.Fatal(err)
	}
	g := newGatewayWith(t, rpc.ServerConfig{}, func(c *rpc.Config) {
		c.Source = reactor.NewStaticSource(mustParse(t, flowText), fan)
		if mutate != nil {
			mutate(c)
		}
	})
	return g, fan
}

func mustParse(t testing.TB, text string) *registry.Orchestration {
	t.Helper()
	o, err := registry.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// fanSession starts a fan session of key with payload and runs A1 and every
// B, leaving fanOut W1 processes waiting, each with the payload.
func (g *gateway) fanSession(fan *registry.Orchestration, key *ecdsa.PrivateKey, payload string) joinstore.Root {
	g.t.Helper()
	ctx := context.Background()
	res, err := g.client.Start(ctx, key, xrc729, fan.ID, fan.Hash, "A1", json.RawMessage(payload))
	if err != nil {
		g.t.Fatal(err)
	}
	var root joinstore.Root
	fmt.Sscan(res.SessionID, &root.RootPid)
	root.Owner = res.Owner
	r := &reactor.Runner{Store: g.store, Orch: fan, Worker: "w", Now: time.Now, Advance: func(time.Time) {}, MaxSteps: 33, Exec: fanExec{}}
	r.Run(ctx, root)
	if r.Executed() != 33 {
		g.t.Fatalf("the fan session ran %d steps, want 33", r.Executed())
	}
	return root
}

// cmdLog records the commands a go-redis client sends while on.
type cmdLog struct {
	mu   sync.Mutex
	on   bool
	cmds [][]string
}

func (l *cmdLog) DialHook(next redis.DialHook) redis.DialHook { return next }
func (l *cmdLog) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, c redis.Cmder) error { l.add(c); return next(ctx, c) }
}
func (l *cmdLog) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cs []redis.Cmder) error {
		for _, c := range cs {
			l.add(c)
		}
		return next(ctx, cs)
	}
}

func (l *cmdLog) add(c redis.Cmder) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.on || c.Name() == "hello" || c.Name() == "client" {
		return // a new connection's handshake
	}
	args := make([]string, len(c.Args()))
	for i, a := range c.Args() {
		args[i] = fmt.Sprint(a)
	}
	l.cmds = append(l.cmds, args)
}

// during records the commands fn sends.
func (l *cmdLog) during(fn func()) [][]string {
	l.mu.Lock()
	l.on, l.cmds = true, nil
	l.mu.Unlock()
	fn()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.on = false
	return l.cmds
}

func hook(t testing.TB, g *gateway) *cmdLog {
	t.Helper()
	l := &cmdLog{}
	g.rdb.AddHook(l)
	return l
}

// payloadReads counts the commands that read a process's payload: an
// HGETALL of a process record, or a read that names resumePlain.
func payloadReads(cmds [][]string) int {
	n := 0
	for _, c := range cmds {
		if len(c) < 2 {
			continue
		}
		name := strings.ToLower(c[0])
		proc := strings.Contains(c[1], ":p:")
		switch {
		case name == "hgetall" && proc:
			n++
		case (name == "hget" || name == "hmget") && proc && strings.Contains(strings.Join(c[2:], " "), "resumePlain"):
			n++
		}
	}
	return n
}

// processReads counts the commands on process records.
func processReads(cmds [][]string) int {
	n := 0
	for _, c := range cmds {
		if len(c) > 1 && strings.Contains(c[1], ":p:") {
			n++
		}
	}
	return n
}

var (
	pidRE  = regexp.MustCompile(`\b\d+:\d+\b`)
	addrRE = regexp.MustCompile(`0x[0-9a-fA-F]{40}`)
)

// A signer that may not wake gets its refusal from the session's meta
// alone: no process is read, let alone its payload, and the refusal names
// no process and no part of the allow list. A signer that may wake reads
// payloads of the candidates only, at most rpc.MaxWakeCandidates; an
// allow-mode list reads no payload at all.
func TestRefusedWakeReadsNoPayload(t *testing.T) {
	g, fan := newFanGateway(t, nil)
	ctx := context.Background()
	runnerKey, delegate, stranger := g.keys[0], g.keys[1], g.keys[2]
	runner := addr(runnerKey)
	big := strings.Repeat("x", 64<<10)
	root := g.fanSession(fan, runnerKey, `{"big": "`+big+`", "__wakeUp": {"steps": {"W1": {"rpc": ["`+lower(addr(delegate))+`"]}}}}`)
	log := hook(t, g)

	for name, tc := range map[string]struct {
		signer *ecdsa.PrivateKey
		step   string
	}{"stranger, step W1": {stranger, "W1"}, "delegate, step B": {delegate, "B"}} {
		var err error
		cmds := log.during(func() { _, err = g.client.Wake(ctx, tc.signer, runner, root.RootPid, "", tc.step, nil) })
		refused(t, err, rpc.CodeUnauthorized, "not-allowed")
		if n := processReads(cmds); n != 0 {
			t.Errorf("%s: a refused wake sent %d commands on process records: %v", name, n, cmds)
		}
		if len(cmds) > 3 {
			t.Errorf("%s: a refused wake sent %d commands, want at most 3 (the session's gate): %v", name, len(cmds), cmds)
		}
		msg := err.Error()
		for _, a := range addrRE.FindAllString(msg, -1) {
			if a != lower(addr(tc.signer)) && a != lower(runner) {
				t.Errorf("%s: the refusal names an address of the allow list (%s): %s", name, a, msg)
			}
		}
		if pidRE.MatchString(msg) || strings.Contains(msg, "steps.") || strings.Contains(msg, "does not list") {
			t.Errorf("%s: the refusal names a process or the allow list: %s", name, msg)
		}
	}

	// Allow mode: the stranger's list is empty and reads no process; the
	// delegate's lists every W1 and reads no payload.
	var list *rpc.ListResult
	var err error
	cmds := log.during(func() { list, err = g.client.ListAllowed(ctx, stranger, runner, root.RootPid, "") })
	if err != nil || len(list.Sessions) != 0 || processReads(cmds) != 0 {
		t.Fatalf("allow mode, stranger: %d rows, %v, %d process reads", len(list.Sessions), err, processReads(cmds))
	}
	cmds = log.during(func() { list, err = g.client.ListAllowed(ctx, delegate, runner, root.RootPid, "") })
	if err != nil || len(list.Sessions) != fanOut || payloadReads(cmds) != 0 {
		t.Fatalf("allow mode, delegate: %d rows (want %d), %v, %d payload reads", len(list.Sessions), fanOut, err, payloadReads(cmds))
	}
	for _, r := range list.Sessions {
		if r.Step != "W1" || r.Status != "waiting" || r.ParentPid != "" || r.OstcID != "fan" {
			t.Fatalf("allow mode row: %+v", r)
		}
	}
	// Owner mode reads no payload either.
	cmds = log.during(func() { list, err = g.client.List(ctx, runnerKey, rpc.ListRequest{RootID: fmt.Sprint(root.RootPid)}) })
	if err != nil || len(list.Sessions) != 1+32+fanOut || payloadReads(cmds) != 0 {
		t.Fatalf("owner mode: %d rows, %v, %d payload reads", len(list.Sessions), err, payloadReads(cmds))
	}

	// The delegate's wake: the first MaxWakeCandidates W1, their payloads
	// read, no other.
	var res *rpc.WakeResult
	cmds = log.during(func() {
		res, err = g.client.Wake(ctx, delegate, runner, root.RootPid, "", "W1", json.RawMessage(`{"ok": 1}`))
	})
	if err != nil || res.Woken != rpc.MaxWakeCandidates || !res.More {
		t.Fatalf("delegated wake: %+v %v", res, err)
	}
	if n := payloadReads(cmds); n != rpc.MaxWakeCandidates {
		t.Fatalf("a wake of %d candidates read %d payloads", rpc.MaxWakeCandidates, n)
	}
}

// Refusals cost a signer its budget: after RefusalBurst refused calls the
// signer is refused at once with -32006 too-many-refusals and nothing is
// read from Redis; accepted calls cost nothing, and other signers keep
// their own budget.
func TestRefusalsAreLimitedPerSigner(t *testing.T) {
	now := time.Now()
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	g := newGatewayWith(t, rpc.ServerConfig{}, func(c *rpc.Config) { c.RefusalBurst, c.RefusalEvery, c.Now = 3, time.Minute, clock })
	ctx := context.Background()
	runnerKey, delegate, stranger := g.keys[0], g.keys[1], g.keys[2]
	runner := addr(runnerKey)
	root := g.waitingSession(runnerKey, `{"__wakeUp": {"steps": {"W1": {"rpc": ["`+lower(addr(delegate))+`"]}}}}`)
	log := hook(t, g)

	// One signed permit, replayed: each use is refused, then the budget ends.
	p, err := g.client.ControlPermit(ctx, stranger, runner, root.RootPid, "wake", "W1", true)
	if err != nil {
		t.Fatal(err)
	}
	wake := func() error {
		var out rpc.WakeResult
		return g.client.Raw(ctx, &out, "xgr_wakeUpProcess", rpc.WakeRequest{Permit: p})
	}
	for i := 0; i < 3; i++ {
		refused(t, wake(), rpc.CodeUnauthorized, "not-allowed")
	}
	cmds := log.during(func() { err = wake() })
	refused(t, err, rpc.CodeLimit, "too-many-refusals")
	if len(cmds) != 0 {
		t.Fatalf("a signer over its budget still reached Redis: %v", cmds)
	}
	// Allow-mode lists and kills of that signer are limited too.
	_, err = g.client.ListAllowed(ctx, stranger, runner, root.RootPid, "")
	refused(t, err, rpc.CodeLimit, "too-many-refusals")
	_, err = g.client.Kill(ctx, stranger, root.RootPid)
	refused(t, err, rpc.CodeLimit, "too-many-refusals")

	// Accepted calls cost nothing: the runner lists far more often.
	for i := 0; i < 10; i++ {
		if _, err := g.client.ListAllowed(ctx, runnerKey, runner, root.RootPid, ""); err != nil {
			t.Fatalf("runner's list %d: %v", i, err)
		}
	}
	// The delegate has its own budget and wakes.
	if res, err := g.client.Wake(ctx, delegate, runner, root.RootPid, "", "W1", nil); err != nil || res.Woken != 1 {
		t.Fatalf("the delegate's wake: %+v %v", res, err)
	}
	// The budget refills with time: one more call after RefusalEvery.
	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	refused(t, wake(), rpc.CodeUnauthorized, "not-allowed")
	refused(t, wake(), rpc.CodeLimit, "too-many-refusals")
}
