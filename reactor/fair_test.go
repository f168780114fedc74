package reactor

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// Issue 40 (fair scheduling across owners): a replica with two slots
// finds 40 due sessions of a flooding owner, due before one session of
// another owner. It starts the other owner's session second, not after
// the flood's 40: the second slot goes to the owner running none.
func TestManagerSharesSlotsAcrossOwners(t *testing.T) {
	o, err := registry.Parse([]byte(`{"id":"one","structure":{"A":{"rule":"x"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	srv := testenv.StartRedis(t)
	store := joinstore.New(srv.Client(), joinstore.Config{SessionTTL: time.Hour})
	src := NewStaticSource(o)
	exec, _ := ParseOutcomes([]byte(`{"default":{"result":"valid"}}`))
	ctx := context.Background()
	t1 := time.Now().Add(-time.Minute)
	for i := range 40 {
		if _, err := Start(ctx, store, src, StartRequest{Owner: floodOwner, OstcID: o.ID, Step: "A"}, t1.Add(time.Duration(i)*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Start(ctx, store, src, StartRequest{Owner: victimOwner, OstcID: o.ID, Step: "A"}, t1.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var adopted []joinstore.Root
	m := &Manager{Store: store, Source: src, Exec: &slowExec{inner: exec, delay: 20 * time.Millisecond}, Replica: "r1", Log: discardLog(), MaxRoots: 2,
		Lifecycle: Lifecycle{Adopted: func(r joinstore.Root, _ string, _ int) {
			mu.Lock()
			adopted = append(adopted, r)
			mu.Unlock()
		}}}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { m.Run(runCtx); close(done) }()
	waitFinished(t, store, []joinstore.Root{res.Root}, 20*time.Second)
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	at := slices.Index(adopted, res.Root)
	if at != 1 {
		t.Fatalf("the victim's session was adopted %dth of %d (want 2nd: the first round's two slots go one to each owner)", at+1, len(adopted))
	}
}
