package txmanager

import (
	"context"
	"fmt"
	"testing"

	"github.com/xgr-sidecar/xgr/testenv"
)

// On a 3-master Redis Cluster every transition of a sender touches one
// slot (the sender's hash tag): two senders, queued keys promoted by the
// tick, all final and on chain once.
func TestClusterTwoSenders(t *testing.T) {
	f := newFixtureOn(t, testenv.StartCluster(t, 3).Client(t))
	ctx := context.Background()
	if err := Preload(ctx, f.rdb); err != nil {
		t.Fatal(err)
	}
	for _, idx := range []int{1, 2} {
		f.keyIdx = idx
		m := f.manager(func(c *Config) { c.MaxInFlight = 2 })
		var keys []string
		for i := range 5 {
			k := fmt.Sprintf("cl/%d/%d", idx, i)
			keys = append(keys, k)
			if _, err := m.Submit(ctx, request(k)); err != nil {
				t.Fatal(err)
			}
		}
		recs := f.settle(m, false, keys...)
		f.exactlyOnce(m.Sender(), recs)
	}
}
