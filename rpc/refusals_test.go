package rpc

import (
	"fmt"
	"testing"
	"time"
)

// A signer's budget: burst refusals, one more per period, a given-back
// token restores it; the table of signers stays bounded whatever the
// number of keys.
func TestRefusalBudget(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	r := newRefusals(2, time.Second, func() time.Time { return now })
	if got := takes(r, "a", 3); got != 2 {
		t.Fatalf("a burst of 2 allows %d", got)
	}
	if w := r.wait("a"); w != time.Second {
		t.Fatalf("wait %s, want 1s", w)
	}
	r.give("a")
	if got := takes(r, "a", 2); got != 1 {
		t.Fatalf("a given-back token allows %d", got)
	}
	now = now.Add(1500 * time.Millisecond)
	if got := takes(r, "a", 2); got != 1 {
		t.Fatalf("1.5 periods allow %d", got)
	}
	if !r.take("b") {
		t.Fatal("another signer has its own budget")
	}
	for i := 0; i < 3*maxSigners; i++ {
		r.take(fmt.Sprint(i))
	}
	if n := len(r.signers); n > maxSigners {
		t.Fatalf("%d signers remembered, at most %d", n, maxSigners)
	}
}

// takes tries n takes of signer and counts those that succeed.
func takes(r *refusals, signer string, n int) int {
	ok := 0
	for i := 0; i < n; i++ {
		if r.take(signer) {
			ok++
		}
	}
	return ok
}

// Many new keys cannot reset a signer's budget (a review found that
// evicting a quarter of the table at random gave an exhausted signer its
// tokens back): buckets with refusals outstanding are never forgotten,
// and while the table is full of them a new signer is refused.
func TestManyKeysDoNotResetABudget(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	r := newRefusals(2, time.Minute, func() time.Time { return now })
	takes(r, "victim", 2)
	for i := 0; i < 3*maxSigners; i++ {
		r.take(fmt.Sprint("k", i)) // each leaves its bucket not full
	}
	if r.take("victim") {
		t.Fatal("the exhausted signer got a token back after many new keys")
	}
	if n := len(r.signers); n > maxSigners {
		t.Fatalf("%d signers remembered, at most %d", n, maxSigners)
	}
	if r.take("newcomer") {
		t.Fatal("a new signer was let in while every remembered bucket has refusals outstanding")
	}
	now = now.Add(2 * time.Minute) // every bucket refills: forgotten, room again
	if !r.take("newcomer") {
		t.Fatal("a new signer is refused after the buckets refilled")
	}
}
