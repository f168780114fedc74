package txmanager

import (
	"context"
	"errors"
	"testing"
)

// A replica that stops at any boundary of a submission — nonce reserved,
// bytes signed, bytes recorded, bytes broadcast — leaves the key to the
// replica that takes the sender's lease over: the key is on chain exactly
// once, under the nonce it reserved, and the retry of the submission on
// the second replica returns that record.
func TestCrashAtEveryBoundaryExactlyOnce(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	recs := map[string]Record{}
	for _, stage := range []string{"reserved", "signed", "recorded", "broadcast"} {
		t.Run(stage, func(t *testing.T) {
			key := "crash/" + stage
			var reserved uint64
			first := f.manager(func(c *Config) {
				c.crash = func(s, k string) bool { return s == stage && k == key }
			})
			// The first replica holds the lease when it stops.
			if rep, err := first.Tick(ctx); err != nil || !rep.Holder {
				t.Fatalf("first replica's tick: %+v %v", rep, err)
			}
			r, err := first.Submit(ctx, request(key))
			if !errors.Is(err, errCrashed) {
				t.Fatalf("submit on the first replica: %+v %v; want it stopped at %s", r, err, stage)
			}
			reserved = r.Nonce
			second := f.manager(nil)
			defer second.release() // the next subtest's first replica takes the lease at once
			again, err := second.Submit(ctx, request(key))
			if err != nil {
				t.Fatal(err)
			}
			if !again.HasNonce || again.Nonce != reserved {
				t.Fatalf("the retry on the second replica: %+v; want the reserved nonce %d", again, reserved)
			}
			recs[key] = f.settle(second, false, key)[key]
			if recs[key].Nonce != reserved || recs[key].Attempts != 1 {
				t.Fatalf("final record: %+v; want nonce %d, one attempt", recs[key], reserved)
			}
			if stage == "reserved" || stage == "signed" {
				if rep, _ := second.Tick(ctx); rep.Holder && rep.Recovered != 0 {
					t.Fatalf("a final key recovered again: %+v", rep)
				}
			}
		})
	}
	f.exactlyOnce(f.anvil.Address(f.keyIdx), recs)
}

// A replica that stops after signing a bump, or after recording it, leaves
// one transaction on chain for the key all the same.
func TestCrashDuringBumpExactlyOnce(t *testing.T) {
	for _, stage := range []string{"bump-signed", "bump-recorded"} {
		t.Run(stage, func(t *testing.T) {
			f := newFixture(t)
			ctx := context.Background()
			f.automine(false)
			key := "bump/" + stage
			first := f.manager(func(c *Config) {
				c.BumpAfterBlocks = 1
				c.crash = func(s, k string) bool { return s == stage }
			})
			if _, err := first.Submit(ctx, request(key)); err != nil {
				t.Fatal(err)
			}
			first.mustTick(t)
			// The attempt cannot be mined: the next base fee is far above its fee cap.
			f.rpc("anvil_setNextBlockBaseFeePerGas", "0x"+gwei(50).Text(16))
			f.anvil.Mine(t, 1)
			if _, err := first.Tick(ctx); !errors.Is(err, errCrashed) {
				t.Fatalf("first replica's tick: %v; want it stopped at %s", err, stage)
			}
			second := f.manager(func(c *Config) { c.BumpAfterBlocks = 1 })
			recs := f.settle(second, true, key)
			if stage == "bump-recorded" && recs[key].Attempts < 2 {
				t.Fatalf("the recorded bump is lost: %+v", recs[key])
			}
			f.exactlyOnce(second.Sender(), recs)
		})
	}
}
