package reactor

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// randomFlow generates an acyclic orchestration (every edge goes to a later
// step, so sessions end) with spawns and joins of every mode and when, all
// with policy drain (so every producer runs and the final records show what
// each join could have received), and a random outcome per step.
func randomFlow(r *rand.Rand) (raw []byte, outcomes string) {
	n := 4 + r.Intn(10)
	id := func(i int) string { return fmt.Sprintf("S%d", i) }
	later := func(i int) string { return id(i + 1 + r.Intn(n-i-1)) }
	var steps, outs []string
	whens := []string{"valid", "invalid", "any"}
	for i := 0; i < n; i++ {
		step := fmt.Sprintf(`"%s":{"rule":"x"`, id(i))
		for _, br := range []string{"onValid", "onInvalid"} {
			if i >= n-1 || r.Intn(3) == 0 {
				continue
			}
			var spawns []string
			for s := 1 + r.Intn(3); s > 0; s-- {
				spawns = append(spawns, `"`+later(i)+`"`)
			}
			b := fmt.Sprintf(`"spawns":[%s]`, strings.Join(spawns, ","))
			if i < n-2 && r.Intn(2) == 0 {
				target := later(i)
				var from []string
				seen := map[string]bool{}
				for f := 1 + r.Intn(3); f > 0; f-- {
					node := later(i)
					if !seen[node] {
						seen[node] = true
						from = append(from, fmt.Sprintf(`{"node":"%s","when":"%s"}`, node, whens[r.Intn(3)]))
					}
				}
				mode := []string{`"any"`, `"all"`, fmt.Sprintf(`{"k":%d}`, 1+r.Intn(len(from)))}[r.Intn(3)]
				b += fmt.Sprintf(`,"join":{"joinid":"%s","mode":%s,"waitonjoin":"drain","from":[%s]}`, target, mode, strings.Join(from, ","))
			}
			step += fmt.Sprintf(`,"%s":{%s}`, br, b)
		}
		steps = append(steps, step+"}")
		outs = append(outs, fmt.Sprintf(`"%s":{"result":"%s","payload":{"%s":%d}}`, id(i), []string{"valid", "valid", "invalid", "error"}[r.Intn(4)], id(i), i))
	}
	return []byte(`{"id":"random","structure":{` + strings.Join(steps, ",") + `}}`), `{` + strings.Join(outs, ",") + `}`
}

// On random orchestrations every session finishes (no join stays open once
// nothing can deliver to it any more), and a join is aborted as
// unfulfillable only if the producers of its group, all of which ran
// (drain), could not have delivered k matching pieces.
func TestRandomOrchestrationsNeverAbortASatisfiableJoin(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	rng := rand.New(rand.NewSource(137))
	ctx := context.Background()
	joins := 0
	for iter := 0; iter < 400; iter++ {
		raw, outs := randomFlow(rng)
		o, err := registry.Parse(raw)
		if err != nil {
			t.Fatalf("generated orchestration rejected: %v\n%s", err, raw)
		}
		exec, err := ParseOutcomes([]byte(outs))
		if err != nil {
			t.Fatal(err)
		}
		clock := time.UnixMilli(1_800_000_000_000)
		res, err := store.Start(ctx, joinstore.StartRequest{Owner: fmt.Sprintf("0x%040x", iter+1), StartStep: "S0", Now: clock})
		if err != nil {
			t.Fatal(err)
		}
		runner := &Runner{Store: store, Orch: o, Exec: exec, Worker: "prop", Now: func() time.Time { return clock }, Advance: func(t time.Time) { clock = t }}
		if err := runner.Run(ctx, res.Root); err != nil {
			t.Fatalf("iteration %d: %v\n%s\n%s", iter, err, raw, outs)
		}
		procs, _ := store.Processes(ctx, res.Root)
		for _, target := range procs {
			if target.Join == nil {
				continue
			}
			joins++
			st, err := JoinStateOf(target)
			if err != nil {
				t.Fatal(err)
			}
			if !target.Join.Closed {
				t.Fatalf("iteration %d: join %s (%s) still open after the session finished\n%s", iter, target.Pid, target.ResumeStep, raw)
			}
			// What the group could have delivered: each expected step whose
			// producer finished with a matching outcome.
			group := fmt.Sprint(target.Iter)
			could := map[string]bool{}
			for _, p := range procs {
				if p.JoinGroupID != group || p.Status != joinstore.StatusDone || p.Valid == nil {
					continue
				}
				for _, f := range st.From {
					if f.Node == p.ResumeStep && f.When.Accepts(*p.Valid) {
						could[f.Node] = true
					}
				}
			}
			if target.AbortReason == "unfulfillable" && len(could) >= st.K {
				var inbox map[string]json.RawMessage
				json.Unmarshal(target.Join.Inbox, &inbox)
				t.Fatalf("iteration %d: join %s (%s, k=%d) aborted although its group delivered %d matching steps %v (inbox %v)\n%s\n%s",
					iter, target.Pid, target.ResumeStep, st.K, len(could), could, inbox, raw, outs)
			}
		}
	}
	if joins < 100 {
		t.Fatalf("only %d joins exercised", joins)
	}
}
