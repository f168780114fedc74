//go:build chaos

package chaos

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// TestChaosAOFTail: what `appendfsync everysec` risks, measured (issue #29
// point 3). Replicas run (started with --accept-aof-everysec) while
// sessions start; in the middle the machine "crashes": redis-server is
// killed and its append-only file cut back to its size one second earlier
// — the writes whose fsync had not happened — and Redis restarts on it.
//
// Acknowledged starts of that last second are lost, and later starts may
// be given their session ids. The run passes when every such start can
// tell: its session is gone, or the session under its id names another
// start (startKey; `session show` and the gateway answer "not this
// start"); and when every session that survived runs to the end with no
// step committed twice and no join target created twice.
func TestChaosAOFTail(t *testing.T) {
	cfg := loadConfig(t)
	shapes := loadShapes(t)
	rds := testenv.StartRedis(t, testenv.WithArgs("--appendonly", "yes", "--appendfsync", "everysec", "--auto-aof-rewrite-percentage", "0"))
	rdb := redis.NewClient(&redis.Options{Addr: rds.Addr, ContextTimeoutEnabled: true, DialTimeout: time.Second, ReadTimeout: 3 * time.Second, WriteTimeout: 3 * time.Second})
	defer rdb.Close()
	ctx := context.Background()
	conf, err := rdb.ConfigGet(ctx, "*dir*").Result()
	if err != nil {
		t.Fatal(err)
	}
	aofDir := filepath.Join(conf["dir"], conf["appenddirname"])
	fl := newFleet(t, cfg.replicas, []string{"--redis", "redis://" + rds.Addr + "/0", "--accept-aof-everysec"}, abs(t, ostcFiles...), abs(t, outcomesFile)[0])
	rn := newRun(t, cfg, "aof-tail", rdb, fl, shapes)

	// The append-only file's size, sampled every 20 ms, so that the crash
	// can cut it back to where it was a second earlier.
	type sample struct {
		at   time.Time
		size int64
		file string
	}
	var (
		mu      sync.Mutex
		samples []sample
	)
	stopSampling := make(chan struct{})
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stopSampling:
				return
			case <-tick.C:
			}
			if f, err := incrAOF(aofDir); err == nil {
				if st, err := os.Stat(f); err == nil {
					mu.Lock()
					samples = append(samples, sample{at: time.Now(), size: st.Size(), file: f})
					mu.Unlock()
				}
			}
		}
	}()
	defer close(stopSampling)

	var cut, before int64
	var crashedAt time.Time
	rn.begin = time.Now()
	rn.startLoad(cfg.duration * 9 / 10)
	fs := rn.plan(max(1, cfg.kills/3), fault{kind: "OS crash", do: func() (string, error) {
		start := time.Now()
		err := rds.CrashRestart(func() error {
			crashedAt = time.Now()
			f, err := incrAOF(aofDir)
			if err != nil {
				return err
			}
			st, err := os.Stat(f)
			if err != nil {
				return err
			}
			before = st.Size()
			to := before
			mu.Lock()
			for _, s := range samples {
				if s.file == f && s.at.Before(crashedAt.Add(-time.Second)) {
					to = s.size
				}
			}
			mu.Unlock()
			cut = before - to
			return os.Truncate(f, to)
		})
		return fmt.Sprintf("OS crash: redis-server kill -9, its AOF cut back to one second earlier (%d of %d bytes dropped), restarted (down %s)",
			cut, before, time.Since(start).Round(time.Millisecond)), err
	}})
	rn.runFaults(fs)
	if cut <= 0 {
		t.Errorf("the crash dropped no bytes of the append-only file: the run tested nothing")
	}

	// Every acknowledged start: its session, gone, or another start's.
	var lost, reused []string
	lostRoots := map[string]bool{}
	rn.mu.Lock()
	starts := rn.starts
	rn.starts, rn.roots = nil, nil
	rn.mu.Unlock()
	for _, s := range starts {
		if s.err != nil {
			rn.starts = append(rn.starts, s) // the audit reports it
			continue
		}
		m, err := rn.store.SessionMeta(ctx, s.root)
		switch {
		case errors.Is(err, joinstore.ErrNotFound):
			lost = append(lost, fmt.Sprintf("%s (session %d)", s.key, s.root.RootPid))
			lostRoots[s.root.String()] = true
			continue
		case err != nil:
			t.Fatalf("session %s: %v", s.root, err)
		case m.StartKey == "":
			t.Errorf("start %s: session %s names no start, so a client cannot tell whether it is its own", s.key, s.root)
		case m.StartKey != s.key:
			reused = append(reused, fmt.Sprintf("%s → %d now %s", s.key, s.root.RootPid, m.StartKey))
			continue
		}
		rn.starts = append(rn.starts, s)
		rn.roots = append(rn.roots, s.root)
	}
	sort.Strings(lost)
	settled := rn.settle()
	fl.scrapeAll()
	fl.stop(10 * time.Second)
	rep := rn.audit()
	// A lost start's root pid may still be in the owner's index (the cut
	// kept the allocation, not the session): that entry is the lost start's,
	// not an extra session; any other extra session is still a finding.
	kept := rep.findings[:0]
	for _, f := range rep.findings {
		if f.Kind == KindExtraSession && lostRoots[f.Session] {
			continue
		}
		kept = append(kept, f)
	}
	rep.findings = kept
	rn.print(rep, settled, []string{
		"redis persistence\tappendonly yes, appendfsync everysec (replicas run with --accept-aof-everysec)",
		"AOF bytes dropped by the crash\t" + strconv.FormatInt(cut, 10),
		"acknowledged starts lost\t" + fmt.Sprintf("%d (session gone; a client asking for it gets not-found)", len(lost)),
		"their ids given to later starts\t" + fmt.Sprintf("%d (the session names another startKey: not this start)", len(reused)),
	})
	if len(lost)+len(reused) > 0 {
		t.Logf("lost: %s", strings.Join(lost, ", "))
		t.Logf("reused: %s", strings.Join(reused, ", "))
	}
}

// incrAOF is the newest incremental append-only file in dir (Redis 7's
// multi-part AOF: appendonly.aof.N.incr.aof).
func incrAOF(dir string) (string, error) {
	m, err := filepath.Glob(filepath.Join(dir, "*.incr.aof"))
	if err != nil || len(m) == 0 {
		return "", fmt.Errorf("no incremental AOF in %s (%v)", dir, err)
	}
	seq := func(f string) int {
		parts := strings.Split(filepath.Base(f), ".")
		if len(parts) < 4 {
			return -1
		}
		n, _ := strconv.Atoi(parts[len(parts)-3])
		return n
	}
	sort.Slice(m, func(i, j int) bool { return seq(m[i]) < seq(m[j]) })
	return m[len(m)-1], nil
}
