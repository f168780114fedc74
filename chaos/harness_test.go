//go:build chaos

package chaos

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// replica is one incarnation of an `xgr run` process. A slot is restarted
// under a new name ("r<slot>.<incarnation>"), so proc_steps tells the
// incarnations apart.
type replica struct {
	name, addr, logPath string
	cmd                 *exec.Cmd
	done                chan struct{}
	exitErr             error
	started             time.Time
	// failpoint is the point that killed it ("" when none did), read from
	// its log before done closes.
	failpoint string

	mu         sync.Mutex
	deliberate bool
	exited     bool
	counts     map[string]float64 // xgr_events_total by type, last scrape
	series     map[string]float64 // other counted series (seriesPrefixes), last scrape
	scraped    time.Time
}

func (r *replica) setDeliberate() {
	r.mu.Lock()
	r.deliberate = true
	r.mu.Unlock()
}

// claimKill marks the replica as deliberately killed unless it has exited
// already (a failpoint killed it and its exit restarts the slot).
func (r *replica) claimKill() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.exited {
		return false
	}
	r.deliberate = true
	return true
}

// markExited records the exit and reports whether it was deliberate.
func (r *replica) markExited() (deliberate bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.exited = true
	return r.deliberate
}

// scrape reads the replica's /metrics (xgr_events_total by type). A
// replica that does not answer within the timeout keeps its last figures.
func (r *replica) scrape(timeout time.Duration) error {
	c := http.Client{Timeout: timeout}
	resp, err := c.Get("http://" + r.addr + "/metrics")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	counts, series := map[string]float64{}, map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	const prefix = `xgr_events_total{type="`
	for sc.Scan() {
		line := sc.Text()
		for _, p := range seriesPrefixes {
			if name, val, ok := strings.Cut(line, " "); ok && strings.HasPrefix(line, p) {
				if v, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
					series[name] = v
				}
			}
		}
		rest, ok := strings.CutPrefix(line, prefix)
		if !ok {
			continue
		}
		typ, val, ok := strings.Cut(rest, `"} `)
		if !ok {
			continue
		}
		if v, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
			counts[typ] = v
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	r.mu.Lock()
	r.counts, r.series, r.scraped = counts, series, time.Now()
	r.mu.Unlock()
	return nil
}

// seriesPrefixes are the metrics besides xgr_events_total that scrape keeps.
var seriesPrefixes = []string{"xgr_trigger_starts_total{"}

// sum adds a series (its exposition name with labels) over the last scrape
// of every incarnation.
func (f *fleet) sum(name string) float64 {
	var n float64
	for _, r := range f.incarnations() {
		r.mu.Lock()
		n += r.series[name]
		r.mu.Unlock()
	}
	return n
}

func (r *replica) count(typ string) float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counts[typ]
}

// fleet runs R replica slots of `xgr run` and restarts them: at once after
// a deliberate kill, after a second when one exits on its own (counted as
// an unexpected exit and reported).
type fleet struct {
	t         *testing.T
	dir       string
	args      []string // xgr run's Redis flags
	ostcs     []string
	outcomes  string
	ctx       context.Context
	cancelCtx context.CancelFunc

	mu         sync.Mutex
	cur        []*replica
	all        []*replica
	incarn     []int
	stopping   bool
	unexpected []string
	wg         sync.WaitGroup

	// opts: extra environment and failpoints (newFleetOpts); fpKills
	// counts the replicas a failpoint killed, fpArmed the incarnations
	// started with it armed, by point.
	opts             fleetOpts
	fpKills, fpArmed map[string]int
}

// fleetOpts are a fleet's extras: environment for every replica
// (XGR_EXECUTOR_KEY, …) and failpoints. Each incarnation starts with one
// of failpoints armed (XGR_FAILPOINTS=NAME=N): the one armed least often
// among those that have killed fewer than killsPerPoint replicas, to die
// at its N-th hit, N drawn from 1..maxHit (rng). One kill per incarnation
// at most, and a bounded number per point, so every boundary gets its
// kills and the run ends; a point hit in batches (the upkeep signing many
// stale reservations at once) cannot kill every replica that tries. A
// failpoint kill is restarted at once and is no unexpected exit.
type fleetOpts struct {
	env           []string
	failpoints    []string
	killsPerPoint int
	maxHit        int
	rng           *rand.Rand
}

func newFleet(t *testing.T, n int, redisArgs, ostcs []string, outcomes string) *fleet {
	return newFleetOpts(t, n, redisArgs, ostcs, outcomes, fleetOpts{})
}

