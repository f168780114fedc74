package joinstore_test

import (
	"context"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// nestedKill: A1 spawns P0, P1 under join J1 (any, kill); P0 spawns Q0, Q1
// under a join J2 (all, kill) that becomes a member of J1's group.
func nestedKill(t testing.TB) *registry.Orchestration {
	raw := `{"id":"nk","structure":{
"A1":{"rule":"x","onValid":{"spawns":["P0","P1"],"join":{"joinid":"J1","mode":"any","waitonjoin":"kill","from":[{"node":"P0"},{"node":"P1"}]}}},
"P0":{"rule":"x","onValid":{"spawns":["Q0","Q1"],"join":{"joinid":"J2","mode":"all","waitonjoin":"kill","from":[{"node":"Q0"},{"node":"Q1"}]}}},
"P1":{"rule":"x"},"Q0":{"rule":"x"},"Q1":{"rule":"x"},"J1":{"rule":"x"},"J2":{"rule":"x"}}}`
	o, err := registry.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// A commit that leaves its delivery pending for a join step (here: the
// target's join lock is held by a join step in progress) must not claim
// anything that the pending decision can still kill. P0's commit creates
// J2 (a waiting member of J1's group, policy kill) and its producers Q0,
// Q1; the join step of J1 then closes J1 (any) with kill: J2 is aborted,
// and with it its group's waiting members. The commit claimed Q0 and Q1
// (the first decision of J2 left them waiting and the deferred claim does
// not look at the pending delivery), so they run although their join's
// target was killed (DESIGN "Gates": on close with kill waiting processes
// are aborted at once).
func TestReviewFreshProducersClaimedWhileDeliveryPending(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		o := nestedKill(t)
		root, producers, j1 := startFan(t, s, o)
		if len(producers) != 2 {
			t.Fatalf("%d producers claimed", len(producers))
		}
		var p0 joinstore.Claim
		for _, c := range producers {
			if c.ResumeStep == "P0" {
				p0 = c
			}
		}
		// A join step of J1 holds its lock (e.g. P1's delivery being decided).
		lock := joinLockKey(root, j1)
		if err := rdb.Set(ctx, lock, "999999", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		valid := true
		children := reactor.Children(o.Step("P0"), false, true, reactor.Parent{Group: p0.JoinGroupID, FirstChild: p0.FirstChild}, json.RawMessage(`{"a":1}`), t0, 0)
		for i := range children {
			if children[i].Join != nil {
				children[i].Join.Reach = reactor.JoinReach(o, o.Step("P0").OnValid)
			}
		}
		cr, err := s.Commit(ctx, p0, t0, joinstore.Commit{Status: "done", Valid: &valid, Payload: json.RawMessage(`{"a":1}`),
			Children: children, DecideJoin: true, ClaimLease: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if cr.DeliveredTo != j1 {
			t.Fatalf("delivery not left pending: %+v", cr)
		}
		if len(cr.Claims) != 0 {
			var names []string
			for _, c := range cr.Claims {
				names = append(names, c.Pid+"("+c.ResumeStep+")")
			}
			t.Errorf("commit claimed %v while its delivery to J1 (policy kill) is pending: a kill of J1 cannot abort them", names)
		}
		// The holder lets go; the join step closes J1 with kill.
		rdb.Del(ctx, lock)
		res, err := s.JoinStep(ctx, root, j1, t0, time.Minute, decider(o))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.FollowUps {
			if f.Kill {
				if _, err := s.JoinStep(ctx, root, f.Target, t0, time.Minute, func(v joinstore.JoinView) (joinstore.JoinApply, error) { return reactor.KillGroup(v) }); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, ch := range children {
			if ch.Join != nil {
				continue
			}
			p, _ := s.Process(ctx, root, ch.Iter)
			if p.Status == joinstore.StatusRunning {
				t.Errorf("%s (%s) is running although its join target was killed", p.Pid, p.ResumeStep)
			}
		}
	})
}

func joinLockKey(root joinstore.Root, target int64) string {
	return "xgr:{" + root.Owner + ":" + strconv.FormatInt(root.RootPid, 10) + "}:jl:" + strconv.FormatInt(target, 10)
}

// deepChain writes n nested join targets T1..Tn (iters 10+i): Ti is a
// waiting member (step J) of T(i-1)'s group and expects J from its own
// group; the committer (iter 5, step A, which can reach J) is the only
// member of Tn's group. It returns the committer's claim.
func deepChain(t *testing.T, rdb redis.UniversalClient, root joinstore.Root, n int) joinstore.Claim {
	ctx := context.Background()
	key := func(s string) string {
		return "xgr:{" + root.Owner + ":" + strconv.FormatInt(root.RootPid, 10) + "}:" + s
	}
	it := func(i int) string { return strconv.Itoa(10 + i) }
	pipe := rdb.Pipeline()
	pipe.HSet(ctx, key("meta"), "owner", root.Owner, "steps", 1, "live", n+1, "fence", 100, "iter", 100, "status", "running")
	for i := 1; i <= n; i++ {
		group := "0"
		if i > 1 {
			group = it(i - 1)
		}
		pipe.HSet(ctx, key("p:"+it(i)), "pid", root.Pid(int64(10+i)), "status", "waiting", "target", "1", "paused", "0",
			"joinGroupId", group, "joinFromGroupId", it(i), "expect", `["J"]`, "requireWhen", `{}`, "k", 1, "policy", "drain",
			"closed", "0", "closedAt", "", "resumeStep", "J", "nextWakeAt", 0, "resumePlain", "{}", "inbox", "{}", "fail", "{}",
			"reach", `{"J":["A","J"]}`)
		pipe.HSet(ctx, key("targets"), it(i), it(i))
		if i > 1 {
			pipe.HSet(ctx, key("g:"+group), it(i), "J")
		}
		if i%1000 == 0 {
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	now := t0.UnixMilli()
	pipe.HSet(ctx, key("p:5"), "pid", root.Pid(5), "status", "running", "lease", 5, "leaseUntil", now+60000,
		"worker", "w", "resumeStep", "A", "joinGroupId", it(n), "threadHeadPid", root.Pid(5), "parentPid", root.Pid(1),
		"reserved", "", "paused", "0")
	pipe.ZAdd(ctx, key("run"), redis.Z{Score: float64(now + 60000), Member: 5})
	pipe.HSet(ctx, key("g:"+it(n)), 5, "A")
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	return joinstore.Claim{Root: root, Iter: 5, Pid: root.Pid(5), Token: 5, JoinGroupID: it(n), GroupTarget: int64(10 + n), ResumeStep: "A"}
}

// A hostile orchestration nests joins deeply (a step that spawns itself
// under a fresh join each time, the target staying in the outer group):
// when the innermost producer ends, every level is unfulfillable in turn.
// commit_step decides the whole cascade in one script, one Lua call level
// per nested target (join_decide's d.decide recurses into the parent).
// Past Lua's call depth (LUAI_MAXCALLS 20000) the script dies with "stack
// overflow" after it has written the commit and part of the cascade (Redis
// does not roll a script back): the committer is done, its lease gone, and
// the commit reports an error. Without a live cap (MaxLive < 0, documented)
// nothing bounds the depth.
var deepN = flag.Int("review.deep", 21000, "nesting depth in TestReviewDeepCascadeIsBounded")

func TestReviewDeepCascadeIsBounded(t *testing.T) {
	// One server shows it (the cascade is within one session's slot).
	func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		s := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour, MaxLive: -1})
		root := joinstore.Root{Owner: owner, RootPid: 9100}
		n := *deepN
		c := deepChain(t, rdb, root, n)
		valid := false
		start := time.Now()
		cr, err := s.Commit(ctx, c, t0, joinstore.Commit{Status: "done", Valid: &valid, Payload: json.RawMessage(`{}`), DecideJoin: true})
		took := time.Since(start)
		t.Logf("commit over a %d-deep cascade: %v (%d joins decided in the script)", n, took, len(cr.Joins))
		p, _ := s.Process(ctx, root, 5)
		if err != nil {
			top, _ := s.Process(ctx, root, 11)
			t.Fatalf("commit failed: %v\nyet it wrote: committer status %q (lease gone), innermost target %q, outermost %q", err, p.Status, mustStatus(s, root, int64(10+n)), top.Status)
		}
		// A cascade the script leaves to join steps (its delivery left
		// pending: the innermost target's unfulfillable close reaches its
		// parent's keys, which the commit does not declare; follow-ups) is
		// run as the machine runs it.
		var queue []int64
		if cr.DeliveredTo != 0 {
			queue = append(queue, cr.DeliveredTo)
		}
		for _, j := range cr.Joins {
			for _, f := range j.FollowUps {
				queue = append(queue, f.Target)
			}
		}
		reach := func(from, to string) bool { return to == "J" && (from == "A" || from == "J") }
		steps := 0
		for len(queue) > 0 {
			target := queue[0]
			queue = queue[1:]
			res, err := s.JoinStep(ctx, root, target, t0, time.Minute, func(v joinstore.JoinView) (joinstore.JoinApply, error) {
				a, _, err := reactor.DecideJoin(v, reach)
				return a, err
			})
			if err != nil {
				t.Fatal(err)
			}
			steps++
			for _, f := range res.FollowUps {
				queue = append(queue, f.Target)
			}
		}
		t.Logf("%d join steps after the commit", steps)
		if top, _ := s.Process(ctx, root, 11); top.Status != joinstore.StatusAborted {
			t.Fatalf("outermost target %q", top.Status)
		}
	}(t, testenv.StartRedis(t).Client())
}

func mustStatus(s *joinstore.Store, root joinstore.Root, it int64) joinstore.ProcStatus {
	p, _ := s.Process(context.Background(), root, it)
	return p.Status
}

// Redis Cluster routes and checks only the keys a script declares (KEYS):
// an undeclared key of the session's hash tag works until its slot
// migrates, then the script fails after its earlier writes (source node) or
// reads nil (importing node). Every Lua script of every package (each
// */lua directory of the module) must take the keys it reaches from KEYS:
// a key argument of redis.call is KEYS[...], a lookup through the guarded
// declared set (K.key / K.has, lib/declared.lua), or a variable not built
// by concatenation; and no script derives a name from a declared key or a
// prefix (string.sub(KEYS ...), KEYS[...] .., a variable named prefix).
// There are no exceptions.
func TestScriptsDeclareTheirKeys(t *testing.T) {
	var files []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".lua") && strings.Contains(filepath.ToSlash(path), "/lua/") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("found %d Lua scripts: is the walk wrong?", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(filepath.ToSlash(f), "../")
		for _, bad := range undeclaredKeyUses(string(b)) {
			t.Errorf("%s:%d builds a key name instead of taking it from KEYS: %s", rel, bad.line, bad.code)
		}
	}
}

type luaFinding struct {
	line int
	code string
}

var (
	luaCall     = regexp.MustCompile(`redis\.p?call\(`)
	luaKeysArg  = regexp.MustCompile(`^KEYS\[[^\]]+\]$`)
	luaIdent    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	luaGuarded  = regexp.MustCompile(`^K\.(key|has)\(`)
	luaDerived  = regexp.MustCompile(`string\.sub\(\s*KEYS|KEYS\[[^\]]*\]\s*\.\.|\.\.\s*KEYS\[|\bprefix\b`)
	luaNoKeyCmd = map[string]bool{"TIME": true, "PING": true}
)

// undeclaredKeyUses finds the lines of a script (comments dropped) that
// reach a key not taken from KEYS.
func undeclaredKeyUses(src string) []luaFinding {
	lines := strings.Split(src, "\n")
	code := make([]string, len(lines))
	for i, l := range lines {
		c, _, _ := strings.Cut(l, "--")
		code[i] = c
	}
	// assigned: per identifier, the right-hand sides assigned to it.
	assigned := map[string][]string{}
	for _, c := range code {
		lhs, rhs, ok := strings.Cut(c, "=")
		if !ok || strings.HasPrefix(rhs, "=") || strings.HasSuffix(lhs, "~") || strings.HasSuffix(lhs, "<") || strings.HasSuffix(lhs, ">") || strings.HasSuffix(lhs, "=") {
			continue
		}
		lhs = strings.TrimPrefix(strings.TrimSpace(lhs), "local ")
		for _, id := range strings.Split(lhs, ",") {
			id = strings.TrimSpace(id)
			if luaIdent.MatchString(id) {
				assigned[id] = append(assigned[id], rhs)
			}
		}
	}
	built := func(expr string) bool {
		return strings.Contains(stripGuarded(expr), "..") || strings.Contains(expr, "string.sub(")
	}
	var out []luaFinding
	for i, c := range code {
		if luaDerived.MatchString(c) {
			out = append(out, luaFinding{i + 1, strings.TrimSpace(c)})
			continue
		}
		for _, loc := range luaCall.FindAllStringIndex(c, -1) {
			args := luaArgs(c[loc[1]:])
			if len(args) < 2 {
				continue
			}
			if luaNoKeyCmd[strings.ToUpper(strings.Trim(args[0], `"' `))] {
				continue
			}
			key := strings.TrimSpace(args[1])
			ok := luaKeysArg.MatchString(key) || luaGuarded.MatchString(key)
			if !ok && luaIdent.MatchString(key) {
				ok = true
				for _, rhs := range assigned[key] {
					if built(rhs) {
						ok = false
					}
				}
			}
			if !ok {
				out = append(out, luaFinding{i + 1, strings.TrimSpace(c)})
			}
		}
	}
	return out
}

// luaArgs splits the arguments of a call whose text starts after its "(",
// at top-level commas, up to the closing ")" (or the line's end).
func luaArgs(s string) []string {
	var out []string
	depth, start, quote := 0, 0, byte(0)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == '\\' {
				i++
			} else if ch == quote {
				quote = 0
			}
		case ch == '"' || ch == '\'':
			quote = ch
		case ch == '(' || ch == '{' || ch == '[':
			depth++
		case ch == ')' || ch == '}' || ch == ']':
			if depth == 0 {
				return append(out, s[start:i])
			}
			depth--
		case ch == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// stripGuarded drops the arguments of the declared-set lookups (K.key(...),
// K.has(...)) from expr: a name looked up there is checked, not reached.
func stripGuarded(expr string) string {
	for {
		i := strings.Index(expr, "K.key(")
		if j := strings.Index(expr, "K.has("); j >= 0 && (i < 0 || j < i) {
			i = j
		}
		if i < 0 {
			return expr
		}
		args := luaArgs(expr[i+6:])
		n := 0
		for _, a := range args {
			n += len(a) + 1
		}
		expr = expr[:i] + "K.lookup" + expr[min(i+6+n, len(expr)):]
	}
}

var pendingN = flag.Int("review.pending", 1000, "pending deliveries (and live members) in TestReviewManyPendingDecideBounded")

// A join step's holder crashed (its lock lasts until it expires) while many
// members of a join group finished: their deliveries queue up, canonical.
// The first commit after the lock expired decides all of them in its
// script. Here the join (k=1) expects A or one of B1..B15; the group has n
// live members running W (W can reach A, nothing can reach a B: their
// producers failed), and n pending deliveries from W (not expected). For
// every delivery join_decide decides, and for every missing B it scans all
// live members and every later pending delivery: O(F * n^2) inside Redis,
// after the commit has written (the script can no longer be killed), while
// every other session on the server waits. (The Go join step does the same
// work outside Redis.)
func TestReviewManyPendingDecideBounded(t *testing.T) {
	took := commitBacklog(t, testenv.StartRedis(t).Client(), *pendingN)
	t.Logf("one commit deciding %d pending deliveries over %d live members: %v", *pendingN+1, *pendingN, took)
}

// BenchmarkCommitDecidesBacklog: one commit deciding a backlog of pending
// deliveries (as above) in its script; ns/op is that commit's round trip.
func BenchmarkCommitDecidesBacklog(b *testing.B) {
	rdb := testenv.StartRedis(b).Client()
	for _, n := range []int{100, 1000, 5000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				rdb.FlushAll(context.Background())
				total += commitBacklog(b, rdb, n)
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/commit")
		})
	}
}

// commitBacklog sets up the backlog and times the one commit that decides it.
func commitBacklog(t testing.TB, rdb redis.UniversalClient, n int) time.Duration {
	t.Helper()
	{
		ctx := context.Background()
		s := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
		root := joinstore.Root{Owner: owner, RootPid: 9200}
		key := func(x string) string { return joinstore.KeyOf(root, x) }
		from := []string{"A"}
		reach := map[string][]string{"A": {"W"}}
		for i := 1; i <= 15; i++ {
			b := "B" + strconv.Itoa(i)
			from = append(from, b)
			reach[b] = []string{}
		}
		fromJSON, _ := json.Marshal(from)
		reachJSON, _ := json.Marshal(reach)
		now := t0.UnixMilli()
		pipe := rdb.Pipeline()
		pipe.HSet(ctx, key("meta"), "owner", root.Owner, "steps", 1, "live", n+2, "fence", 100, "iter", 100000, "status", "running")
		pipe.HSet(ctx, key("p:2"), "pid", root.Pid(2), "status", "waiting", "target", "1", "paused", "0", "joinGroupId", "0",
			"joinFromGroupId", "2", "expect", string(fromJSON), "requireWhen", "{}", "k", 1, "policy", "drain", "closed", "0",
			"closedAt", "", "resumeStep", "J", "nextWakeAt", 0, "resumePlain", "{}", "inbox", "{}", "fail", "{}", "reach", string(reachJSON))
		pipe.HSet(ctx, key("targets"), "2", "2")
		for i := 0; i < n; i++ {
			it := int64(10000 + i)
			pipe.HSet(ctx, key("p:"+strconv.FormatInt(it, 10)), "pid", root.Pid(it), "status", "waiting", "resumeStep", "W", "joinGroupId", "2", "paused", "0")
			pipe.HSet(ctx, key("g:2"), it, "W")
			e, _ := json.Marshal(map[string]any{"pid": root.Pid(int64(50000 + i)), "from": "W", "aborted": false, "valid": true, "payload": "{}", "canon": true})
			pipe.RPush(ctx, key("jq:2"), string(e))
		}
		pipe.HSet(ctx, key("p:5"), "pid", root.Pid(5), "status", "running", "lease", 5, "leaseUntil", now+60000,
			"worker", "w", "resumeStep", "W", "joinGroupId", "2", "threadHeadPid", root.Pid(5), "parentPid", root.Pid(1), "reserved", "", "paused", "0")
		pipe.ZAdd(ctx, key("run"), redis.Z{Score: float64(now + 60000), Member: 5})
		pipe.HSet(ctx, key("g:2"), 5, "W")
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		valid := true
		start := time.Now()
		cr, err := s.Commit(ctx, joinstore.Claim{Root: root, Iter: 5, Pid: root.Pid(5), Token: 5, JoinGroupID: "2", GroupTarget: 2, ResumeStep: "W"},
			t0, joinstore.Commit{Status: "done", Valid: &valid, Payload: json.RawMessage(`{"x":1}`), DecideJoin: true})
		took := time.Since(start)
		if err != nil || len(cr.Joins) != 1 || cr.Joins[0].Verdict != "open" || len(cr.Joins[0].Applied) != n+1 {
			t.Fatalf("commit: %+v %v", cr, err)
		}
		return took
	}
}

// The declared-set guard (lib/declared.lua): a name among KEYS is found,
// any other is an error, raised before the script writes anything.
func TestDeclaredKeysGuard(t *testing.T) {
	lib, err := os.ReadFile("lua/lib/declared.lua")
	if err != nil {
		t.Fatal(err)
	}
	rdb := testenv.StartRedis(t).Client()
	ctx := context.Background()
	keys := []string{"xgr:{o:1}:meta", "xgr:{o:1}:p:7"}
	found, err := redis.NewScript(string(lib)+`
local K = declaredKeys()
return {K.key("p:7"), tostring(K.has("p:8")), K.key("meta")}`).Run(ctx, rdb, keys).StringSlice()
	if err != nil || strings.Join(found, " ") != "xgr:{o:1}:p:7 nil xgr:{o:1}:meta" {
		t.Fatalf("lookups: %v, %v", found, err)
	}
	err = redis.NewScript(string(lib)+`
local K = declaredKeys()
local k = K.key("p:8")
redis.call("SET", KEYS[1], "written")`).Run(ctx, rdb, keys).Err()
	if err == nil || !strings.Contains(err.Error(), "undeclared key p:8") {
		t.Fatalf("an undeclared name: %v, want the guard's error", err)
	}
	if n := rdb.Exists(ctx, keys[0]).Val(); n != 0 {
		t.Fatal("the script wrote before the guard stopped it")
	}
}
