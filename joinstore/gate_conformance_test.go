package joinstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

var (
	gateSeed   = flag.Int64("gate.seed", 1, "seed of TestGateReferencesMatchLua's generated states")
	gateStates = flag.Int("gate.states", 300, "generated states per transition in TestGateReferencesMatchLua")
)

// The gates are decided by Lua transitions (claim, commit_step,
// release_lease); gate_reference_test.go and release_reference_test.go
// hold pure references of them (ClaimRound, CommitGate, ReleaseLease), test
// code only. Generated states — join groups with targets
// open or closed with kill or drain, their `when`, statuses, kill marks,
// pause flags, leases expired or not, recovery counts, windows, caps,
// children with and without a join — are written to a real Redis (single
// and a 3-master Cluster), the script is run on each through the store,
// and what it did (which processes it claimed, aborted with which reason,
// created, gated; what it delivered to the join target; the session's
// counters) must equal the reference's outcome. A mismatch is shrunk to a
// minimal state and printed with both outcomes.
func TestGateReferencesMatchLua(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		var roots atomic.Int64
		newRoot := func() joinstore.Root { return joinstore.Root{Owner: owner, RootPid: 1000 + roots.Add(1)} }
		t.Run("claim", func(t *testing.T) {
			conform(t, genClaimCase, func(c claimCase) []string { return runClaimCase(t, rdb, newRoot(), c) })
		})
		t.Run("commit", func(t *testing.T) {
			conform(t, genCommitCase, func(c commitCase) []string { return runCommitCase(t, rdb, newRoot(), c) })
		})
		t.Run("release", func(t *testing.T) {
			conform(t, genReleaseCase, func(c releaseCase) []string { return runReleaseCase(t, rdb, newRoot(), c) })
		})
	})
}

// conform runs -gate.states generated states; the first that differs is
// shrunk and reported.
func conform[C any](t *testing.T, gen func(*rand.Rand) C, run func(C) []string) {
	t.Helper()
	r := rand.New(rand.NewSource(*gateSeed))
	for i := 0; i < *gateStates; i++ {
		c := gen(r)
		diff := run(c)
		if len(diff) == 0 {
			continue
		}
		small, sdiff := shrink(c, diff, run)
		first, _ := json.Marshal(c)
		shown, _ := json.MarshalIndent(small, "", "  ")
		t.Fatalf("state %d of seed %d: the script and its reference differ.\nminimal state:\n%s\ndifferences:\n  %s\n(the state as generated: %s)",
			i, *gateSeed, shown, strings.Join(sdiff, "\n  "), first)
	}
}

// shrink looks for a smaller state that still differs: one change at a time
// (a list element dropped, a flag cleared, a number zeroed or halved, a
// pointer dropped), kept while it still fails.
func shrink[C any](c C, diff []string, run func(C) []string) (C, []string) {
	budget := 600
	for budget > 0 {
		improved := false
		for _, v := range variants(c) {
			if budget--; budget < 0 {
				break
			}
			if d := run(v); len(d) > 0 {
				c, diff, improved = v, d, true
				break
			}
		}
		if !improved {
			break
		}
	}
	return c, diff
}

// variants returns every state one change smaller than c.
func variants[C any](c C) []C {
	var out []C
	for k := 0; ; k++ {
		cp := deepCopy(reflect.ValueOf(c)).Interface().(C)
		n := k
		if !edit(reflect.ValueOf(&cp).Elem(), &n) {
			return out
		}
		out = append(out, cp)
	}
}

// edit applies the n-th possible change inside v; false when v offers fewer.
func edit(v reflect.Value, n *int) bool {
	hit := func() bool {
		if *n == 0 {
			return true
		}
		*n--
		return false
	}
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() && hit() {
			v.SetBool(false)
			return true
		}
	case reflect.Int, reflect.Int64:
		if x := v.Int(); x != 0 {
			if hit() {
				v.SetInt(0)
				return true
			}
			if (x > 1 || x < -1) && hit() {
				v.SetInt(x / 2)
				return true
			}
		}
	case reflect.Uint8:
		if v.Uint() != 0 && hit() {
			v.SetUint(0)
			return true
		}
	case reflect.Pointer:
		if !v.IsNil() {
			if hit() {
				v.Set(reflect.Zero(v.Type()))
				return true
			}
			return edit(v.Elem(), n)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return false
		}
		for i := 0; i < v.Len(); i++ {
			if hit() {
				v.Set(reflect.AppendSlice(v.Slice(0, i), v.Slice(i+1, v.Len())))
				return true
			}
		}
		for i := 0; i < v.Len(); i++ {
			if edit(v.Index(i), n) {
				return true
			}
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Field(i).CanSet() && edit(v.Field(i), n) {
				return true
			}
		}
	}
	return false
}

