package reactor

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// A held session is resumed, out of the replicas' root index, and its root
// lease stays with the holder beyond one lease period while held; after
// release the lease expires and a replica may take it.
func TestHolderHold(t *testing.T) {
	ctx := context.Background()
	store := joinstore.New(testenv.StartRedis(t).Client(), joinstore.Config{SessionTTL: time.Hour})
	now := time.Now()
	res, err := store.Start(ctx, joinstore.StartRequest{Owner: owner, OstcID: "flow", StartStep: "A1", Now: now, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	root := res.Root
	const lease = 300 * time.Millisecond
	release, err := Holder{Store: store, Name: "simulate-test", Lease: lease}.Hold(ctx, root, now)
	if err != nil {
		t.Fatal(err)
	}
	p, err := store.Process(ctx, root, 1)
	if err != nil || p.Paused {
		t.Errorf("held session's root process: %+v, %v; want resumed", p, err)
	}
	due, err := store.RootsDue(ctx, now.Add(time.Hour), 100)
	if err != nil || len(due) != 0 {
		t.Errorf("roots due: %v, %v; want none (unindexed)", due, err)
	}
	time.Sleep(2 * lease) // renewed at a third of the lease
	if _, err := store.AcquireRoot(ctx, root, "replica", lease); !errors.Is(err, joinstore.ErrRootHeld) {
		t.Errorf("a replica took the held session's lease: %v", err)
	}
	release()
	time.Sleep(lease + 100*time.Millisecond)
	if _, err := store.AcquireRoot(ctx, root, "replica", lease); err != nil {
		t.Errorf("after release and expiry: %v", err)
	}
}

// A session another holds cannot be held: nothing is changed.
func TestHolderRefusesAHeldSession(t *testing.T) {
	ctx := context.Background()
	store := joinstore.New(testenv.StartRedis(t).Client(), joinstore.Config{SessionTTL: time.Hour})
	now := time.Now()
	res, err := store.Start(ctx, joinstore.StartRequest{Owner: owner, OstcID: "flow", StartStep: "A1", Now: now, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.AcquireRoot(ctx, res.Root, "replica", time.Minute); err != nil {
		t.Fatal(err)
	}
	_, err = Holder{Store: store, Name: "simulate-test"}.Hold(ctx, res.Root, now)
	if !errors.Is(err, joinstore.ErrRootHeld) || err.Error() != "hold session "+res.Root.String()+" on the shared Redis: "+joinstore.ErrRootHeld.Error() {
		t.Errorf("hold a held session: %v", err)
	}
	if p, err := store.Process(ctx, res.Root, 1); err != nil || !p.Paused {
		t.Errorf("refused hold changed the session: %+v, %v", p, err)
	}
}