func newFleetOpts(t *testing.T, n int, redisArgs, ostcs []string, outcomes string, opts fleetOpts) *fleet {
	ctx, cancel := context.WithCancel(context.Background())
	f := &fleet{t: t, dir: t.TempDir(), args: redisArgs, ostcs: ostcs, outcomes: outcomes,
		cur: make([]*replica, n), incarn: make([]int, n), ctx: ctx, cancelCtx: cancel, opts: opts, fpKills: map[string]int{}, fpArmed: map[string]int{}}
	t.Cleanup(func() {
		f.stop(5 * time.Second)
		if t.Failed() {
			for _, r := range f.all {
				t.Logf("--- %s log (last lines):\n%s", r.name, tail(r.logPath, 15))
			}
		}
	})
	for slot := range f.cur {
		if err := f.start(slot); err != nil {
			t.Fatal(err)
		}
	}
	go f.scrapeLoop()
	return f
}

// start starts a new incarnation in slot and waits until it serves /metrics.
func (f *fleet) start(slot int) error {
	f.mu.Lock()
	if f.stopping {
		f.mu.Unlock()
		return errors.New("fleet stopping")
	}
	name := fmt.Sprintf("r%d.%d", slot, f.incarn[slot])
	f.incarn[slot]++
	env := append(cleanEnv(), f.opts.env...)
	arm := ""
	for _, p := range f.opts.failpoints {
		if f.fpKills[p] < f.opts.killsPerPoint && (arm == "" || f.fpArmed[p] < f.fpArmed[arm]) {
			arm = p
		}
	}
	if arm != "" {
		f.fpArmed[arm]++
		env = append(env, fmt.Sprintf("XGR_FAILPOINTS=%s=%d", arm, 1+f.opts.rng.Intn(max(1, f.opts.maxHit))))
	}
	f.mu.Unlock()
	port, err := freePort()
	if err != nil {
		return err
	}
	r := &replica{name: name, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		logPath: filepath.Join(f.dir, name+".log"), done: make(chan struct{})}
	logf, err := os.Create(r.logPath)
	if err != nil {
		return err
	}
	args := []string{"--log-format", "json", "--log-level", "info", "run"}
	args = append(args, f.args...)
	for _, o := range f.ostcs {
		args = append(args, "--ostc", o)
	}
	args = append(args, "--outcomes", f.outcomes, "--replica", name, "--listen", r.addr,
		"--root-lease", "2s", "--proc-lease", "2s", "--poll", "50ms", "--require-aof")
	r.cmd = exec.Command(xgrBin, args...)
	r.cmd.Stdout, r.cmd.Stderr = logf, logf
	r.cmd.Env = env
	// The kernel kills the replica when the test process dies.
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := r.cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	r.started = time.Now()
	f.mu.Lock()
	if f.stopping {
		// stop has already signalled the replicas it knew of.
		f.mu.Unlock()
		r.cmd.Process.Kill()
		r.cmd.Wait()
		logf.Close()
		return errors.New("fleet stopping")
	}
	f.cur[slot] = r
	f.all = append(f.all, r)
	f.wg.Add(1)
	f.mu.Unlock()
	go func() {
		defer f.wg.Done()
		r.exitErr = r.cmd.Wait()
		logf.Close()
		r.failpoint = failpointKill(r.logPath)
		deliberate := r.markExited()
		close(r.done)
		f.mu.Lock()
		if r.failpoint != "" {
			f.fpKills[r.failpoint]++
		}
		stopping := f.stopping
		if deliberate {
			f.mu.Unlock()
			return
		}
		if r.failpoint != "" {
			f.mu.Unlock()
			if !stopping {
				f.restart(slot, 200*time.Millisecond)
			}
			return
		}
		if !stopping {
			f.unexpected = append(f.unexpected, fmt.Sprintf("%s exited on its own after %s: %v; last log lines:\n%s",
				r.name, time.Since(r.started).Round(time.Millisecond), r.exitErr, tail(r.logPath, 8)))
		}
		f.mu.Unlock()
		if stopping {
			return
		}
		// A supervisor would restart it; so does the fleet, after a second.
		f.restart(slot, time.Second)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-r.done:
			if r.failpoint != "" {
				return nil // killed at a failpoint: its exit restarts the slot
			}
			return fmt.Errorf("replica %s exited at start: %v\n%s", name, r.exitErr, tail(r.logPath, 10))
		default:
		}
		if r.scrape(500*time.Millisecond) == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("replica %s did not serve /metrics within 20s\n%s", name, tail(r.logPath, 10))
}

// restart starts slot's next incarnation after delay, retrying for 30 s.
func (f *fleet) restart(slot int, delay time.Duration) {
	select {
	case <-time.After(delay):
	case <-f.ctx.Done():
		return
	}
	for attempt := 0; attempt < 30 && f.ctx.Err() == nil; attempt++ {
		if err := f.start(slot); err == nil {
			return
		}
		time.Sleep(time.Second)
	}
}

