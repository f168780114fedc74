package txmanager

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/testenv"
)

// lostReply is a go-redis hook that, once armed, runs the next call of one
// script twice and answers with the second reply: what the caller sees when
// the first reply is lost on a cut connection and go-redis sends the call
// again.
type lostReply struct {
	sha   string
	armed atomic.Bool
	fired atomic.Int32
}

func (h *lostReply) DialHook(next redis.DialHook) redis.DialHook { return next }

// hit says whether one of cmds runs the script, disarming the hook.
func (h *lostReply) hit(cmds ...redis.Cmder) bool {
	for _, c := range cmds {
		a := c.Args()
		if len(a) > 1 && a[0] == "evalsha" && a[1] == h.sha && h.armed.CompareAndSwap(true, false) {
			h.fired.Add(1)
			return true
		}
	}
	return false
}

func (h *lostReply) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if h.hit(cmd) {
			_ = next(ctx, cmd) // the reply that was lost
		}
		return next(ctx, cmd)
	}
}

func (h *lostReply) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if h.hit(cmds...) {
			_ = next(ctx, cmds)
		}
		return next(ctx, cmds)
	}
}

// TestLostSubmitReplyIsSignedByItsCaller: the reply of the submit that
// reserved a nonce is lost and the re-sent call answers "exists" with the
// record still reserved. The caller signs and sends it at once; before, it
// left the nonce unsigned until the lease holder's ReserveTimeout (10 s by
// default) and every later execution of the sender waited behind it.
func TestLostSubmitReplyIsSignedByItsCaller(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		f := newFixtureOn(t, rdb)
		ctx := context.Background()
		m := f.manager(func(c *Config) { c.ReserveTimeout = time.Hour })
		// The hook needs the script loaded (EVALSHA runs it) and the
		// sender synced (else submit answers UNSYNCED).
		if err := Preload(ctx, rdb); err != nil {
			t.Fatal(err)
		}
		if err := m.syncNonce(ctx, ""); err != nil {
			t.Fatal(err)
		}
		h := &lostReply{sha: scriptSubmit.Hash()}
		rdb.AddHook(h)
		h.armed.Store(true)
		began := time.Now()
		rec, err := m.Submit(ctx, request("lost/0"))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("signed %v after the submit whose reply was lost began (the stall before: ReserveTimeout, 10 s by default)", time.Since(began).Round(time.Millisecond))
		if h.fired.Load() != 1 {
			t.Fatalf("the submit's reply was not lost (hook fired %d times)", h.fired.Load())
		}
		if rec.State != Signed || !rec.HasNonce || rec.Nonce != 0 {
			t.Fatalf("after a lost submit reply the record is %s (nonce %d); want signed with nonce 0 by its caller", rec.State, rec.Nonce)
		}
		next, err := m.Submit(ctx, request("lost/1"))
		if err != nil || next.State != Signed || next.Nonce != 1 {
			t.Fatalf("the next key: %+v, %v; want signed with nonce 1", next, err)
		}
		// Both are on chain (anvil mines each transaction) without a tick.
		f.mined(rec.TxHash, next.TxHash)
		f.exactlyOnce(m.Sender(), f.settle(m, false, "lost/0", "lost/1"))
	})
}

// TestLostPromoteReplyIsSigned: the reply of a promotion is lost and the
// re-sent call finds the keys it declared already reserved. The tick signs
// them; before, the second answer was empty and their nonces waited for
// ReserveTimeout.
func TestLostPromoteReplyIsSigned(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		f := newFixtureOn(t, rdb)
		ctx := context.Background()
		// sub submits with a cap of 1, so its keys after the first queue;
		// m promotes them with room for all.
		sub := f.manager(func(c *Config) { c.MaxInFlight = 1; c.ReserveTimeout = time.Hour })
		for _, k := range []string{"p", "q/0", "q/1"} {
			if _, err := sub.Submit(ctx, request(k)); err != nil {
				t.Fatal(err)
			}
		}
		m := f.manager(func(c *Config) { c.MaxInFlight = 8; c.LeaseTTL = time.Minute; c.ReserveTimeout = time.Hour })
		if err := Preload(ctx, rdb); err != nil {
			t.Fatal(err)
		}
		h := &lostReply{sha: scriptPromote.Hash()}
		rdb.AddHook(h)
		h.armed.Store(true)
		if _, err := m.Tick(ctx); err != nil {
			t.Fatal(err)
		}
		if h.fired.Load() != 1 {
			t.Fatalf("the promotion's reply was not lost (hook fired %d times)", h.fired.Load())
		}
		for k, n := range map[string]uint64{"q/0": 1, "q/1": 2} {
			r, err := m.Status(ctx, k)
			if err != nil || r.State != Signed || r.Nonce != n {
				t.Errorf("%s after a lost promote reply: %s (nonce %d), %v; want signed with nonce %d in the same tick", k, r.State, r.Nonce, err, n)
			}
		}
		f.exactlyOnce(m.Sender(), f.settle(m, false, "p", "q/0", "q/1"))
	})
}
