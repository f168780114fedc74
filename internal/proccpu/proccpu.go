// Package proccpu reads the CPU time this process has used, so that
// benchmarks can report the client's CPU per step next to Redis's: on a
// machine shared with Redis, CPU per step is what limits throughput, and it
// moves far less with the machine's load than steps per second do.
package proccpu

import (
	"syscall"
	"time"
)

// Used returns the user and system CPU time the process has used so far
// (all its threads), or 0 where the platform cannot tell.
func Used() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
