package joinstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// 32 producers finishing at once on 32 goroutines, half of them deciding
// the join in their commit (DecideJoin), half leaving their delivery to a
// join step under the join lock: whichever path sees the last delivery
// closes the join, exactly once, with every delivery in the inbox and the
// merged payload exact (numbers beyond float64 kept), byte for byte what
// the Go merge gives.
func TestInlineAndJoinStepsCloseOnce(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		o := fanOut(t, 32, `"all"`, "kill")
		root, producers, target := startFan(t, s, o)
		if len(producers) != 32 {
			t.Fatalf("%d producers claimed", len(producers))
		}
		var mu sync.Mutex
		verdicts := map[string]int{}
		count := func(v ...string) {
			mu.Lock()
			defer mu.Unlock()
			for _, x := range v {
				verdicts[x]++
			}
		}
		want := map[string]any{}
		var wg sync.WaitGroup
		for _, c := range producers {
			var i int
			fmt.Sscanf(c.ResumeStep, "P%d", &i)
			payload := fmt.Sprintf(`{"p%02d":%d00000000000000000000%d,"shared":%d}`, i, i+1, i, i)
			want[fmt.Sprintf("p%02d", i)] = json.Number(fmt.Sprintf("%d00000000000000000000%d", i+1, i))
			wg.Add(1)
			go func(i int, c joinstore.Claim) {
				defer wg.Done()
				valid := true
				inline := i%2 == 0
				cr, err := s.Commit(ctx, c, t0, joinstore.Commit{Status: "done", Valid: &valid, Payload: json.RawMessage(payload), DecideJoin: inline})
				if err != nil {
					t.Errorf("commit %s: %v", c.Pid, err)
					return
				}
				for _, j := range cr.Joins {
					if j.Target != target {
						t.Errorf("commit %s decided target %d", c.Pid, j.Target)
					}
					count(j.Verdict)
				}
				switch {
				case inline && len(cr.Joins) == 1:
					return
				case cr.DeliveredTo != target:
					t.Errorf("commit %s (inline %v): neither decided nor delivered: %+v", c.Pid, inline, cr)
					return
				}
				res, err := s.JoinStep(ctx, root, target, t0, time.Minute, decider(o))
				if errors.Is(err, joinstore.ErrJoinBusy) {
					return // the holder applies our delivery before it lets go
				}
				if err != nil {
					t.Error(err)
					return
				}
				count(res.Verdicts...)
			}(i, c)
		}
		wg.Wait()
		// A delivery pushed while the holder was between rounds is picked
		// up by a final step (what the root actor does for every pending
		// target).
		res, err := s.JoinStep(ctx, root, target, t0, time.Minute, decider(o))
		if err != nil {
			t.Fatal(err)
		}
		count(res.Verdicts...)
		if verdicts[joinstore.VerdictSatisfied] != 1 || verdicts[joinstore.VerdictUnfulfillable] != 0 {
			t.Fatalf("verdicts %v: the join must close exactly once", verdicts)
		}
		p, _ := s.Process(ctx, root, target)
		var inbox map[string]any
		json.Unmarshal(p.Join.Inbox, &inbox)
		if len(inbox) != 32 || !p.Join.Closed {
			t.Fatalf("inbox %d pieces, closed %v", len(inbox), p.Join.Closed)
		}
		want["shared"] = json.Number("31") // the last from node's (P31) value wins
		exact, _ := json.Marshal(want)
		if string(p.ResumePlain) != string(exact) {
			t.Fatalf("merged payload\n got %s\nwant %s", p.ResumePlain, exact)
		}
		if due, _ := s.DueIters(ctx, root, t0, 10); len(due) != 1 || due[0] != target {
			t.Fatalf("target not promoted: due %v", due)
		}
	})
}