// failpointKills counts the replicas a failpoint killed and the
// incarnations started with it armed, by point.
func (f *fleet) failpointKills() (kills, armed map[string]int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.fpKills), maps.Clone(f.fpArmed)
}

// failpointKill reads which failpoint killed a replica from the end of
// its log ("failpoint NAME: kill -9", internal/failpoint, among its last
// three lines); "" when none did.
func failpointKill(logPath string) string {
	for _, line := range strings.Split(tail(logPath, 3), "\n") {
		if name, ok := strings.CutPrefix(line, "failpoint "); ok {
			if name, ok = strings.CutSuffix(name, ": kill -9"); ok {
				return name
			}
		}
	}
	return ""
}

// scrapeLoop reads every live replica's metrics four times a second, so
// that a replica that dies unexpectedly leaves recent figures.
func (f *fleet) scrapeLoop() {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-f.ctx.Done():
			return
		case <-tick.C:
		}
		f.mu.Lock()
		cur := append([]*replica(nil), f.cur...)
		f.mu.Unlock()
		for _, r := range cur {
			select {
			case <-r.done:
			default:
				r.scrape(200 * time.Millisecond)
			}
		}
	}
}

func (f *fleet) current(slot int) *replica {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cur[slot]
}

// kill9 kills slot's replica with SIGKILL, right after reading its
// metrics, and starts the next incarnation.
func (f *fleet) kill9(slot int) (victim string, at time.Time, err error) {
	r := f.current(slot)
	// A replica a failpoint killed is being restarted by its exit: kill
	// the next incarnation instead.
	for deadline := time.Now().Add(30 * time.Second); !r.claimKill(); r = f.current(slot) {
		if time.Now().After(deadline) {
			return r.name, time.Now(), fmt.Errorf("slot %d: no live replica to kill for 30s", slot)
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.scrape(time.Second)
	if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return r.name, time.Now(), err
	}
	at = time.Now()
	<-r.done
	return r.name, at, f.start(slot)
}

// freeze stops slot's replica with SIGSTOP for d, then continues it: its
// leases expire meanwhile and its late results must be fenced off.
func (f *fleet) freeze(slot int, d time.Duration) (string, error) {
	r := f.current(slot)
	if err := r.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		return r.name, err
	}
	time.Sleep(d)
	return r.name, r.cmd.Process.Signal(syscall.SIGCONT)
}

// scrapeAll reads every live replica's metrics once more.
func (f *fleet) scrapeAll() {
	f.mu.Lock()
	cur := append([]*replica(nil), f.cur...)
	f.mu.Unlock()
	for _, r := range cur {
		select {
		case <-r.done:
		default:
			if err := r.scrape(2 * time.Second); err != nil {
				f.t.Logf("final scrape of %s: %v", r.name, err)
			}
		}
	}
}

// incarnations are every replica process the fleet started.
func (f *fleet) incarnations() []*replica {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*replica(nil), f.all...)
}

func (f *fleet) unexpectedExits() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.unexpected...)
}

// stop drains every replica with SIGTERM (SIGKILL after grace) and stops
// restarting them.
func (f *fleet) stop(grace time.Duration) {
	f.mu.Lock()
	if f.stopping {
		f.mu.Unlock()
		return
	}
	f.stopping = true
	cur := append([]*replica(nil), f.cur...)
	f.mu.Unlock()
	f.cancelCtx()
	for _, r := range cur {
		r.setDeliberate()
		r.cmd.Process.Signal(syscall.SIGCONT)
		r.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, r := range cur {
		select {
		case <-r.done:
		case <-time.After(grace):
			r.cmd.Process.Kill()
			<-r.done
		}
	}
	f.wg.Wait()
}

// warnings counts the replicas' log records by level and message (WARN
// and ERROR only), over every incarnation.
func (f *fleet) warnings() map[string]int {
	f.mu.Lock()
	all := append([]*replica(nil), f.all...)
	f.mu.Unlock()
	out := map[string]int{}
	for _, r := range all {
		raw, err := os.ReadFile(r.logPath)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(raw), "\n") {
			lvl, msg := jsonField(line, "level"), jsonField(line, "msg")
			if lvl == "WARN" || lvl == "ERROR" {
				out[lvl+" "+msg]++
			}
		}
	}
	return out
}

// jsonField extracts a string field of a one-line JSON log record without
// decoding it (good enough for slog's "level" and "msg").
func jsonField(line, key string) string {
	_, rest, ok := strings.Cut(line, `"`+key+`":"`)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, `"`)
	return v
}

// cleanEnv is the test's environment without XGR_* variables, so a
// developer's settings do not leak into the replicas.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "XGR_") {
			env = append(env, kv)
		}
	}
	return env
}

// freePort returns a free loopback port (safe to call off the test goroutine).
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func tail(path string, n int) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
