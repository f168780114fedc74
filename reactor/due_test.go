package reactor

import (
	"context"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// A due time is met within the poll interval, whatever the root lease: a
// chain whose steps wait 200 ms each (it used to commit every RootLease/3,
// 3.3 s with the default lease) runs each step soon after it is due.
func TestShortWaitsAreNotStretched(t *testing.T) {
	o, err := registry.Parse([]byte(`{"id": "waits", "structure": {
  "S1": {"rule": "x", "onValid": {"spawns": ["S2"]}}, "S2": {"rule": "x", "onValid": {"spawns": ["S3"]}},
  "S3": {"rule": "x", "onValid": {"spawns": ["S4"]}}, "S4": {"rule": "x"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	src := NewStaticSource(o)
	exec, _ := ParseOutcomes([]byte(`{"default": {"result": "valid", "waitSec": 0.2}}`))
	type claim struct {
		at  time.Time
		pid string
	}
	claims := make(chan claim, 16)
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{Store: store, Source: src, Exec: exec, Replica: "r", Poll: 50 * time.Millisecond, Log: discardLog(),
		OnEvent: func(_ joinstore.Root, e Event) {
			if e.Type == "claimed" {
				claims <- claim{time.Now(), e.Pid}
			}
		}}
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	roots := startMany(t, store, src, o, 1)
	waitFinished(t, store, roots, 20*time.Second)
	close(claims)
	var prev time.Time
	for c := range claims {
		if !prev.IsZero() {
			// due 200 ms after the previous step committed; allow the poll
			// interval and scheduling slack, far below RootLease/3.
			if gap := c.at.Sub(prev); gap > 200*time.Millisecond+m.Poll+400*time.Millisecond {
				t.Errorf("%s claimed %s after the previous claim; its wait was 200 ms", c.pid, gap)
			}
		}
		prev = c.at
	}
}
