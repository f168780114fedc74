package evidence

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/testenv"
)

// usedMemory is INFO memory's used_memory.
func usedMemory(t testing.TB, rdb *redis.Client) int64 {
	info := rdb.Info(context.Background(), "memory").Val()
	for _, l := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(l, "used_memory:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	t.Fatal("no used_memory in INFO")
	return 0
}

// BenchmarkBundleBytes stores the demo's order-step bundle (plaintext,
// owner grant and one auditor grant; and encrypted with the test sealer)
// and reports Redis's memory per bundle: MEMORY USAGE of the bundle key,
// of its grant keys and the growth of used_memory per stored step.
//
//	go test -run '^$' -bench BundleBytes -benchtime 2000x ./evidence
func BenchmarkBundleBytes(b *testing.B) {
	for _, enc := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "encrypted"}[enc], func(b *testing.B) {
			rdb := testenv.StartRedis(b).Client()
			ctx := context.Background()
			s, err := New(rdb, Config{Grants: grant.New(rdb), Sealer: &fakeSealer{}})
			if err != nil {
				b.Fatal(err)
			}
			p := Policy{Encrypt: enc, Grants: []Reader{{Address: auditor, Rights: grant.Read}}}
			now := time.Now()
			base := usedMemory(b, rdb)
			var body int
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				st, err := s.Put(ctx, orderBundle(int64(i+1)), p, now)
				if err != nil || !st.Created {
					b.Fatalf("%+v %v", st, err)
				}
				body = st.Bytes
			}
			b.StopTimer()
			grown := usedMemory(b, rdb) - base
			st, _ := s.Put(ctx, orderBundle(1), p, now)
			bundle := rdb.MemoryUsage(ctx, Key(owner, 7, 1)).Val()
			grants := rdb.MemoryUsage(ctx, grant.Key(st.RID, grant.ScopeLog, owner)).Val() + rdb.MemoryUsage(ctx, grant.Key(st.RID, grant.ScopeLog, auditor)).Val()
			b.ReportMetric(float64(body), "body-B")
			b.ReportMetric(float64(bundle), "bundle-key-B")
			b.ReportMetric(float64(grants), "grant-keys-B")
			b.ReportMetric(float64(grown)/float64(b.N), "used-B/step")
			if testing.Verbose() {
				fmt.Printf("%s: body %d B, bundle key %d B, 2 grant keys %d B, used_memory +%d B per step\n", b.Name(), body, bundle, grants, grown/int64(b.N))
			}
		})
	}
}
