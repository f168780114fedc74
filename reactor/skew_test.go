package reactor

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// A replica whose clock is ten minutes slow still runs what is due: due
// times and leases are Redis's, so it reads them on Redis's clock, and it
// says that its clock is off (issue #29 point 4).
func TestSlowReplicaClockRunsOnRedisClock(t *testing.T) {
	o, err := registry.Parse([]byte(`{"id":"s","structure":{"A":{"rule":"0x0000000000000000000000000000000000000001","onValid":{"spawns":["B"]}},"B":{"rule":"0x0000000000000000000000000000000000000001"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	store := joinstore.New(testenv.StartRedis(t).Client(), joinstore.Config{SessionTTL: time.Hour, ServerClock: true})
	ctx := context.Background()
	res, err := store.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A", Now: time.Now(), OstcHash: o.Hash.Hex()})
	if err != nil {
		t.Fatal(err)
	}
	var logs lockedBuffer
	m := &Manager{Store: store, Source: staticSource{o}, Exec: &flaky{}, Replica: "slow", Poll: 20 * time.Millisecond,
		Log: slog.New(slog.NewTextHandler(&logs, nil)), wall: func() time.Time { return time.Now().Add(-10 * time.Minute) }}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.Run(runCtx) }()
	defer func() { stop(); <-done }()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		meta, err := store.SessionMeta(ctx, res.Root)
		if err != nil {
			t.Fatal(err)
		}
		if meta.Status == joinstore.SessionFinished {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a replica 10 minutes slow ran nothing: %+v\n%s", meta, logs.String())
		}
	}
	if !strings.Contains(logs.String(), "clock differs from Redis") || !strings.Contains(logs.String(), "redis_ahead_by=10m0") {
		t.Errorf("no warning about the replica's clock:\n%s", logs.String())
	}
}

// lockedBuffer is a bytes.Buffer a logger may write while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
