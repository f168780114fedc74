package joinstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

var joinStates = flag.Int("join.states", 2000, "generated states per backend in TestInlineJoinMatchesDecideJoin")

// A commit that delivers to its group's open join target decides the join
// in its own script (Commit.DecideJoin, lua/lib/join_decide.lua); the join
// step decides it in Go otherwise (reactor.DecideJoin, applied by
// join_apply). Generated states — targets with from lists, `when`, k,
// kill or drain, inboxes and failures recorded before (written as Go and as
// the script write them), live members waiting or running (join targets
// among them, kill marks), pending deliveries, the committing process's
// outcome and payload, the children it spawns into the group, a parent
// target the target fails into, payloads with numbers beyond float64,
// escapes and keys whose order depends on bytes, a payload cap, held locks
// and records the script must leave to a join step — are written to a real
// Redis (single and a 3-master Cluster), committed through the store, and
// what the script did must equal what DecideJoin decides on the same view
// and join_apply would apply: verdicts, deliveries applied, inbox, fail,
// the merged payload byte for byte, the target promoted (due time) or
// aborted, members killed, children claimed, the parent's decision, the
// live count and follow-ups. Some commits also create a join, whose first
// decision the commit takes before its delivery's (as the join step right
// after the commit took it), failing into the group's target when it can
// never be met.
func TestInlineJoinMatchesDecideJoin(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		var roots atomic.Int64
		r := rand.New(rand.NewSource(*gateSeed))
		seen := map[string]int{}
		for i := 0; i < *joinStates; i++ {
			c := genJoinCase(r)
			run := func(c joinCase) []string {
				return runJoinCase(t, rdb, joinstore.Root{Owner: owner, RootPid: 5000 + roots.Add(1)}, c, nil)
			}
			diff := runJoinCase(t, rdb, joinstore.Root{Owner: owner, RootPid: 5000 + roots.Add(1)}, c, seen)
			if len(diff) == 0 {
				continue
			}
			small, sdiff := shrink(c, diff, run)
			shown, _ := json.MarshalIndent(small, "", "  ")
			t.Fatalf("state %d of seed %d: the script and DecideJoin differ.\nminimal state:\n%s\ndifferences:\n  %v", i, *gateSeed, shown, sdiff)
		}
		t.Logf("%d states: %v", *joinStates, seen)
		// Every kind of outcome must have come up, or the states test little.
		for _, kind := range []string{"satisfied", "unfulfillable", "open", "fallback", "deferred", "killed", "killed-inline", "claimed", "parent-decided", "merged-capped", "payload-merged",
			"created-open", "created-unfulfillable"} {
			if seen[kind] == 0 && *joinStates >= 1000 {
				t.Errorf("no generated state had outcome %q", kind)
			}
		}
	})
}

// joinSteps are the steps of generated states; "J" is the target's own.
var joinSteps = []string{"a", "b", "c", "d", "e", "f"}

// joinPayloads: exact numbers, nested values, escapes, byte order of keys,
// meta keys in a payload, text that is not in Go's encoding.
var joinPayloads = []string{
	`{}`,
	`{"x":1}`,
	`{"amount":"125000000000000000000","big":123456789012345678901234567890,"f":1.50,"e":-0.0,"g":1E+400}`,
	`{"x":2,"nested":{"z":[1,2,{"b":true,"a":null}],"a":-12.5e-7}}`,
	`{"<tag>":"a&b<c>","é":"ü","\u2028":"x","q":"say \"hi\"\\","Z":1,"a":2,"A":3,"_":4}`,
	`{"_from":"spoof","_when":"never","x":3,"y":[]}`,
	`{"k\u0000":"ctl\u0001\n\t\b\f","emoji":"😀","sur":"\ud83d\ude00","lone":"\udc00"}`,
	`{ "b" : 1 , "a" : [ 1 , 2 ] ,"x":"y" }`,
	`{"x":{"deep":{"deeper":{"v":99999999999999999999}}},"amount":"1"}`,
}

type joinFrom struct {
	Node, When int
}

type joinPiece struct {
	From, Payload int
	// Script: written as the script writes a piece (canonical payload,
	// meta appended), else as Go's join_apply does.
	Script bool
}

type joinMember struct {
	Step    int
	Running bool
	Killed  bool // a kill mark (killedAt) not yet reaped
	// Target: the member is a nested join target (closed or not), with
	// policy kill when Kill.
	Target, Kill bool
}

type joinDelivery struct {
	Step, Valid, Payload int
	Aborted              bool
	NotCanon             bool
}

type joinCase struct {
	From     []joinFrom
	K        int
	Kill     bool
	Inbox    []joinPiece
	Fail     []int
	Members  []joinMember
	Pending  []joinDelivery
	Step     int
	Aborted  bool
	Valid    int
	Payload  int
	Children []joinChild
	// Reach lists pairs step*6+node: step can reach node.
	Reach     []int
	Paused    bool
	WakeLater bool
	SmallCap  bool
	Claim     bool
	// Parent: 0 none, 1 an open parent target, 2 a closed one.
	Parent        int
	ParentKill    bool
	ParentK       int
	ParentMembers []joinMember
	// Fallbacks: a join lock held, a target without reachability.
	Locked, NoReach bool
	// Creates: the committer's branch also creates a join (target 50,
	// step "K", in the committer's group, fed by the producers 51.. in the
	// fresh group "50"): the commit takes its first decision.
	Creates *joinCreate
}

