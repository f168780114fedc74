//go:build race

package main

// raceEnabled: the tests run with the race detector, so the binary they
// build has it too.
const raceEnabled = true
