package proccpu

import (
	"testing"
	"time"
)

// Used grows while the process computes, by about the time it computed.
func TestUsedGrowsWithWork(t *testing.T) {
	before := Used()
	if before <= 0 {
		t.Fatalf("Used() = %v before any work: want > 0 (getrusage failed?)", before)
	}
	start, x := time.Now(), 0
	for time.Since(start) < 50*time.Millisecond {
		x++
	}
	d := Used() - before
	if d < 20*time.Millisecond || d > 2*time.Second {
		t.Fatalf("50ms of busy loop (%d rounds) used %v of CPU: want 20ms..2s", x, d)
	}
}