type joinCreate struct {
	From      []joinFrom
	K         int
	Kill      bool
	Producers []joinChild
}

const jCreated = 50

type joinChild struct {
	Step  int
	Later bool
}

func genJoinCase(r *rand.Rand) joinCase {
	var c joinCase
	nodes := r.Perm(len(joinSteps))[:1+r.Intn(4)]
	for _, n := range nodes {
		c.From = append(c.From, joinFrom{Node: n, When: r.Intn(3)})
	}
	c.K = 1 + r.Intn(len(c.From))
	c.Kill = r.Intn(2) == 0
	for i := range c.From {
		switch r.Intn(4) {
		case 0:
			c.Inbox = append(c.Inbox, joinPiece{From: i, Payload: r.Intn(len(joinPayloads)), Script: r.Intn(2) == 0})
		case 1:
			c.Fail = append(c.Fail, i)
		}
	}
	for i := r.Intn(4); i > 0; i-- {
		c.Members = append(c.Members, joinMember{Step: r.Intn(len(joinSteps)), Running: r.Intn(3) == 0, Killed: r.Intn(6) == 0,
			Target: r.Intn(5) == 0, Kill: r.Intn(2) == 0})
	}
	for i := r.Intn(4); i > 0; i-- {
		c.Pending = append(c.Pending, joinDelivery{Step: r.Intn(len(joinSteps)), Valid: r.Intn(3), Payload: r.Intn(len(joinPayloads)),
			Aborted: r.Intn(4) == 0, NotCanon: r.Intn(40) == 0})
	}
	c.Step, c.Aborted, c.Valid, c.Payload = r.Intn(len(joinSteps)), r.Intn(6) == 0, r.Intn(3), r.Intn(len(joinPayloads))
	if r.Intn(2) == 0 {
		// mostly the steps of the join's producers
		c.Step = c.From[r.Intn(len(c.From))].Node
	}
	for i := r.Intn(3); i > 0; i-- {
		c.Children = append(c.Children, joinChild{Step: r.Intn(len(joinSteps)), Later: r.Intn(4) == 0})
	}
	for i := r.Intn(8); i > 0; i-- {
		c.Reach = append(c.Reach, r.Intn(len(joinSteps)*len(joinSteps)))
	}
	c.Paused, c.WakeLater, c.SmallCap, c.Claim = r.Intn(6) == 0, r.Intn(4) == 0, r.Intn(10) == 0, r.Intn(4) != 0
	c.Parent = pick(r, 6, 3, 1)
	if c.Parent > 0 {
		c.ParentKill, c.ParentK = r.Intn(2) == 0, 1+r.Intn(2)
		for i := r.Intn(3); i > 0; i-- {
			c.ParentMembers = append(c.ParentMembers, joinMember{Step: r.Intn(len(joinSteps)), Running: r.Intn(3) == 0})
		}
	}
	c.Locked, c.NoReach = r.Intn(40) == 0, r.Intn(40) == 0
	if r.Intn(3) == 0 {
		j := &joinCreate{Kill: r.Intn(2) == 0}
		for _, n := range r.Perm(len(joinSteps))[:1+r.Intn(3)] {
			j.From = append(j.From, joinFrom{Node: n, When: r.Intn(3)})
		}
		j.K = 1 + r.Intn(len(j.From))
		for i := r.Intn(4); i > 0; i-- {
			j.Producers = append(j.Producers, joinChild{Step: r.Intn(len(joinSteps)), Later: r.Intn(4) == 0})
		}
		c.Creates = j
	}
	return c
}

const (
	jTarget    = 2
	jParent    = 3
	jCommitter = 10
	jChild0    = 40
	jNow       = 1_800_000_000_000
)

func (c joinCase) reach() func(from, to string) bool {
	set := map[[2]string]bool{}
	for _, p := range c.Reach {
		set[[2]string{joinSteps[p/len(joinSteps)], joinSteps[p%len(joinSteps)]}] = true
	}
	return func(from, to string) bool { return set[[2]string{from, to}] }
}

