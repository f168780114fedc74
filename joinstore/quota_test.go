package joinstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A start over the owner's live sessions or starts per minute is refused
// with a *QuotaError naming the quota, its limit and what the owner holds,
// and writes nothing; a retry of a started session is not a new start; a
// finished session and an older minute free room again; another owner and
// an owner override are counted apart.
func TestQuotaRefusesStarts(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		other := "0x00000000000000000000000000000000000000bb"
		s := New(rdb, Config{SessionTTL: time.Hour, Quotas: Quotas{Default: Quota{LiveSessions: 2, StartsPerMinute: 3},
			Owners: map[string]Quota{other: {LiveSessions: 3}}}})
		a := start(t, s, StartRequest{IdempotencyKey: "a"})
		start(t, s, StartRequest{IdempotencyKey: "b"})
		keys := rdb.DBSize(ctx).Val()
		refused := func(now time.Time, quota string, limit, used int64) {
			t.Helper()
			_, err := s.Start(ctx, StartRequest{Owner: owner, StartStep: "A1", Now: now, IdempotencyKey: "refused"})
			var qe *QuotaError
			if !errors.As(err, &qe) || !errors.Is(err, ErrQuota) || qe.Quota != quota || qe.Limit != limit || qe.Used != used {
				t.Fatalf("a start over the %s quota: %v, want a QuotaError %s %d/%d", quota, err, quota, used, limit)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("its %s quota is %d", quota, limit)) {
				t.Errorf("the refusal does not name the quota and its value: %v", err)
			}
			if n := rdb.DBSize(ctx).Val(); n != keys {
				t.Errorf("a refused start changed Redis: %d keys, before %d", n, keys)
			}
		}
		refused(t0, QuotaLiveSessions, 2, 2)
		if again := start(t, s, StartRequest{IdempotencyKey: "a"}); again.Ack != "already_queued" || again.Root != a.Root {
			t.Fatalf("a retry at the quota: %+v", again)
		}
		for i := range 3 { // the override: 3 live sessions; its own minute
			start(t, s, StartRequest{Owner: other, IdempotencyKey: strconv.Itoa(i)})
		}
		// a finishes: room for one more session, but it would be the
		// owner's 4th start in the minute only after a third one.
		c := claimAll(t, s, a.Root, t0, 0)
		if _, err := s.Commit(ctx, c[0], t0, Commit{Status: "done"}); err != nil {
			t.Fatal(err)
		}
		start(t, s, StartRequest{IdempotencyKey: "c"})
		keys = rdb.DBSize(ctx).Val()
		refused(t0, QuotaLiveSessions, 2, 2)
		// Lift the live sessions quota (a reload): the minute's starts count.
		s.SetQuotas(Quotas{Default: Quota{StartsPerMinute: 3}})
		refused(t0.Add(59*time.Second), QuotaStartsPerMinute, 3, 3)
		if _, err := s.Start(ctx, StartRequest{Owner: owner, StartStep: "A1", Now: t0.Add(61 * time.Second), IdempotencyKey: "d"}); err != nil {
			t.Fatalf("a start a minute later: %v", err)
		}
		u, err := s.Usage(ctx, owner, t0.Add(61*time.Second))
		if err != nil || u.LiveSessions != 3 || u.StartsLastMinute != 1 || u.Quota.StartsPerMinute != 3 || u.Quota.LiveSessions != 0 {
			t.Errorf("usage: %+v %v", u, err)
		}
	})
}

// Issue 40: the fork bomb {"S1":{"rule":"DONE","onValid":{"spawns":["S1","S1"]}}},
// played on the store from three sessions of one owner at once, ends at
// the owner's live process quota: each session draws slots in chunks,
// the commit that finds its owner has none left kills its session
// (killKind quota, the reason naming the quota), the owner never holds
// more slots than its quota nor its sessions more live processes, and
// another owner's session still starts and runs.
func TestQuotaEndsForkBomb(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		const quota = 100
		s := New(rdb, Config{SessionTTL: time.Hour, SlotChunk: 8, Quotas: Quotas{Default: Quota{LiveProcesses: quota}}})
		var roots []Root
		for range 3 {
			roots = append(roots, start(t, s, StartRequest{}).Root)
		}
		now := t0
		peak := int64(0)
		for round := 0; round < 40; round++ {
			progressed := false
			for _, root := range roots {
				iters, err := s.DueIters(ctx, root, now, 1000)
				if err != nil {
					t.Fatal(err)
				}
				claims, err := s.Claim(ctx, root, now, 30*time.Second, "w1", table(2), iters)
				if errors.Is(err, ErrSessionKilled) {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range claims {
					progressed = true
					valid := true
					if _, err := s.Commit(ctx, c, now, Commit{Status: "done", Valid: &valid, Worker: "w1", Children: []Child{
						{Iter: c.FirstChild, ResumeStep: "A1", JoinGroupID: "0"}, {Iter: c.FirstChild + 1, ResumeStep: "A1", JoinGroupID: "0"},
					}}); err != nil {
						t.Fatalf("commit %s: %v", c.Pid, err)
					}
				}
			}
			live := int64(0)
			for _, root := range roots {
				m, err := s.SessionMeta(ctx, root)
				if err != nil {
					t.Fatal(err)
				}
				live += m.Live
			}
			peak = max(peak, live)
			if live > quota {
				t.Fatalf("round %d: the owner's sessions have %d live processes, its quota is %d", round, live, quota)
			}
			if !progressed {
				break
			}
			now = now.Add(time.Millisecond)
		}
		for _, root := range roots {
			m := rdb.HGetAll(ctx, keysOf(root).meta()).Val()
			if m["killKind"] != "quota" || !strings.Contains(m["killReason"], "its 100 process slots (live-processes)") {
				t.Errorf("session %s: killKind %q reason %q, want killed by the owner's quota", root, m["killKind"], m["killReason"])
			}
		}
		if n, err := rdb.HGet(ctx, ownerKeysOf(owner).slots(), "n").Int64(); err != nil || n > quota {
			t.Errorf("the owner holds %d slots (%v), its quota is %d", n, err, quota)
		}
		if peak < quota/2 {
			t.Errorf("peak %d live processes: the bomb never came near the quota", peak)
		}
		// Another owner runs.
		b := start(t, s, StartRequest{Owner: "0x00000000000000000000000000000000000000bb", Now: now})
		if c := claimAll(t, s, b.Root, now, 0); len(c) != 1 {
			t.Errorf("another owner's session: claims %v", c)
		}
		t.Logf("peak %d live processes of quota %d", peak, quota)
	})
}
