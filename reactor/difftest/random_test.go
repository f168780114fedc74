package difftest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"
)

// Knobs of the random differential test (docs/testing.md): how many cases,
// the seed (case i is generated from the seed and i alone), one case only,
// and how many cases run at once.
const (
	envCases   = "DIFFTEST_CASES"
	envSeed    = "DIFFTEST_SEED"
	envCase    = "DIFFTEST_CASE"
	envWorkers = "DIFFTEST_WORKERS"
	envVerbose = "DIFFTEST_VERBOSE"
)

// quickCases is what `make test` runs: about 20 s with -race on two busy
// cores.
const quickCases = 500

func intKnob(t *testing.T, name string, def int64) int64 {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a non-negative integer", name, v)
	}
	return n
}

// Random orchestrations within the registry's rules, with random outcomes,
// end the same under the replicas as under the Runner.
func TestRandomAgree(t *testing.T) {
	n := intKnob(t, envCases, quickCases)
	seed := uint64(intKnob(t, envSeed, 1))
	workers := int(intKnob(t, envWorkers, 4))
	first, last := int64(0), n
	if os.Getenv(envCase) != "" {
		first = intKnob(t, envCase, 0)
		last = first + 1
	}
	e := newEnv(t)
	ch := make(chan kase)
	go func() {
		defer close(ch)
		for i := first; i < last; i++ {
			r := rand.New(rand.NewPCG(seed, uint64(i)))
			ch <- generate(r, fmt.Sprintf("random-%d", i))
		}
	}()
	origin := func(k kase) string {
		var i int64
		fmt.Sscanf(k.name, "random-%d", &i)
		return fmt.Sprintf("seed %d, case %d; rerun it alone: %s=%d %s=%d make difftest", seed, i, envSeed, seed, envCase, i)
	}
	var st stats
	start := time.Now()
	e.checkAll(context.Background(), ch, workers, origin, func(msg string) { t.Error(msg) }, &st)
	t.Logf("seed %d: %s in %v", seed, st.String(), time.Since(start).Round(time.Millisecond))
}