// reachOf is the reachability a target's record keeps for nodes under
// relation reach.
func reachOf(nodes []string, reach func(from, to string) bool) string {
	m := map[string][]string{}
	for _, n := range nodes {
		list := []string{}
		for _, s := range append(append([]string{}, joinSteps...), "J") {
			if reach(s, n) {
				list = append(list, s)
			}
		}
		m[n] = list
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func canon(t *testing.T, raw string) string {
	var m map[string]any
	if err := unmarshalNumber([]byte(raw), &m); err != nil {
		t.Fatalf("payload %s: %v", raw, err)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func unmarshalNumber(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

func validOf(v int) *bool {
	if v == 0 {
		return nil
	}
	b := v == 2
	return &b
}

// joinOutcome is what a commit with a join decision did.
type joinOutcome struct {
	Fallback  bool
	Joins     []string
	Inbox     map[string]map[string]any
	Fail      map[string]string
	Merged    string
	Target    string
	Parent    string
	Statuses  map[int64]string
	Claimed   []int64
	Live      int64
	Tally     int64
	FollowUps []string
}

// runJoinCase runs one state; seen, when not nil, counts its outcomes.
func runJoinCase(t *testing.T, rdb redis.UniversalClient, root joinstore.Root, c joinCase, seen map[string]int) []string {
	ctx := context.Background()
	now := time.UnixMilli(jNow)
	cfg := joinstore.Config{SessionTTL: time.Hour, MaxLive: -1, MaxSteps: -1}
	if c.SmallCap {
		cfg.MaxPayloadBytes = 60
	}
	store := joinstore.New(rdb, cfg)
	reach := c.reach()
	key := func(s string) string { return joinstore.KeyOf(root, s) }
	pkey := func(it int64) string { return key("p:" + strconv.FormatInt(it, 10)) }
	if len(c.From) == 0 {
		return nil
	}
	k := min(max(c.K, 1), len(c.From))
	var nodes []string
	expect, when := []string{}, map[string]string{}
	for _, f := range c.From {
		n := joinSteps[f.Node%len(joinSteps)]
		if _, dup := when[n]; dup {
			return nil
		}
		nodes = append(nodes, n)
		expect = append(expect, n)
		when[n] = []string{"any", "valid", "invalid"}[f.When%3]
	}
	// The inbox and failures recorded before.
	type piece = map[string]any
	goInbox := map[string]piece{}
	var scriptParts []string
	fail := map[string]string{}
	for _, p := range c.Inbox {
		n := nodes[p.From%len(nodes)]
		if goInbox[n] != nil {
			continue
		}
		raw := joinPayloads[p.Payload%len(joinPayloads)]
		var m piece
		_ = unmarshalNumber([]byte(raw), &m)
		m["_from"], m["_when"] = n, "valid"
		goInbox[n] = m
		pc := canon(t, raw)
		meta := fmt.Sprintf(`"_from":%q,"_when":"valid"}`, n)
		if pc == "{}" {
			pc = "{" + meta
		} else {
			pc = pc[:len(pc)-1] + "," + meta
		}
		if p.Script {
			scriptParts = append(scriptParts, fmt.Sprintf("%q:%s", n, pc))
		}
	}
	for _, i := range c.Fail {
		n := nodes[i%len(nodes)]
		if goInbox[n] == nil {
			fail[n] = "aborted"
		}
	}
	inboxText, _ := json.Marshal(goInbox)
	if len(scriptParts) == len(goInbox) && len(scriptParts) > 0 {
		// every piece as the script writes them
		inboxText = []byte("{" + joinStrings(scriptParts) + "}")
	}
	failText, _ := json.Marshal(fail)

	targetGroup := "0"
	if c.Parent > 0 {
		targetGroup = strconv.Itoa(jParent)
	}
	wake := int64(jNow - 5)
	if c.WakeLater {
		wake = jNow + 7000
	}
	statuses := map[int64]string{}
	members := []int64{jCommitter}
	live := int64(2) // the committer and the target
	pipe := rdb.Pipeline()
	pipe.HSet(ctx, key("meta"), "owner", root.Owner, "steps", 1, "live", 0, "fence", 100, "iter", 100, "status", "running")
	tf := []any{"pid", root.Pid(jTarget), "status", "waiting", "target", "1", "paused", flag01(c.Paused), "joinGroupId", targetGroup,
		"joinFromGroupId", strconv.Itoa(jTarget), "expect", mustJSON(expect), "requireWhen", mustJSON(when), "k", k,
		"policy", policyOf(c.Kill), "closed", "0", "closedAt", "", "resumeStep", "J", "nextWakeAt", wake, "resumePlain", "{}",
		"inbox", string(inboxText), "fail", string(failText)}
	if !c.NoReach {
		tf = append(tf, "reach", reachOf(nodes, reach))
	}
	pipe.HSet(ctx, pkey(jTarget), tf...)
	statuses[jTarget] = "waiting"
	pipe.HSet(ctx, key("targets"), strconv.Itoa(jTarget), jTarget)
	pipe.HSet(ctx, pkey(jCommitter), "pid", root.Pid(jCommitter), "status", "running", "lease", 5, "leaseUntil", jNow+60000,
		"worker", "w", "resumeStep", joinSteps[c.Step%len(joinSteps)], "joinGroupId", strconv.Itoa(jTarget), "threadHeadPid", root.Pid(jCommitter),
		"parentPid", root.Pid(1), "reserved", fmt.Sprintf("%d:%d", jChild0, 30), "paused", "0")
	pipe.ZAdd(ctx, key("run"), redis.Z{Score: jNow + 60000, Member: jCommitter})
	pipe.HSet(ctx, key("g:"+strconv.Itoa(jTarget)), jCommitter, joinSteps[c.Step%len(joinSteps)])
	writeMember := func(it int64, m joinMember, group string) {
		st := "waiting"
		if m.Running {
			st = "running"
		}
		step := joinSteps[m.Step%len(joinSteps)]
		f := []any{"pid", root.Pid(it), "status", st, "resumeStep", step, "joinGroupId", group, "paused", "0", "nextWakeAt", jNow + 100000}
		if m.Killed {
			f = append(f, "killedAt", jNow-1)
		}
		if m.Target {
			f = append(f, "target", "1", "closed", "0", "policy", policyOf(m.Kill), "expect", `["a"]`, "requireWhen", `{}`, "k", 1,
				"joinFromGroupId", strconv.FormatInt(it, 10), "inbox", "{}", "fail", "{}")
			pipe.HSet(ctx, key("targets"), strconv.FormatInt(it, 10), it)
			pipe.HSet(ctx, key("g:"+strconv.FormatInt(it, 10)), 900+it, "a")
			pipe.HSet(ctx, pkey(900+it), "pid", root.Pid(900+it), "status", "waiting", "resumeStep", "a", "joinGroupId", strconv.FormatInt(it, 10))
			statuses[900+it] = "waiting"
			live++
		}
		if !m.Running && !m.Target {
			pipe.ZAdd(ctx, key("due"), redis.Z{Score: jNow + 100000, Member: it})
		}
		pipe.HSet(ctx, pkey(it), f...)
		pipe.HSet(ctx, key("g:"+group), it, step)
		statuses[it] = st
		live++
	}
	for i, m := range c.Members {
		it := int64(20 + i)
		writeMember(it, m, strconv.Itoa(jTarget))
		members = append(members, it)
	}
	parentReach := func(from, to string) bool { return reach(from, to) || from == "J" && to == "J" }
	if c.Parent > 0 {
		closed := "0"
		if c.Parent == 2 {
			closed = "1"
		}
		pnodes := []string{"J", "f"}
		pipe.HSet(ctx, pkey(jParent), "pid", root.Pid(jParent), "status", "waiting", "target", "1", "paused", "0", "joinGroupId", "0",
			"joinFromGroupId", strconv.Itoa(jParent), "expect", mustJSON(pnodes), "requireWhen", `{"J":"any","f":"valid"}`,
			"k", min(max(c.ParentK, 1), 2), "policy", policyOf(c.ParentKill), "closed", closed, "resumeStep", "P", "nextWakeAt", jNow,
			"resumePlain", "{}", "inbox", "{}", "fail", "{}", "reach", reachOf(pnodes, parentReach))
		statuses[jParent] = "waiting"
		live++
		pipe.HSet(ctx, key("targets"), strconv.Itoa(jParent), jParent)
		pipe.HSet(ctx, key("g:"+strconv.Itoa(jParent)), jTarget, "J")
		for i, m := range c.ParentMembers {
			writeMember(int64(60+i), m, strconv.Itoa(jParent))
		}
	}
	// The pending deliveries.
	var pending []joinstore.Delivery
	notCanon := false
	for i, d := range c.Pending {
		pid := root.Pid(int64(80 + i))
		step := joinSteps[d.Step%len(joinSteps)]
		raw := joinPayloads[d.Payload%len(joinPayloads)]
		e := map[string]any{"pid": pid, "from": step, "aborted": d.Aborted, "valid": validOf(d.Valid), "payload": canon(t, raw)}
		if d.NotCanon {
			e["payload"] = raw
			notCanon = notCanon || !d.Aborted
		} else {
			e["canon"] = true
		}
		b, _ := json.Marshal(e)
		pipe.RPush(ctx, key("jq:"+strconv.Itoa(jTarget)), string(b))
		pending = append(pending, joinstore.Delivery{Pid: pid, From: step, Aborted: d.Aborted, Valid: validOf(d.Valid), Payload: json.RawMessage(raw)})
	}
	if len(c.Pending) > 0 {
		pipe.ZAdd(ctx, key("jpend"), redis.Z{Score: jNow - 10, Member: jTarget})
	}
	if c.Locked {
		pipe.Set(ctx, key("jl:"+strconv.Itoa(jTarget)), "77", time.Minute)
	}
	pipe.HSet(ctx, key("meta"), "live", live)
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	statuses[jCommitter] = "running"

	// The commit.
	payload := json.RawMessage(joinPayloads[c.Payload%len(joinPayloads)])
	cm := joinstore.Commit{Status: "done", Valid: validOf(c.Valid), Digest: "d", Worker: "w", Payload: payload, DecideJoin: true}
	if c.Aborted {
		cm.Status, cm.Valid = "aborted", nil
	}
	if c.Claim {
		cm.ClaimLease = time.Minute
	}
	for i, ch := range c.Children {
		w := now
		if ch.Later {
			w = now.Add(time.Second)
		}
		cm.Children = append(cm.Children, joinstore.Child{Iter: int64(jChild0 + i), ResumeStep: joinSteps[ch.Step%len(joinSteps)], NextWakeAt: w,
			ResumePlain: payload, JoinGroupID: strconv.Itoa(jTarget)})
	}
	var created []reactor.Member
	var createdState reactor.JoinState
	if c.Creates != nil && len(c.Creates.From) == 0 {
		c.Creates = nil // a join has at least one from node
	}
	if j := c.Creates; j != nil {
		spec := &joinstore.JoinSpec{FromGroup: strconv.Itoa(jCreated), K: 1, Reach: map[string][]string{}}
		if j.Kill {
			spec.Policy = registry.PolicyKill
		}
		for _, f := range j.From {
			n := joinSteps[f.Node%len(joinSteps)]
			if spec.Reach[n] != nil {
				continue
			}
			spec.From = append(spec.From, registry.From{Node: n, When: []registry.When{registry.WhenAny, registry.WhenValid, registry.WhenInvalid}[f.When%3]})
			list := []string{}
			for _, st := range append(append([]string{}, joinSteps...), "J", "K") {
				if reach(st, n) {
					list = append(list, st)
				}
			}
			spec.Reach[n] = list
		}
		spec.K = min(max(j.K, 1), len(spec.From))
		cm.Children = append(cm.Children, joinstore.Child{Iter: jCreated, ResumeStep: "K", NextWakeAt: now, ResumePlain: json.RawMessage("{}"),
			JoinGroupID: strconv.Itoa(jTarget), Join: spec})
		for i, ch := range j.Producers {
			w := now
			if ch.Later {
				w = now.Add(time.Second)
			}
			it := int64(jCreated + 1 + i)
			step := joinSteps[ch.Step%len(joinSteps)]
			cm.Children = append(cm.Children, joinstore.Child{Iter: it, ResumeStep: step, NextWakeAt: w, ResumePlain: payload, JoinGroupID: strconv.Itoa(jCreated)})
			created = append(created, reactor.Member{Pid: root.Pid(it), Step: step})
		}
		createdState = reactor.JoinState{From: spec.From, K: spec.K, Policy: spec.Policy}
	}
	before, err := store.Process(ctx, root, jTarget)
	if err != nil {
		t.Fatal(err)
	}
	var parentBefore joinstore.Process
	if c.Parent > 0 {
		if parentBefore, err = store.Process(ctx, root, jParent); err != nil {
			t.Fatal(err)
		}
	}
	res, err := store.Commit(ctx, joinstore.Claim{Root: root, Iter: jCommitter, Pid: root.Pid(jCommitter), Token: 5,
		JoinGroupID: strconv.Itoa(jTarget), GroupTarget: jTarget}, now, cm)
	if err != nil {
		t.Fatalf("commit: %v", err)
	}

	// The reference: DecideJoin on the view a join step would read, applied
	// as join_apply applies it.
	want := joinOutcome{Statuses: map[int64]string{}, Live: live - 1 + int64(len(c.Children))}
	for it, st := range statuses {
		want.Statuses[it] = st
	}
	committed := "done"
	if c.Aborted {
		committed = "aborted"
	}
	want.Statuses[jCommitter] = committed
	view := joinstore.JoinView{Root: root, Target: jTarget, Proc: before, Members: map[int64]string{}}
	for i, m := range c.Members {
		view.Members[int64(20+i)] = joinSteps[m.Step%len(joinSteps)]
	}
	for i, ch := range c.Children {
		view.Members[int64(jChild0+i)] = joinSteps[ch.Step%len(joinSteps)]
		want.Statuses[int64(jChild0+i)] = "waiting"
	}
	own := joinstore.Delivery{Pid: root.Pid(jCommitter), From: joinSteps[c.Step%len(joinSteps)], Aborted: c.Aborted, Valid: cm.Valid, Payload: payload}
	view.Pending = append(append([]joinstore.Delivery{}, pending...), own)
	// legacy: the target's record or lock leaves the decision to a join
	// step; deferred (below): the decision would reach keys the commit does
	// not declare (a close with kill while the group has members the commit
	// did not create, an unfulfillable close of a target whose group has a
	// target): the commit leaves it to a join step, which decides as
	// DecideJoin does — the test runs that join step (and the parent's) as
	// the machine does and compares the outcome with the same reference.
	legacy := c.Locked || c.NoReach || notCanon
	want.Fallback = legacy
	deferred := false
	createdGated := false
	claimable := func(i int) bool { return c.Claim && !c.Children[i].Later }
	// The created join's first decision comes first (its join step ran
	// right after the commit): no delivery yet, its producers live.
	createdFailed := false
	if c.Creates != nil {
		want.Live += 1 + int64(len(created))
		want.Statuses[jCreated] = "waiting"
		for _, m := range created {
			_, it, _ := joinstore.ParsePid(m.Pid)
			want.Statuses[it] = "waiting"
		}
		d := reactor.Decide(createdState, created, reach)
		var killed []int64
		if d.Verdict == reactor.Unfulfillable {
			createdFailed = true
			want.Statuses[jCreated] = "aborted"
			want.Live--
			want.Tally++
			for _, pid := range d.Kill {
				_, it, _ := joinstore.ParsePid(pid)
				want.Statuses[it] = "aborted"
				killed = append(killed, it)
				want.Live--
			}
			failure := joinstore.Delivery{Pid: root.Pid(jCreated), From: "K", Aborted: true}
			view.Pending = append(view.Pending, failure)
			if legacy {
				want.FollowUps = append(want.FollowUps, strconv.Itoa(jTarget))
			}
		} else {
			view.Members[jCreated] = "K"
		}
		want.Joins = append(want.Joins, joinLine(jCreated, d.Verdict.String(), nil)+fmt.Sprintf(" killed=%v", killed))
	}
	if legacy {
		want.Inbox, want.Fail = decodeInbox(t, inboxText), fail
		want.Target = "waiting open"
		if c.Parent > 0 {
			want.Parent = targetState(parentBefore.Join.Closed, "waiting", "")
		}
	} else {
		a, out, err := reactor.DecideJoin(view, reach)
		if err != nil {
			t.Fatalf("DecideJoin: %v", err)
		}
		verdict, reason := a.Verdict, "unfulfillable"
		if verdict == joinstore.VerdictSatisfied && len(a.Merged) > cfg.MaxPayloadBytes && cfg.MaxPayloadBytes > 0 {
			verdict = joinstore.VerdictUnfulfillable
			reason = fmt.Sprintf("the join's merged payload is %d bytes, at most %d are allowed (XGR_MAX_PAYLOAD)", len(a.Merged), cfg.MaxPayloadBytes)
		}
		want.Joins = append(want.Joins, joinLine(jTarget, verdict, out.Deliveries))
		i0 := len(want.Joins) - 1
		if verdict != joinstore.VerdictOpen && (c.Kill && len(c.Members) > 0 || verdict == joinstore.VerdictUnfulfillable && c.Parent > 0) {
			deferred, want.Fallback = true, true
			if createdFailed {
				// the created join's failure, pushed after the delivery
				want.FollowUps = append(want.FollowUps, strconv.Itoa(jTarget))
			}
		}
		want.Inbox, want.Fail = decodeInbox(t, a.Inbox), decodeFail(t, a.Fail)
		var killed []int64
		switch verdict {
		case joinstore.VerdictSatisfied:
			want.Merged = string(a.Merged)
			due := ""
			if !c.Paused {
				due = strconv.FormatInt(max(wake, jNow), 10)
			}
			want.Target = "waiting closed due=" + due
		case joinstore.VerdictUnfulfillable:
			want.Target = "aborted closed " + reason
			want.Statuses[jTarget] = "aborted"
			want.Live--
			want.Tally++
		default:
			want.Target = "waiting open"
		}
		if verdict != joinstore.VerdictOpen && c.Kill {
			for _, it := range a.Kill {
				if want.Statuses[it] == "waiting" {
					want.Statuses[it] = "aborted"
					killed = append(killed, it)
					want.Live--
					if i := int(it) - 20; i >= 0 && i < len(c.Members) && c.Members[i].Target && c.Members[i].Kill {
						want.FollowUps = append(want.FollowUps, fmt.Sprintf("%d kill", it))
					}
					if it == jCreated && c.Creates.Kill {
						want.FollowUps = append(want.FollowUps, fmt.Sprintf("%d kill", it))
						createdGated = true
					}
				}
			}
		}
		want.Joins[i0] += fmt.Sprintf(" killed=%v", killed)
		if c.Parent > 0 {
			want.Parent = targetState(parentBefore.Join.Closed, "waiting", "")
		}
		if verdict == joinstore.VerdictUnfulfillable && c.Parent == 1 {
			pv := joinstore.JoinView{Root: root, Target: jParent, Proc: parentBefore, Members: map[int64]string{},
				Pending: []joinstore.Delivery{{Pid: root.Pid(jTarget), From: "J", Aborted: true}}}
			for i, m := range c.ParentMembers {
				pv.Members[int64(60+i)] = joinSteps[m.Step%len(joinSteps)]
			}
			pa, pout, err := reactor.DecideJoin(pv, parentReach)
			if err != nil {
				t.Fatalf("DecideJoin (parent): %v", err)
			}
			var pkilled []int64
			st, closed := "waiting", pa.Verdict != joinstore.VerdictOpen
			extra := ""
			switch pa.Verdict {
			case joinstore.VerdictUnfulfillable:
				st, extra = "aborted", "unfulfillable"
				want.Statuses[jParent] = "aborted"
				want.Live--
				want.Tally++
			case joinstore.VerdictSatisfied:
				extra = "due=" + strconv.FormatInt(jNow, 10)
			}
			if closed && c.ParentKill {
				for _, it := range pa.Kill {
					if want.Statuses[it] == "waiting" {
						want.Statuses[it] = "aborted"
						pkilled = append(pkilled, it)
						want.Live--
					}
				}
			}
			want.Parent = targetState(closed, st, extra)
			want.Joins = append(want.Joins, joinLine(jParent, pa.Verdict, pout.Deliveries)+fmt.Sprintf(" killed=%v", pkilled))
		}
	}
	if c.Creates != nil && !createdGated {
		for i, ch := range c.Creates.Producers {
			it := int64(jCreated + 1 + i)
			if !want.Fallback && c.Claim && !ch.Later && want.Statuses[it] == "waiting" && !(createdFailed && c.Creates.Kill) {
				want.Statuses[it] = "running"
				want.Claimed = append(want.Claimed, it)
			}
		}
	}
	for i := range c.Children {
		if !want.Fallback && want.Statuses[int64(jChild0+i)] == "waiting" && claimable(i) {
			want.Statuses[int64(jChild0+i)] = "running"
			want.Claimed = append(want.Claimed, int64(jChild0+i))
		}
	}

	sort.Slice(want.Claimed, func(i, j int) bool { return want.Claimed[i] < want.Claimed[j] })

	// What the script did.
	got := joinOutcome{Statuses: map[int64]string{}, Live: res.Live}
	got.Fallback = res.DeliveredTo == jTarget
	joins := res.Joins
	if got.Fallback && !legacy {
		// The join step the commit left, as the machine runs it, and the
		// parent's that it fails into.
		step := func(target int64, reach func(from, to string) bool) {
			var applied []reactor.Applied
			jr, err := store.JoinStep(ctx, root, target, now, time.Minute, func(v joinstore.JoinView) (joinstore.JoinApply, error) {
				a, out, err := reactor.DecideJoin(v, reach)
				applied = out.Deliveries
				return a, err
			})
			if err != nil {
				t.Fatalf("join step %d: %v", target, err)
			}
			got.Live = jr.Live
			d := joinstore.JoinDecided{Target: target, Verdict: jr.Verdicts[len(jr.Verdicts)-1], Killed: jr.Killed}
			for _, a := range applied {
				d.Applied = append(d.Applied, joinstore.AppliedDelivery{Pid: a.Pid, From: a.From, Result: a.Result.String()})
			}
			var parent bool
			for _, f := range jr.FollowUps {
				if f.Target == jParent && !f.Kill {
					parent = true
				} else {
					d.FollowUps = append(d.FollowUps, f)
				}
			}
			joins = append(joins, d)
			if parent {
				jr, err := store.JoinStep(ctx, root, jParent, now, time.Minute, func(v joinstore.JoinView) (joinstore.JoinApply, error) {
					a, out, err := reactor.DecideJoin(v, parentReach)
					applied = out.Deliveries
					return a, err
				})
				if err != nil {
					t.Fatalf("join step %d: %v", jParent, err)
				}
				got.Live = jr.Live
				d := joinstore.JoinDecided{Target: jParent, Verdict: jr.Verdicts[len(jr.Verdicts)-1], Killed: jr.Killed, FollowUps: jr.FollowUps}
				for _, a := range applied {
					d.Applied = append(d.Applied, joinstore.AppliedDelivery{Pid: a.Pid, From: a.From, Result: a.Result.String()})
				}
				joins = append(joins, d)
			}
		}
		step(jTarget, reach)
	}
	for _, j := range joins {
		var ap []reactor.Applied
		for _, a := range j.Applied {
			ap = append(ap, reactor.Applied{Pid: a.Pid, From: a.From, Result: resultOf(a.Result)})
		}
		line := joinLine(j.Target, j.Verdict, ap)
		killed := append([]int64(nil), j.Killed...)
		if killed == nil {
			killed = []int64{}
		}
		got.Joins = append(got.Joins, line+fmt.Sprintf(" killed=%v", nilIfEmpty(killed)))
		for _, f := range j.FollowUps {
			s := strconv.FormatInt(f.Target, 10)
			if f.Kill {
				s += " kill"
			}
			got.FollowUps = append(got.FollowUps, s)
		}
	}
	tp, _ := rdb.HGetAll(ctx, pkey(jTarget)).Result()
	got.Inbox, got.Fail = decodeInbox(t, []byte(tp["inbox"])), decodeFail(t, []byte(tp["fail"]))
	switch {
	case tp["status"] == "aborted":
		got.Target = "aborted " + openClosed(tp["closed"]) + " " + tp["abortReason"]
	case tp["closed"] == "1":
		got.Merged = tp["resumePlain"]
		due := ""
		if s, err := rdb.ZScore(ctx, key("due"), strconv.Itoa(jTarget)).Result(); err == nil {
			due = strconv.FormatInt(int64(s), 10)
		}
		got.Target = tp["status"] + " closed due=" + due
	default:
		got.Target = tp["status"] + " " + openClosed(tp["closed"])
	}
	if c.Parent > 0 {
		pp, _ := rdb.HGetAll(ctx, pkey(jParent)).Result()
		extra := ""
		if pp["status"] == "aborted" {
			extra = pp["abortReason"]
		} else if s, err := rdb.ZScore(ctx, key("due"), strconv.Itoa(jParent)).Result(); err == nil {
			extra = "due=" + strconv.FormatInt(int64(s), 10)
		}
		got.Parent = targetState(pp["closed"] == "1", pp["status"], extra)
	}
	for it := range want.Statuses {
		st, _ := rdb.HGet(ctx, pkey(it), "status").Result()
		got.Statuses[it] = st
	}
	for _, cl := range res.Claims {
		got.Claimed = append(got.Claimed, cl.Iter)
	}
	sort.Slice(got.Claimed, func(i, j int) bool { return got.Claimed[i] < got.Claimed[j] })
	tally, _ := rdb.HGet(ctx, key("meta"), "unfulfillable").Result()
	got.Tally = anyInt(tally)
	var extra []string
	if n, _ := rdb.HGet(ctx, key("meta"), "live").Int64(); n != got.Live {
		extra = append(extra, fmt.Sprintf("the commit (and join steps) report live %d, the session holds %d", got.Live, n))
	}
	q, _ := rdb.LLen(ctx, key("jq:"+strconv.Itoa(jTarget))).Result()
	if n := int64(len(c.Pending)) + 1; legacy && createdFailed && q != n+1 || legacy && !createdFailed && q != n {
		extra = append(extra, fmt.Sprintf("a delivery left to a join step: %d pending, want %d (and the created join's failure: %v)", q, n, createdFailed))
	}
	if !legacy && q != 0 {
		extra = append(extra, fmt.Sprintf("%d deliveries left pending after the decision", q))
	}
	if !legacy {
		if n, _ := rdb.ZScore(ctx, key("jpend"), strconv.Itoa(jTarget)).Result(); n != 0 {
			extra = append(extra, "the target is still listed with pending deliveries")
		}
	}
	if seen != nil {
		if legacy {
			seen["fallback"]++
		}
		if deferred {
			seen["deferred"]++
		}
		for _, j := range want.Joins {
			for _, v := range []string{"satisfied", "unfulfillable", "open"} {
				switch {
				case bytes.HasPrefix([]byte(j), []byte(fmt.Sprintf("%d %s:", jTarget, v))):
					seen[v]++
				case bytes.HasPrefix([]byte(j), []byte(fmt.Sprintf("%d %s:", jCreated, v))):
					seen["created-"+v]++
				case bytes.HasPrefix([]byte(j), []byte(fmt.Sprintf("%d %s:", jParent, v))):
					seen["parent-decided"]++
				}
			}
		}
		if want.Merged != "" && want.Merged != "{}" {
			seen["payload-merged"]++
		}
		if bytes.Contains([]byte(want.Target), []byte("XGR_MAX_PAYLOAD")) {
			seen["merged-capped"]++
		}
		if len(want.Claimed) > 0 {
			seen["claimed"]++
		}
		for _, j := range want.Joins {
			if !bytes.HasSuffix([]byte(j), []byte("killed=[]")) {
				seen["killed"]++
				if !want.Fallback {
					seen["killed-inline"]++ // members the commit created, killed in its script
				}
			}
		}
	}
	return append(differ(got, want), extra...)
}

func joinLine(target int64, verdict string, applied []reactor.Applied) string {
	s := fmt.Sprintf("%d %s:", target, verdict)
	for _, a := range applied {
		s += fmt.Sprintf(" %s/%s/%s", a.Pid, a.From, a.Result)
	}
	return s
}

func nilIfEmpty(s []int64) []int64 {
	if len(s) == 0 {
		return nil
	}
	return s
}

func resultOf(name string) reactor.DeliveryResult {
	for r := reactor.Delivered; r <= reactor.IgnoredDuplicate; r++ {
		if r.String() == name {
			return r
		}
	}
	return 255
}

func targetState(closed bool, status, extra string) string {
	return fmt.Sprintf("%s closed=%v %s", status, closed, extra)
}

func openClosed(c string) string {
	if c == "1" {
		return "closed"
	}
	return "open"
}

func decodeInbox(t *testing.T, raw []byte) map[string]map[string]any {
	out := map[string]map[string]any{}
	if len(raw) == 0 {
		return out
	}
	if err := unmarshalNumber(raw, &out); err != nil {
		t.Fatalf("inbox %s: %v", raw, err)
	}
	return out
}

func decodeFail(t *testing.T, raw []byte) map[string]string {
	out := map[string]string{}
	if len(raw) == 0 {
		return out
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("fail %s: %v", raw, err)
	}
	return out
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func policyOf(kill bool) string {
	if kill {
		return registry.PolicyKill.String()
	}
	return registry.PolicyDrain.String()
}

func joinStrings(parts []string) string {
	s := ""
	for i, p := range parts {
		if i > 0 {
			s += ","
		}
		s += p
	}
	return s
}
