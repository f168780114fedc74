package reactor

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// cutProxy forwards connections to Redis. Armed with a budget, it passes
// that many more bytes from the client and then cuts the connection (both
// directions): Redis sees a prefix of what the client sent. Armed with
// dropReply, it passes the request whole and cuts before Redis's answer
// reaches the client (the replica dies right after sending).
type cutProxy struct {
	ln        net.Listener
	upstream  string
	budget    atomic.Int64 // bytes the client may still send; < 0: no cut
	dropReply atomic.Bool
	sent      atomic.Int64 // bytes the client sent while armed
	mu        sync.Mutex
	conns     []net.Conn
}

func startCutProxy(t *testing.T, upstream string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, upstream: upstream}
	p.budget.Store(-1)
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, c := range p.conns {
			c.Close()
		}
	})
	go p.serve()
	return p
}

func (p *cutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.upstream)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		cut := func() { c.Close(); up.Close() }
		go func() { // client -> Redis, cut after the budget
			buf := make([]byte, 4096)
			inTx := false
			for {
				n, err := c.Read(buf)
				chunk := buf[:n]
				if b := p.budget.Load(); n > 0 && b >= 0 {
					if !inTx {
						// The budget counts from the transaction's MULTI
						// (a connection's handshake passes).
						i := bytes.Index(chunk, []byte("*1\r\n$5\r\nmulti\r\n"))
						if i < 0 {
							i = len(chunk)
						} else {
							inTx = true
						}
						if _, werr := up.Write(chunk[:i]); werr != nil {
							cut()
							return
						}
						chunk = chunk[i:]
					}
					fwd := min(int64(len(chunk)), b)
					p.budget.Add(-fwd)
					p.sent.Add(int64(len(chunk)))
					if _, werr := up.Write(chunk[:fwd]); werr != nil {
						cut()
						return
					}
					if fwd < int64(len(chunk)) {
						// Let Redis read what it got before the cut.
						time.Sleep(20 * time.Millisecond)
						cut()
						return
					}
				} else if n > 0 {
					if _, werr := up.Write(chunk); werr != nil {
						cut()
						return
					}
				}
				if err != nil {
					cut()
					return
				}
			}
		}()
		go func() { // Redis -> client, dropped when armed so
			buf := make([]byte, 4096)
			for {
				n, err := up.Read(buf)
				if n > 0 && p.dropReply.Load() {
					time.Sleep(20 * time.Millisecond)
					cut()
					return
				}
				if n > 0 {
					if _, werr := c.Write(buf[:n]); werr != nil {
						cut()
						return
					}
				}
				if err != nil {
					cut()
					return
				}
			}
		}()
	}
}

