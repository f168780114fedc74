package indexer

import (
	"context"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// The replica that takes up indexing records its trigger finality rule in
// the index (for xgr index status without the config); the replica that
// takes over from it records its own.
func TestIndexingReplicaRecordsItsFinality(t *testing.T) {
	sim := testenv.StartSim(t)
	reg, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	rdb := testenv.StartRedis(t).Client()
	idx := indexstore.New(rdb, 1337)
	ctx := context.Background()
	waitRecord := func(replica string, confirmations uint64) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			r, ok, err := idx.Finality(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if ok && r.Replica == replica {
				if r.Mode != "confirmations" || r.Confirmations != confirmations || time.Since(r.At) > time.Minute {
					t.Fatalf("recorded %+v, want confirmations %d of %s", r, confirmations, replica)
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("no record of %s: %+v %v", replica, r, ok)
			}
		}
	}
	var logA, logB syncBuffer
	a := replicaService(t, sim, rdb, reg, "replica-a", &logA) // triggerConfig: 3 confirmations
	ctxA, stopA := context.WithCancel(ctx)
	doneA := make(chan error, 1)
	go func() { doneA <- a.Run(ctxA) }()
	waitRecord("replica-a", 3)
	stopA()
	if err := <-doneA; err != nil {
		t.Fatal(err)
	}
	b := replicaService(t, sim, rdb, reg, "replica-b", &logB)
	b.Starter.Confirmations = 1
	ctxB, stopB := context.WithCancel(ctx)
	defer stopB()
	go func() { _ = b.Run(ctxB) }()
	waitRecord("replica-b", 1)
}