// deepCopy copies v with fresh slices and pointees.
func deepCopy(v reflect.Value) reflect.Value {
	out := reflect.New(v.Type()).Elem()
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			p := reflect.New(v.Type().Elem())
			p.Elem().Set(deepCopy(v.Elem()))
			out.Set(p)
		}
	case reflect.Slice:
		if !v.IsNil() {
			s := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			for i := 0; i < v.Len(); i++ {
				s.Index(i).Set(deepCopy(v.Index(i)))
			}
			out.Set(s)
		}
	case reflect.Struct:
		out.Set(v)
		for i := 0; i < v.NumField(); i++ {
			if out.Field(i).CanSet() {
				out.Field(i).Set(deepCopy(v.Field(i)))
			}
		}
	default:
		out.Set(v)
	}
	return out
}

// The step table of the generated states: s4 has no entry.
var gateSteps = joinstore.StepTable{
	"s0": {},
	"s1": {Reserve: 1},
	"s2": {Reserve: 2, Bypass: true},
	"s3": {Bypass: true},
}

func gateStep(i int) string { return "s" + strconv.Itoa(((i%5)+5)%5) }

// pick returns an index drawn with the given weights.
func pick(r *rand.Rand, weights ...int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	x := r.Intn(total)
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

var statuses = []joinstore.ProcStatus{joinstore.StatusWaiting, joinstore.StatusRunning, joinstore.StatusDone, joinstore.StatusAborted, ""}

var whens = []string{"valid", "invalid", "any"}

// writeTarget writes the join target iter that group (named by its iter)
// delivers to: the targets hash entry and its record.
func writeTarget(ctx context.Context, pipe redis.Pipeliner, root joinstore.Root, g GroupTarget, when int, members []int64) {
	group := strconv.FormatInt(g.Iter, 10)
	closed, status := "0", joinstore.StatusWaiting
	if g.Closed {
		closed = "1"
		if g.Policy == registry.PolicyKill {
			status = joinstore.StatusAborted
		}
	}
	pipe.HSet(ctx, joinstore.KeyOf(root, "targets"), group, group)
	pipe.HSet(ctx, joinstore.KeyOf(root, "p:"+group), "pid", root.Pid(g.Iter), "status", string(status), "target", "1",
		"joinGroupId", "0", "joinFromGroupId", group, "expect", `["s0","s1"]`,
		"requireWhen", fmt.Sprintf(`{"s0":%q,"s1":%q}`, whens[when%3], whens[(when+1)%3]), "k", "1",
		"policy", g.Policy.String(), "closed", closed, "resumeStep", "s3", "nextWakeAt", "0")
	for _, m := range members {
		pipe.HSet(ctx, joinstore.KeyOf(root, "g:"+group), strconv.FormatInt(m, 10), "s0")
	}
}

func flag01(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// ---- claim ----

// claimCase is a claim's state: process i has iter i+1; target i has iter
// 100+i and feeds the group of that name.
type claimCase struct {
	Killed         bool
	Window         int
	Running        int // unexpired leases of other processes
	Expired, Ended int // expired leases; finished processes at score 0
	Fence, Iter    int64
	LiveExtra      int64 // live processes without a record here
	Targets        []claimTarget
	Procs          []claimProc
	// Order are the candidates, as process indexes (one past the end:
	// an iter without a record).
	Order []int
}

type claimTarget struct {
	Closed bool
	Policy registry.Policy
	When   int
}

type claimProc struct {
	Due    int // 0: not in the due set; 1: due before now; 2: due now; 3: due later
	Status int // index into statuses
	Paused bool
	Killed bool
	Step   int
	Group  int // 0: the root group; i: the group of target i-1
}

func genClaimCase(r *rand.Rand) claimCase {
	c := claimCase{Killed: r.Intn(12) == 0, Running: r.Intn(5), Expired: r.Intn(3), Ended: r.Intn(2),
		Fence: int64(r.Intn(50)), Iter: int64(10 + r.Intn(50)), LiveExtra: int64(r.Intn(2))}
	if r.Intn(5) >= 2 {
		c.Window = 1 + r.Intn(4)
	}
	for i := r.Intn(4); i > 0; i-- {
		c.Targets = append(c.Targets, claimTarget{Closed: r.Intn(2) == 0, Policy: registry.Policy(r.Intn(2)), When: r.Intn(3)})
	}
	for i := 1 + r.Intn(7); i > 0; i-- {
		c.Procs = append(c.Procs, claimProc{Due: pick(r, 15, 50, 15, 20), Status: pick(r, 70, 10, 8, 7, 5),
			Paused: r.Intn(7) == 0, Killed: r.Intn(10) == 0, Step: r.Intn(5), Group: r.Intn(len(c.Targets) + 1)})
	}
	c.Order = r.Perm(len(c.Procs))
	if r.Intn(5) == 0 {
		c.Order = append(c.Order, c.Order[r.Intn(len(c.Order))])
	}
	if r.Intn(10) == 0 {
		c.Order = append(c.Order, len(c.Procs))
	}
	return c
}

func (c claimCase) target(group int) GroupTarget {
	if group < 1 || group > len(c.Targets) {
		return GroupTarget{}
	}
	t := c.Targets[group-1]
	return GroupTarget{Iter: int64(99 + group), Closed: t.Closed, Policy: t.Policy}
}

func (c claimCase) proc(i int) (claimProc, bool) {
	if i < 0 || i >= len(c.Procs) {
		return claimProc{}, false
	}
	return c.Procs[i], true
}

// claimSeen is what a claim did: the reference's outcome and what the
// records hold afterwards.
type claimSeen struct {
	ClaimOutcome
	// Status and Reason are each record's status and abortReason
	// afterwards, Due the due set.
	Status []joinstore.ProcStatus
	Reason []string
	Due    []int64
}

func runClaimCase(t *testing.T, rdb redis.UniversalClient, root joinstore.Root, c claimCase) []string {
	ctx, now := context.Background(), t0
	nowMs := now.UnixMilli()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	pipe := rdb.Pipeline()
	meta := []any{"owner", root.Owner, "window", c.Window, "fence", c.Fence, "iter", c.Iter, "live", c.live(), "status", "running"}
	if c.Killed {
		meta = append(meta, "killedAt", nowMs-1)
	}
	pipe.HSet(ctx, joinstore.KeyOf(root, "meta"), meta...)
	for i := 0; i < c.Running; i++ {
		pipe.ZAdd(ctx, joinstore.KeyOf(root, "run"), redis.Z{Score: float64(nowMs + 1000 + int64(i)), Member: 9000 + i})
	}
	for i := 0; i < c.Expired; i++ {
		pipe.ZAdd(ctx, joinstore.KeyOf(root, "run"), redis.Z{Score: float64(nowMs - 1000 - int64(i)), Member: 9100 + i})
	}
	for i := 0; i < c.Ended; i++ {
		pipe.ZAdd(ctx, joinstore.KeyOf(root, "run"), redis.Z{Score: 0, Member: 9200 + i})
	}
	for i, tg := range c.Targets {
		var members []int64
		for j, p := range c.Procs {
			if p.Group == i+1 {
				members = append(members, int64(j+1))
			}
		}
		writeTarget(ctx, pipe, root, c.target(i+1), tg.When, members)
	}
	var dueWant []int64
	for i, p := range c.Procs {
		iter := int64(i + 1)
		group := strconv.FormatInt(c.target(p.Group).Iter, 10)
		if st := statuses[p.Status]; st != "" {
			f := []any{"pid", root.Pid(iter), "status", string(st), "paused", flag01(p.Paused), "resumeStep", gateStep(p.Step),
				"resumePlain", `{"i":` + strconv.Itoa(i) + `}`, "parentPid", root.Pid(1), "joinGroupId", group, "threadHeadPid", root.Pid(iter)}
			if p.Killed {
				f = append(f, "killedAt", nowMs-1)
			}
			pipe.HSet(ctx, joinstore.KeyOf(root, "p:"+strconv.FormatInt(iter, 10)), f...)
		}
		if p.Due > 0 {
			at := []int64{0, nowMs - 500, nowMs, nowMs + 500}[p.Due]
			pipe.ZAdd(ctx, joinstore.KeyOf(root, "due"), redis.Z{Score: float64(at), Member: iter})
			dueWant = append(dueWant, iter)
		}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	iters := make([]int64, len(c.Order))
	for i, o := range c.Order {
		iters[i] = int64(o + 1)
	}

	// The reference.
	cands := make([]ClaimCandidate, len(c.Order))
	for i, o := range c.Order {
		p, ok := c.proc(o)
		cands[i] = ClaimCandidate{Iter: int64(o + 1), Due: ok && (p.Due == 1 || p.Due == 2)}
		if ok {
			cands[i].Status, cands[i].Paused, cands[i].Killed = statuses[p.Status], p.Paused, p.Killed
			cands[i].Limits, cands[i].Group = gateSteps[gateStep(p.Step)], c.target(p.Group)
		}
	}
	ref := ClaimRound(ClaimSession{Killed: c.Killed, Window: c.Window, Running: c.Running, Fence: c.Fence, Iter: c.Iter, Live: c.live()}, cands)
	want := claimSeen{ClaimOutcome: ref}
	granted, gated := map[int64]bool{}, map[int64]bool{}
	for _, g := range ref.Granted {
		granted[g.Iter] = true
	}
	for _, g := range ref.Gated {
		gated[g] = true
	}
	for i, p := range c.Procs {
		st, reason := statuses[p.Status], ""
		switch {
		case granted[int64(i+1)]:
			st = joinstore.StatusRunning
		case gated[int64(i+1)]:
			st, reason = joinstore.StatusAborted, string(joinstore.Gated)
		}
		want.Status = append(want.Status, st)
		want.Reason = append(want.Reason, reason)
	}
	for _, it := range dueWant {
		if !granted[it] && !gated[it] {
			want.Due = append(want.Due, it)
		}
	}

	// The script.
	claims, err := store.Claim(ctx, root, now, time.Minute, "w", gateSteps, iters)
	var got claimSeen
	switch {
	case errors.Is(err, joinstore.ErrSessionKilled):
		got.SessionKilled = true
	case err != nil:
		t.Fatalf("claim: %v", err)
	}
	for _, cl := range claims {
		got.Granted = append(got.Granted, Granted{Iter: cl.Iter, Token: cl.Token, FirstChild: cl.FirstChild, Reserve: cl.Reserve, GroupTarget: cl.GroupTarget})
	}
	m, _ := rdb.HMGet(ctx, joinstore.KeyOf(root, "meta"), "fence", "iter", "live", "status").Result()
	got.Fence, got.Iter, got.Live, got.Finished = anyInt(m[0]), anyInt(m[1]), anyInt(m[2]), m[3] == "finished"
	var extra []string
	for i, p := range c.Procs {
		f, _ := rdb.HMGet(ctx, joinstore.KeyOf(root, "p:"+strconv.Itoa(i+1)), "status", "abortReason").Result()
		st, _ := f[0].(string)
		reason, _ := f[1].(string)
		got.Status = append(got.Status, joinstore.ProcStatus(st))
		got.Reason = append(got.Reason, reason)
		if reason == string(joinstore.Gated) {
			got.Gated = append(got.Gated, int64(i+1))
			if g := c.target(p.Group); g.Iter != 0 {
				if member, _ := rdb.HExists(ctx, joinstore.KeyOf(root, "g:"+strconv.FormatInt(g.Iter, 10)), strconv.Itoa(i+1)).Result(); member {
					extra = append(extra, fmt.Sprintf("gated process %d is still a member of its group", i+1))
				}
			}
		}
	}
	// Gated in candidate order, as the reference lists them.
	pos := map[int64]int{}
	for i, o := range c.Order {
		if _, ok := pos[int64(o+1)]; !ok {
			pos[int64(o+1)] = i
		}
	}
	sort.SliceStable(got.Gated, func(i, j int) bool { return pos[got.Gated[i]] < pos[got.Gated[j]] })
	due, _ := rdb.ZRange(ctx, joinstore.KeyOf(root, "due"), 0, -1).Result()
	for _, d := range due {
		n, _ := strconv.ParseInt(d, 10, 64)
		got.Due = append(got.Due, n)
	}
	sort.Slice(got.Due, func(i, j int) bool { return got.Due[i] < got.Due[j] })
	return append(differ(got, want), extra...)
}

// live is the session's live count: the live records and LiveExtra.
func (c claimCase) live() int64 {
	n := c.LiveExtra
	for _, p := range c.Procs {
		if st := statuses[p.Status]; st == joinstore.StatusWaiting || st == joinstore.StatusRunning {
			n++
		}
	}
	return n
}

// differ lists the fields in which the script's outcome (got) and the
// reference's (want) differ (those of an embedded struct one by one).
func differ(got, want any) []string {
	var out []string
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := 0; i < g.NumField(); i++ {
		if g.Type().Field(i).Anonymous {
			out = append(out, differ(g.Field(i).Interface(), w.Field(i).Interface())...)
			continue
		}
		if !reflect.DeepEqual(g.Field(i).Interface(), w.Field(i).Interface()) {
			out = append(out, fmt.Sprintf("%s: script %s, reference %s", g.Type().Field(i).Name, show(g.Field(i).Interface()), show(w.Field(i).Interface())))
		}
	}
	return out
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}

func anyInt(v any) int64 {
	s, _ := v.(string)
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// ---- commit ----

// commitCase is a commit's state. The committing process has iter 11 and a
// reservation from 12; its group, when it has a target, is "7" (target 7),
// whose other members have iters 30, 31, ...; the session's last iter is 40.
type commitCase struct {
	Status       int // index into statuses
	Stale        bool
	Until        int // the lease's expiry: 0 before now, 1 now, 2 later
	Killed       bool
	Paused       bool
	HasTarget    bool
	Closed       bool
	Policy       registry.Policy
	When         int
	Members      int
	SessionKill  bool
	SessionPause bool
	Steps        int64
	LiveExtra    int64
	Window       int
	Others       int // unexpired leases of other processes
	Expired      int
	Fence        int64
	MaxLive      int
	MaxSteps     int
	// The commit.
	Aborted   bool
	Valid     int // 0: none, 1: invalid, 2: valid
	Reason    bool
	Cancel    bool
	Claim     bool
	WakeUps   int
	Join      *commitJoin
	Spawns    []commitSpawn
	BadChild  bool
	ExtraRsvd int
}

type commitJoin struct {
	Policy registry.Policy
	Later  bool
}

type commitSpawn struct {
	Later bool
	Step  int
}

const commitIter, commitFirst, commitTarget, commitLast = 11, 12, 7, 40

func genCommitCase(r *rand.Rand) commitCase {
	c := commitCase{Status: pick(r, 3, 90, 3, 2, 2), Stale: r.Intn(20) == 0, Until: pick(r, 5, 5, 90),
		Killed: r.Intn(10) == 0, Paused: r.Intn(10) == 0, HasTarget: r.Intn(3) > 0, Closed: r.Intn(2) == 0,
		Policy: registry.Policy(r.Intn(2)), When: r.Intn(3), Members: r.Intn(4),
		SessionKill: r.Intn(15) == 0, SessionPause: r.Intn(10) == 0, Steps: int64(r.Intn(6)), LiveExtra: int64(r.Intn(3)),
		Others: r.Intn(4), Expired: r.Intn(2), Fence: int64(r.Intn(30)),
		Aborted: r.Intn(6) == 0, Valid: r.Intn(3), Reason: r.Intn(6) == 0, Cancel: r.Intn(20) == 0, Claim: r.Intn(4) > 0,
		WakeUps: pick(r, 4, 1, 1), BadChild: r.Intn(25) == 0, ExtraRsvd: r.Intn(2)}
	if r.Intn(5) >= 2 {
		c.Window = 1 + r.Intn(4)
	}
	if r.Intn(4) == 0 {
		c.MaxLive = 1 + r.Intn(8)
	}
	if r.Intn(5) == 0 {
		c.MaxSteps = int(c.Steps) + r.Intn(2)
	}
	if r.Intn(3) == 0 {
		c.Join = &commitJoin{Policy: registry.Policy(r.Intn(2)), Later: r.Intn(5) == 0}
	}
	for i := r.Intn(4); i > 0; i-- {
		c.Spawns = append(c.Spawns, commitSpawn{Later: r.Intn(4) == 0, Step: r.Intn(5)})
	}
	return c
}

func (c commitCase) group() string {
	if c.HasTarget {
		return strconv.Itoa(commitTarget)
	}
	return "0"
}

func (c commitCase) target() GroupTarget {
	if !c.HasTarget {
		return GroupTarget{}
	}
	return GroupTarget{Iter: commitTarget, Closed: c.Closed, Policy: c.Policy}
}

func (c commitCase) leaseUntil(now int64) int64 { return now + []int64{-1, 0, 5000}[c.Until] }

// children plans the commit's children as reactor.Children does.
func (c commitCase) children(now time.Time, payload json.RawMessage) []joinstore.Child {
	var out []joinstore.Child
	iter, group := int64(commitFirst), c.group()
	wake := func(later bool) time.Time {
		if later {
			return now.Add(time.Second)
		}
		return now
	}
	if j := c.Join; j != nil {
		fresh := strconv.FormatInt(iter, 10)
		out = append(out, joinstore.Child{Iter: iter, ResumeStep: "s3", NextWakeAt: wake(j.Later), ResumePlain: json.RawMessage("{}"), JoinGroupID: group,
			Join:   &joinstore.JoinSpec{FromGroup: fresh, From: []registry.From{{Node: "s0"}, {Node: "s1"}}, K: 1, Policy: j.Policy},
			Bypass: true})
		iter++
		group = fresh
	}
	for _, sp := range c.Spawns {
		l := gateSteps[gateStep(sp.Step)]
		out = append(out, joinstore.Child{Iter: iter, ResumeStep: gateStep(sp.Step), NextWakeAt: wake(sp.Later), ResumePlain: payload,
			JoinGroupID: group, Reserve: l.Reserve, Bypass: l.Bypass})
		iter++
	}
	return out
}

func (c commitCase) reserved() int64 {
	n := int64(len(c.Spawns) + c.ExtraRsvd)
	if c.Join != nil {
		n++
	}
	if c.BadChild && n > 0 {
		n--
	}
	return n
}

func runCommitCase(t *testing.T, rdb redis.UniversalClient, root joinstore.Root, c commitCase) []string {
	ctx, now := context.Background(), t0
	nowMs := now.UnixMilli()
	caps := CommitCaps{MaxLive: c.MaxLive, MaxSteps: c.MaxSteps}
	cfg := joinstore.Config{SessionTTL: time.Hour, MaxLive: -1, MaxSteps: -1}
	if c.MaxLive > 0 {
		cfg.MaxLive = c.MaxLive
	}
	if c.MaxSteps > 0 {
		cfg.MaxSteps = c.MaxSteps
	}
	store := joinstore.New(rdb, cfg)
	status := statuses[c.Status]
	lease, until := int64(5), c.leaseUntil(nowMs)
	live := 1 + int64(c.Members) + c.LiveExtra
	pid := root.Pid(commitIter)
	running := c.Others
	if status == joinstore.StatusRunning && until >= nowMs {
		running++
	}
	st := CommitState{Now: nowMs, Iter: commitIter, Status: status, Lease: lease, LeaseUntil: until, Step: "s1", Group: c.group(),
		Killed: c.Killed, Paused: c.Paused, ReservedFirst: commitFirst, ReservedCount: c.reserved(), Target: c.target(),
		SessionKilled: c.SessionKill, SessionPaused: c.SessionPause, Steps: c.Steps, Live: live, Window: c.Window,
		Running: running, Fence: c.Fence, LastIter: commitLast}

	pipe := rdb.Pipeline()
	meta := []any{"owner", root.Owner, "steps", c.Steps, "live", live, "window", c.Window, "fence", c.Fence, "iter", commitLast,
		"paused", flag01(c.SessionPause), "status", "running"}
	if c.SessionKill {
		meta = append(meta, "killedAt", nowMs-1)
	}
	pipe.HSet(ctx, joinstore.KeyOf(root, "meta"), meta...)
	if status != "" {
		f := []any{"pid", pid, "status", string(status), "paused", flag01(c.Paused), "resumeStep", "s1", "joinGroupId", c.group(),
			"threadHeadPid", pid, "parentPid", root.Pid(1)}
		if status == joinstore.StatusRunning {
			f = append(f, "lease", lease, "leaseUntil", until, "worker", "w")
		}
		if n := st.ReservedCount; n > 0 {
			f = append(f, "reserved", fmt.Sprintf("%d:%d", commitFirst, n))
		}
		if c.Killed {
			f = append(f, "killedAt", nowMs-1)
		}
		pipe.HSet(ctx, joinstore.KeyOf(root, "p:"+strconv.Itoa(commitIter)), f...)
		if status == joinstore.StatusRunning {
			pipe.ZAdd(ctx, joinstore.KeyOf(root, "run"), redis.Z{Score: float64(until), Member: commitIter})
		}
	}
	for i := 0; i < c.Others; i++ {
		pipe.ZAdd(ctx, joinstore.KeyOf(root, "run"), redis.Z{Score: float64(nowMs + 1000 + int64(i)), Member: 9000 + i})
	}
	for i := 0; i < c.Expired; i++ {
		pipe.ZAdd(ctx, joinstore.KeyOf(root, "run"), redis.Z{Score: float64(nowMs - 1000 - int64(i)), Member: 9100 + i})
	}
	if c.HasTarget {
		members := []int64{commitIter}
		for i := 0; i < c.Members; i++ {
			members = append(members, int64(30+i))
		}
		writeTarget(ctx, pipe, root, c.target(), c.When, members)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}

	payload := json.RawMessage(fmt.Sprintf(`{"n":%d}`, root.RootPid))
	cm := joinstore.Commit{Status: "done", Digest: "d", Worker: "w", Payload: payload, Children: c.children(now, payload)}
	if c.Aborted {
		cm.Status = "aborted"
	}
	if c.Valid > 0 {
		v := c.Valid == 2
		cm.Valid = &v
	}
	if c.Reason {
		cm.AbortReason = "boom"
	}
	if c.Cancel {
		cm.CancelSession = "cancelled by rule"
	}
	if c.Claim {
		cm.ClaimLease = time.Minute
	}
	for i := 0; i < c.WakeUps; i++ {
		cm.WakeUps = append(cm.WakeUps, json.RawMessage(`{"pid":"1:1"}`))
	}
	token := lease
	if c.Stale {
		token++
	}

	want := CommitGate(st, token, pid, cm, caps)

	res, err := store.Commit(ctx, joinstore.Claim{Root: root, Iter: commitIter, Pid: pid, Token: token, JoinGroupID: c.group(), GroupTarget: c.target().Iter}, now, cm)
	var got CommitOutcome
	var extra []string
	switch {
	case errors.Is(err, joinstore.ErrLeaseLost):
		got.Refused = "LEASE_LOST"
	case err != nil && strings.Contains(err.Error(), "BAD_CHILD"):
		got.Refused = "BAD_CHILD"
	case err != nil:
		t.Fatalf("commit: %v", err)
	}
	m, _ := rdb.HMGet(ctx, joinstore.KeyOf(root, "meta"), "steps", "live", "fence", "iter", "status").Result()
	got.Steps, got.Live, got.Fence, got.LastIter = anyInt(m[0]), anyInt(m[1]), anyInt(m[2]), anyInt(m[3])
	if got.Refused != "" {
		if s, _ := rdb.HGet(ctx, joinstore.KeyOf(root, "p:"+strconv.Itoa(commitIter)), "status").Result(); s != string(status) {
			extra = append(extra, fmt.Sprintf("a refused commit changed the process's status from %q to %q", status, s))
		}
		return append(differ(got, want), extra...)
	}
	got.Finished = m[4] == "finished"
	tally, _ := rdb.HMGet(ctx, joinstore.KeyOf(root, "meta"), "failed", "invalidEnds", "killKind").Result()
	if anyInt(tally[0]) == 1 {
		got.Tally = "failed"
	}
	if anyInt(tally[1]) == 1 {
		got.Tally += "invalidEnds"
	}
	got.KillKind, _ = tally[2].(string)
	got.Killed = res.Killed
	got.CapReason = res.Capped
	if res.Cancelled {
		got.CapReason = cm.CancelSession
	}
	p, _ := rdb.HMGet(ctx, joinstore.KeyOf(root, "p:"+strconv.Itoa(commitIter)), "status", "abortReason").Result()
	got.Recorded = joinstore.ProcStatus(fmt.Sprint(p[0]))
	got.Reason, _ = p[1].(string)
	var claimed []string
	for _, ch := range cm.Children {
		key := joinstore.KeyOf(root, "p:"+strconv.FormatInt(ch.Iter, 10))
		f, _ := rdb.HGetAll(ctx, key).Result()
		if len(f) == 0 {
			if !res.Killed {
				got.Gated = append(got.Gated, ch.Iter)
			}
			continue
		}
		cc := CreatedChild{Iter: ch.Iter, DueAt: anyInt(f["nextWakeAt"]), Paused: f["paused"] == "1"}
		score, derr := rdb.ZScore(ctx, joinstore.KeyOf(root, "due"), strconv.FormatInt(ch.Iter, 10)).Result()
		switch {
		case f["target"] == "1":
			cc.Fate = ChildTarget
		case f["status"] == "running":
			cc.Fate = ChildClaimed
			cc.Token = anyInt(f["lease"])
			first, _, _ := strings.Cut(f["reserved"], ":")
			cc.FirstChild = anyInt(first)
			claimed = append(claimed, fmt.Sprintf("%d/%d/%d", ch.Iter, cc.Token, cc.FirstChild))
		case derr == nil:
			cc.Fate, cc.DueAt = ChildDue, int64(score)
		default:
			cc.Fate = ChildPaused
		}
		if (cc.Fate == ChildTarget || cc.Fate == ChildClaimed) && derr == nil {
			extra = append(extra, fmt.Sprintf("child %d (%v) is in the due set", ch.Iter, cc.Fate))
		}
		cc.Member, _ = rdb.HExists(ctx, joinstore.KeyOf(root, "g:"+ch.JoinGroupID), strconv.FormatInt(ch.Iter, 10)).Result()
		got.Created = append(got.Created, cc)
	}
	if res.Gated != len(got.Gated) {
		extra = append(extra, fmt.Sprintf("the commit reports %d gated children, %d were not created", res.Gated, len(got.Gated)))
	}
	var reported []string
	for _, cl := range res.Claims {
		reported = append(reported, fmt.Sprintf("%d/%d/%d", cl.Iter, cl.Token, cl.FirstChild))
	}
	if !reflect.DeepEqual(reported, claimed) {
		extra = append(extra, fmt.Sprintf("the commit reports claims %v, the records show %v", reported, claimed))
	}
	if c.HasTarget {
		q, _ := rdb.LRange(ctx, joinstore.KeyOf(root, "jq:"+strconv.Itoa(commitTarget)), 0, -1).Result()
		if len(q) > 0 {
			got.Delivered = true
			var raw struct {
				Payload string `json:"payload"`
			}
			if err := json.Unmarshal([]byte(q[0]), &got.Delivery); err != nil {
				t.Fatal(err)
			}
			_ = json.Unmarshal([]byte(q[0]), &raw)
			got.Delivery.Payload = json.RawMessage(raw.Payload)
		}
		if len(q) > 1 {
			extra = append(extra, fmt.Sprintf("%d deliveries", len(q)))
		}
		if (res.DeliveredTo == commitTarget) != got.Delivered {
			extra = append(extra, fmt.Sprintf("the commit reports delivery to %d", res.DeliveredTo))
		}
	}
	n, _ := rdb.HLen(ctx, joinstore.KeyOf(root, "wq")).Result()
	got.WakesQueued = n > 0
	if res.Live != got.Live {
		extra = append(extra, fmt.Sprintf("the commit reports live %d, the session holds %d", res.Live, got.Live))
	}
	return append(differ(got, want), extra...)
}

// ---- release ----

// releaseCase is a release's state: the process has iter 11; its group,
// when it has a target, is "7" (target 7).
type releaseCase struct {
	Status        int // index into statuses
	Stale         bool
	Until         int // the lease's expiry: 0 before now, 1 now, 2 later
	Killed        bool
	SessionKilled bool
	Recoveries    int64
	HasTarget     bool
	Closed        bool
	Policy        registry.Policy
	When          int
	LiveExtra     int64
	Recover       bool
	Max           int
	Retry         int64
}

func genReleaseCase(r *rand.Rand) releaseCase {
	return releaseCase{Status: pick(r, 4, 88, 3, 3, 2), Stale: r.Intn(15) == 0, Until: pick(r, 50, 10, 40),
		Killed: r.Intn(8) == 0, SessionKilled: r.Intn(10) == 0, Recoveries: int64(r.Intn(4)),
		HasTarget: r.Intn(3) > 0, Closed: r.Intn(2) == 0, Policy: registry.Policy(r.Intn(2)), When: r.Intn(3),
		LiveExtra: int64(r.Intn(2)), Recover: r.Intn(2) == 0, Max: r.Intn(5), Retry: int64(r.Intn(3)) * 250}
}

func (c releaseCase) target() GroupTarget {
	if !c.HasTarget {
		return GroupTarget{}
	}
	return GroupTarget{Iter: commitTarget, Closed: c.Closed, Policy: c.Policy}
}

func runReleaseCase(t *testing.T, rdb redis.UniversalClient, root joinstore.Root, c releaseCase) []string {
	ctx, now := context.Background(), t0
	nowMs := now.UnixMilli()
	cfg := joinstore.Config{SessionTTL: time.Hour, MaxRecoveries: -1}
	if c.Max > 0 {
		cfg.MaxRecoveries = c.Max
	}
	store := joinstore.New(rdb, cfg)
	status := statuses[c.Status]
	lease, until := int64(5), nowMs+[]int64{-1, 0, 5000}[c.Until]
	live := 1 + c.LiveExtra
	group := "0"
	if c.HasTarget {
		group = strconv.Itoa(commitTarget)
	}
	pid := root.Pid(commitIter)
	key := joinstore.KeyOf(root, "p:"+strconv.Itoa(commitIter))

	pipe := rdb.Pipeline()
	meta := []any{"owner", root.Owner, "live", live, "status", "running"}
	if c.SessionKilled {
		meta = append(meta, "killedAt", nowMs-1)
	}
	pipe.HSet(ctx, joinstore.KeyOf(root, "meta"), meta...)
	if status != "" {
		f := []any{"pid", pid, "status", string(status), "resumeStep", "s1", "joinGroupId", group, "paused", "0"}
		if status == joinstore.StatusRunning {
			f = append(f, "lease", lease, "leaseUntil", until, "worker", "w", "reserved", "12:1")
			pipe.ZAdd(ctx, joinstore.KeyOf(root, "run"), redis.Z{Score: float64(until), Member: commitIter})
		}
		if c.Killed {
			f = append(f, "killedAt", nowMs-1)
		}
		if c.Recoveries > 0 {
			f = append(f, "recoveries", c.Recoveries)
		}
		pipe.HSet(ctx, key, f...)
	}
	if c.HasTarget {
		writeTarget(ctx, pipe, root, c.target(), c.When, []int64{commitIter})
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	token := lease
	if c.Stale {
		token++
	}
	st := ReleaseState{Now: nowMs, Status: status, Lease: lease, LeaseUntil: until, Step: "s1", Killed: c.Killed,
		SessionKilled: c.SessionKilled, Recoveries: c.Recoveries, Target: c.target(), Live: live}
	req := ReleaseRequest{Token: token, RetryAfter: c.Retry, Recover: c.Recover, MaxRecoveries: c.Max}
	if status != joinstore.StatusRunning {
		st.Lease = 0
	}
	if status == "" {
		st.Recoveries = 0 // no record
	}
	want := ReleaseLease(st, req)

	cl := joinstore.Claim{Root: root, Iter: commitIter, Pid: pid, Token: token, JoinGroupID: group, GroupTarget: c.target().Iter}
	release := func() joinstore.ReleaseResult {
		var res joinstore.ReleaseResult
		var err error
		if c.Recover {
			res, err = store.RecoverClaim(ctx, cl, now, now.Add(time.Duration(c.Retry)*time.Millisecond))
		} else {
			res, err = store.Release(ctx, cl, now, now.Add(time.Duration(c.Retry)*time.Millisecond))
		}
		if err != nil {
			t.Fatalf("release: %v", err)
		}
		return res
	}
	var got ReleaseOutcome
	var extra []string
	got.Result = release()
	p, _ := rdb.HGetAll(ctx, key).Result()
	if p["status"] == "aborted" {
		got.Reason = p["abortReason"]
	}
	got.MarkKilled = !c.Killed && p["killedAt"] != ""
	got.Recoveries = anyInt(p["recoveries"])
	if score, err := rdb.ZScore(ctx, joinstore.KeyOf(root, "due"), strconv.Itoa(commitIter)).Result(); err == nil {
		got.DueAt = int64(score)
		if anyInt(p["nextWakeAt"]) != got.DueAt {
			extra = append(extra, fmt.Sprintf("due at %d, nextWakeAt %s", got.DueAt, p["nextWakeAt"]))
		}
	}
	m, _ := rdb.HMGet(ctx, joinstore.KeyOf(root, "meta"), "live", "status").Result()
	got.Live, got.Finished = anyInt(m[0]), m[1] == "finished"
	if c.HasTarget {
		q, _ := rdb.LRange(ctx, joinstore.KeyOf(root, "jq:"+strconv.Itoa(commitTarget)), 0, -1).Result()
		got.FailedAtTarget = len(q) > 0
		if len(q) > 0 {
			var d joinstore.Delivery
			if err := json.Unmarshal([]byte(q[0]), &d); err != nil || d.Pid != pid || d.From != "s1" || !d.Aborted || d.Valid != nil || len(q) != 1 {
				extra = append(extra, fmt.Sprintf("failure deliveries %v", q))
			}
		}
		member, _ := rdb.HExists(ctx, joinstore.KeyOf(root, "g:"+group), strconv.Itoa(commitIter)).Result()
		if aborted := p["status"] == "aborted" && status == joinstore.StatusRunning; member == aborted {
			extra = append(extra, fmt.Sprintf("group member %v after %s", member, got.Result))
		}
	}
	if inRun, _ := rdb.ZScore(ctx, joinstore.KeyOf(root, "run"), strconv.Itoa(commitIter)).Result(); inRun != 0 && got.Result != joinstore.Stale {
		extra = append(extra, "still in the run set after "+string(got.Result))
	}
	// A lease is released at most once: a second release is stale.
	if again := release(); again != joinstore.Stale {
		extra = append(extra, fmt.Sprintf("a second release: %s", again))
	}
	return append(differ(got, want), extra...)
}
