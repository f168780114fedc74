package main

import (
	"syscall"
	"time"
)

// processCPU is the user and system CPU time this process has used (the
// main module's internal/proccpu, which this separate module cannot import).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
