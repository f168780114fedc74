//go:build xgrfailpoint

package failpoint

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Enabled reports whether failpoints are compiled in.
const Enabled = true

// point is one armed failpoint: kill at hit nth, or with probability p.
type point struct {
	nth  int
	p    float64
	hits int
}

var (
	mu     sync.Mutex
	points map[string]*point
)

func init() {
	var err error
	if points, err = parse(os.Getenv("XGR_FAILPOINTS")); err != nil {
		fmt.Fprintln(os.Stderr, "XGR_FAILPOINTS:", err)
		os.Exit(2)
	}
}

// parse reads a failpoint list (see the package doc).
func parse(s string) (map[string]*point, error) {
	out := map[string]*point{}
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		name, v, ok := strings.Cut(item, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("%q: want NAME=N or NAME=P", item)
		}
		if n, err := strconv.Atoi(v); err == nil && n >= 1 {
			out[name] = &point{nth: n}
			continue
		}
		p, err := strconv.ParseFloat(v, 64)
		if err != nil || p <= 0 || p >= 1 {
			return nil, fmt.Errorf("%q: want a hit number ≥ 1 or a probability between 0 and 1", item)
		}
		out[name] = &point{p: p}
	}
	return out, nil
}

// Hit kills the process with SIGKILL when the point name is armed and
// due.
func Hit(name string) {
	mu.Lock()
	pt := points[name]
	kill := false
	if pt != nil {
		pt.hits++
		kill = pt.nth > 0 && pt.hits == pt.nth || pt.p > 0 && rand.Float64() < pt.p
	}
	mu.Unlock()
	if kill {
		fmt.Fprintf(os.Stderr, "failpoint %s: kill -9\n", name)
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal arrives
	}
}
