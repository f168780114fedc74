package proccpu

import (
	"runtime"
	"testing"
	"time"
)

// Used grows while the process computes, by about the time it computed.
func TestUsedGrowsWithWork(t *testing.T) {
	before := Used()
	if before <= 0 {
		t.Fatalf("Used() = %v before any work: want > 0 (getrusage failed?)", before)
	}
	// Spin until 30 ms of CPU are counted (a loaded machine gives the
	// loop less CPU than wall time, so the wall clock cannot say when);
	// Used must get there, and not count more than the wall time allows.
	start, x := time.Now(), 0
	for Used()-before < 30*time.Millisecond {
		if time.Since(start) > 20*time.Second {
			t.Fatalf("20s of busy loop (%d rounds) counted only %v of CPU", x, Used()-before)
		}
		for i := 0; i < 1000; i++ {
			x++
		}
	}
	wall := time.Since(start)
	if d := Used() - before; d > wall*time.Duration(runtime.NumCPU())+50*time.Millisecond {
		t.Fatalf("%v of busy loop counted %v of CPU, more than %d cores could give", wall, d, runtime.NumCPU())
	}
}