// A step's commit and its bundle are one: whatever part of the commit's
// request reaches Redis before the replica's connection is cut (the
// replica dies at any byte of it), or when the request arrives whole and
// the answer is lost (it dies right after sending), the step is committed
// and has its bundle, or it is not committed and has none; no bundle is
// ever left staged. (Bundles written after the commit in a second round
// trip, as before, lose the bundle at every cut between the two.)
func TestCommitAndBundleSurviveAnyCut(t *testing.T) {
	srv := testenv.StartRedis(t)
	direct := srv.Client()
	store := joinstore.New(direct, joinstore.Config{SessionTTL: time.Hour})
	ev := bundleStore(t, direct)
	proxy := startCutProxy(t, srv.Addr)
	o := loadExample(t, "nested_join.json")
	table := Table(o)
	ctx := context.Background()
	now := time.UnixMilli(1_800_000_000_000)

	// attempt starts a session, claims its root and commits it through
	// the proxy armed by arm; it reports whether the commit applied.
	attempt := func(arm func()) (root joinstore.Root, committed bool, err error) {
		res, err := store.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: o.Steps[0].ID, Now: now, OstcHash: o.Hash.Hex()})
		if err != nil {
			t.Fatal(err)
		}
		cl, err := store.Claim(ctx, res.Root, now, time.Minute, "r1", table, []int64{1})
		if err != nil || len(cl) != 1 {
			t.Fatalf("claim: %v %v", cl, err)
		}
		cut := redis.NewClient(&redis.Options{Addr: proxy.ln.Addr().String(), MaxRetries: -1, PoolSize: 1})
		defer cut.Close()
		if err := cut.Ping(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		io := &sessionIO{store: joinstore.New(cut, joinstore.Config{SessionTTL: time.Hour}), root: res.Root, orch: o, table: table,
			clock: func() time.Time { return now }, log: discardLog(), bundles: ev}
		r := result{claim: cl[0], res: Result{Valid: true}, input: map[string]any{}, inputRaw: cl[0].ResumePlain}
		commit, _, _ := commitFor(cl[0], o.Step(cl[0].ResumeStep), payloadChecks{store.CheckPayload, store.CheckPayloadSize}, r, now, "r1")
		cmd := cmdCommit{Claim: cl[0], Commit: commit, Bundle: bundleFor(res.Root, o.Step(cl[0].ResumeStep), r, commit, now)}
		cmd.Bundle.Bundle.Executed = 1
		arm()
		in := io.carry(ctx, cmd).(inCommitted)
		proxy.budget.Store(-1)
		proxy.dropReply.Store(false)
		st, err := direct.HGet(ctx, fmt.Sprintf("xgr:{%s}:p:1", res.Root), "status").Result()
		if err != nil {
			t.Fatal(err)
		}
		return res.Root, st == "done", in.Err
	}
	// check holds the invariant for one attempt.
	check := func(what string, root joinstore.Root, committed bool) {
		t.Helper()
		key := evidence.Key(owner, root.RootPid, 1)
		f, err := direct.HGetAll(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		if f["pending"] != "" {
			t.Fatalf("%s: bundle left staged: %v", what, f)
		}
		h, herr := ev.Head(ctx, owner, root.RootPid, 1)
		switch {
		case committed && (herr != nil || h.Status != "done" || f["body"] == ""):
			t.Fatalf("%s: the step is committed, its bundle %v (%v)", what, f, herr)
		case !committed && len(f) != 0:
			t.Fatalf("%s: the step is not committed, a bundle is stored: %v", what, f)
		}
		if committed {
			// Its owner grant is there too (written in the same
			// transaction, or before it).
			g, err := grant.New(direct).Get(ctx, h.RID, grant.ScopeLog, owner)
			if err != nil || g == nil || !g.IsOwner {
				t.Fatalf("%s: the committed bundle's owner grant: %+v %v", what, g, err)
			}
		}
	}

	// The first commit on a fresh server finds commit_step not loaded
	// (NOSCRIPT: nothing applied), loads it and sends the transaction
	// again.
	root, committed, err := attempt(func() {})
	if err != nil || !committed {
		t.Fatalf("first commit: committed %v, %v", committed, err)
	}
	check("first commit (NOSCRIPT, loaded, again)", root, committed)

	// The whole request, measured.
	proxy.sent.Store(0)
	root, committed, err = attempt(func() { proxy.budget.Store(1 << 40) })
	if err != nil || !committed {
		t.Fatalf("uncut commit: committed %v, %v", committed, err)
	}
	check("uncut", root, committed)
	total := proxy.sent.Load()
	if total < 200 {
		t.Fatalf("the commit's request is %d bytes; the proxy did not see it", total)
	}

	// Cut after every k bytes (every byte near the ends, where the
	// commands' boundaries are, a stride in between). Later sessions have
	// longer ids, so their requests are a few bytes longer: the cuts go
	// past the measured end.
	var applied, refused int
	for k := int64(0); k <= total+64; {
		root, committed, err := attempt(func() { proxy.budget.Store(k) })
		check(fmt.Sprintf("cut at byte %d of %d", k, total), root, committed)
		if committed {
			applied++
		} else {
			refused++
			if err == nil {
				t.Fatalf("cut at byte %d: not committed, and the replica was told it was", k)
			}
		}
		switch {
		case k < 64 || k > total-160:
			k++
		default:
			k += 31
		}
	}
	if applied == 0 || refused == 0 {
		t.Fatalf("applied %d, refused %d: want cuts on both sides of EXEC", applied, refused)
	}

	// The request arrives whole, the answer is lost: the replica never
	// hears of its commit, which is there with its bundle.
	root, committed, err = attempt(func() { proxy.dropReply.Store(true) })
	if err == nil || !committed {
		t.Fatalf("answer lost: committed %v, told %v; want committed and an error", committed, err)
	}
	check("answer lost", root, committed)
	t.Logf("commit request %d bytes; %d cuts applied nothing, %d applied both", total, refused, applied)
}
