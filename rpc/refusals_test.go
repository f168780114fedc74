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
	if !r.take("a") || !r.take("a") || r.take("a") {
		t.Fatal("a burst of 2 allows exactly 2")
	}
	if w := r.wait("a"); w != time.Second {
		t.Fatalf("wait %s, want 1s", w)
	}
	r.give("a")
	if !r.take("a") || r.take("a") {
		t.Fatal("a given-back token is one more")
	}
	now = now.Add(1500 * time.Millisecond)
	if !r.take("a") || r.take("a") {
		t.Fatal("1.5 periods earn one token")
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
