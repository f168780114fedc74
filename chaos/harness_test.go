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

	"github.com/xgr-sidecar/xgr/testenv"
)

// replica is one incarnation of an `xgr run` process. A slot is restarted
// under a new name ("r<slot>.<incarnation>"), so proc_steps tells the
// incarnations apart.
type replica struct {
	name, addr, logPath string
	slot                int
	cmd                 *exec.Cmd
	// done closes once the process exited and was reaped (exitErr and
	// failpoint are set then); ready once it served /metrics.
	done, ready chan struct{}
	exitErr     error
	started     time.Time
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

func (r *replica) isDeliberate() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.deliberate
}

// claimKill marks the replica as deliberately killed unless it has exited
// already (a failpoint killed it and its supervisor restarts the slot).
func (r *replica) claimKill() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.exited {
		return false
	}
	r.deliberate = true
	return true
}

// markExited records the exit.
func (r *replica) markExited() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.exited = true
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

// fleet runs R replica slots of `xgr run`. Each slot has one supervisor
// goroutine (supervise), the only one that starts the slot's
// incarnations: it starts one, waits for its exit and starts the next —
// at once after a deliberate kill (kill9), 200 ms after a failpoint
// kill, after a second when one exits on its own (counted as an unexpected
// exit and reported) or does not start. kill9 only kills and then waits for
// the supervisor's next incarnation; stop cancels ctx, and every supervisor
// drains its own live incarnation and returns. So a slot never has two live
// incarnations, and stop awaits everything the fleet started, each wait
// bounded.
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
	grace      time.Duration // stop's SIGTERM grace, set before ctx is cancelled
	unexpected []string
	stopErrs   []string // what a supervisor could not do while stopping (stop reports it)

	// supervised[slot] closes when slot's supervisor returned; scraped
	// when scrapeLoop returned.
	supervised []chan struct{}
	scraped    chan struct{}

	// opts: extra environment and failpoints (newFleetOpts); fpKills
	// counts the replicas a failpoint killed, fpArmed the incarnations
	// started with it armed, by point.
	opts             fleetOpts
	fpKills, fpArmed map[string]int

	// ports are the --listen ports handed to incarnations: slots launch
	// at once, and a port freePort found free is free again until its
	// replica binds it, so another slot must not be handed it meanwhile.
	ports map[int]bool
}

// The fleet's bounds: how long an incarnation may take to serve /metrics,
// how long a process may take to exit after SIGKILL, how long kill9 waits
// for the next incarnation of its slot.
const (
	serveWithin    = 20 * time.Second
	exitAfterKill  = 10 * time.Second
	nextIncarnWait = serveWithin + 10*time.Second
)

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

// newFleetOpts starts n supervised slots and waits until each slot's
// first incarnation serves /metrics (or a failpoint killed it, when its
// supervisor starts the next).
func newFleetOpts(t *testing.T, n int, redisArgs, ostcs []string, outcomes string, opts fleetOpts) *fleet {
	ctx, cancel := context.WithCancel(context.Background())
	f := &fleet{t: t, dir: t.TempDir(), args: redisArgs, ostcs: ostcs, outcomes: outcomes,
		cur: make([]*replica, n), incarn: make([]int, n), ctx: ctx, cancelCtx: cancel, opts: opts, fpKills: map[string]int{}, fpArmed: map[string]int{},
		supervised: make([]chan struct{}, n), scraped: make(chan struct{})}
	t.Cleanup(func() {
		f.stop(5 * time.Second)
		if t.Failed() {
			for _, r := range f.incarnations() {
				t.Logf("--- %s log (last lines):\n%s", r.name, tail(r.logPath, 15))
			}
		}
	})
	for slot := range f.supervised {
		f.supervised[slot] = make(chan struct{})
		go f.supervise(slot, f.supervised[slot])
	}
	go f.scrapeLoop()
	for slot := range f.supervised {
		if err := f.awaitNext(slot, nil, nextIncarnWait); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// supervise is slot's supervisor (see fleet); done closes when it returns.
func (f *fleet) supervise(slot int, done chan<- struct{}) {
	defer close(done)
	for f.ctx.Err() == nil {
		r, err := f.launch(slot)
		if err != nil {
			f.noteUnexpected(err.Error())
			if !f.pause(time.Second) {
				return
			}
			continue
		}
		select {
		case <-r.done:
		case <-f.ctx.Done():
			f.drain(r)
			return
		}
		delay := time.Duration(0)
		switch {
		case r.isDeliberate():
			// kill9 killed it and waits for the next incarnation.
		case r.failpoint != "":
			delay = 200 * time.Millisecond
		default:
			f.noteUnexpected(fmt.Sprintf("%s exited on its own after %s: %v; last log lines:\n%s",
				r.name, time.Since(r.started).Round(time.Millisecond), r.exitErr, tail(r.logPath, 8)))
			// A supervisor would restart it; so does the fleet, after a second.
			delay = time.Second
		}
		if !f.pause(delay) {
			return
		}
	}
}

// pause sleeps for d unless the fleet stops first; it reports whether the
// fleet still runs.
func (f *fleet) pause(d time.Duration) bool {
	if d <= 0 {
		return f.ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-f.ctx.Done():
		return false
	}
}

// noteUnexpected records an exit or a failed start the test did not
// cause, unless the fleet is stopping.
func (f *fleet) noteUnexpected(msg string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.stopping {
		f.unexpected = append(f.unexpected, msg)
	}
}

// launch starts slot's next incarnation and waits until it serves /metrics,
// exits (its supervisor looks at why) or the fleet stops (its supervisor
// drains it). An error means no incarnation runs: it did not start, or it
// did not serve /metrics within serveWithin and was killed.
func (f *fleet) launch(slot int) (*replica, error) {
	f.mu.Lock()
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
	port, err := f.listenPort()
	if err != nil {
		return nil, fmt.Errorf("%s not started: %w", name, err)
	}
	r := &replica{name: name, slot: slot, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		logPath: filepath.Join(f.dir, name+".log"), done: make(chan struct{}), ready: make(chan struct{})}
	logf, err := os.Create(r.logPath)
	if err != nil {
		return nil, fmt.Errorf("%s not started: %w", name, err)
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
		return nil, fmt.Errorf("%s not started: %w", name, err)
	}
	r.started = time.Now()
	f.mu.Lock()
	f.cur[slot] = r
	f.all = append(f.all, r)
	f.mu.Unlock()
	go func() {
		r.exitErr = r.cmd.Wait()
		logf.Close()
		r.failpoint = failpointKill(r.logPath)
		r.markExited()
		f.mu.Lock()
		if r.failpoint != "" {
			f.fpKills[r.failpoint]++
		}
		f.mu.Unlock()
		close(r.done)
	}()
	deadline := time.Now().Add(serveWithin)
	for time.Now().Before(deadline) {
		select {
		case <-r.done:
			return r, nil
		case <-f.ctx.Done():
			return r, nil
		default:
		}
		if r.scrape(500*time.Millisecond) == nil {
			close(r.ready)
			return r, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.setDeliberate()
	r.cmd.Process.Kill()
	msg := fmt.Sprintf("%s did not serve /metrics within %s; killed", name, serveWithin)
	if err := awaitExit(r, exitAfterKill); err != nil {
		msg += "; " + err.Error()
	}
	return nil, fmt.Errorf("%s; last log lines:\n%s", msg, tail(r.logPath, 10))
}

// awaitExit waits up to limit for r's process to have exited and been
// reaped.
func awaitExit(r *replica, limit time.Duration) error {
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-r.done:
		return nil
	case <-t.C:
		return fmt.Errorf("replica %s (pid %d) had not exited %s after SIGKILL", r.name, r.cmd.Process.Pid, limit)
	}
}

// drain stops r because the fleet stops: SIGCONT (it may be frozen),
// SIGTERM, SIGKILL when it has not exited after the grace, then its exit
// within exitAfterKill; a process still there is recorded for stop.
func (f *fleet) drain(r *replica) {
	f.mu.Lock()
	grace := f.grace
	f.mu.Unlock()
	r.setDeliberate()
	r.cmd.Process.Signal(syscall.SIGCONT)
	r.cmd.Process.Signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-r.done:
		return
	case <-t.C:
	}
	r.cmd.Process.Kill()
	if err := awaitExit(r, exitAfterKill); err != nil {
		f.mu.Lock()
		f.stopErrs = append(f.stopErrs, "draining: "+err.Error())
		f.mu.Unlock()
	}
}

// awaitNext waits up to limit until slot holds an incarnation other than
// prev that serves /metrics (a failpoint killing it before it did counts:
// the supervisor starts the next). The error names what it waited for.
func (f *fleet) awaitNext(slot int, prev *replica, limit time.Duration) error {
	after := "the fleet started"
	if prev != nil {
		after = prev.name + " exited"
	}
	deadline := time.Now().Add(limit)
	for {
		if f.ctx.Err() != nil {
			return fmt.Errorf("slot %d: the fleet stopped while waiting for the incarnation after %s", slot, after)
		}
		if r := f.current(slot); r != nil && r != prev {
			select {
			case <-r.ready:
				return nil
			case <-r.done:
				if r.failpoint != "" {
					return nil
				}
				if !r.isDeliberate() {
					return fmt.Errorf("slot %d: %s, the incarnation after %s, exited before it served /metrics: %v\n%s",
						slot, r.name, after, r.exitErr, tail(r.logPath, 10))
				}
			default:
			}
		}
		if time.Now().After(deadline) {
			cur := "none"
			if r := f.current(slot); r != nil && r != prev {
				cur = r.name + ", not serving /metrics yet"
			}
			return fmt.Errorf("slot %d: no incarnation served /metrics within %s after %s (current: %s)", slot, limit, after, cur)
		}
		time.Sleep(50 * time.Millisecond)
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
	defer close(f.scraped)
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
			if r == nil {
				continue
			}
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
// metrics, and waits until its supervisor's next incarnation serves
// /metrics.
func (f *fleet) kill9(slot int) (victim string, at time.Time, err error) {
	r := f.current(slot)
	// A replica that exited (a failpoint killed it) is being replaced by
	// its supervisor: kill the next incarnation instead.
	for deadline := time.Now().Add(nextIncarnWait); !r.claimKill(); r = f.current(slot) {
		if time.Now().After(deadline) {
			return r.name, time.Now(), fmt.Errorf("slot %d: no live replica to kill within %s (the last one, %s, exited)", slot, nextIncarnWait, r.name)
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.scrape(time.Second)
	if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return r.name, time.Now(), err
	}
	at = time.Now()
	if err := awaitExit(r, exitAfterKill); err != nil {
		return r.name, at, err
	}
	return r.name, at, f.awaitNext(slot, r, nextIncarnWait)
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
		if r == nil {
			continue
		}
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

// stop stops the fleet and awaits everything it started: it cancels ctx,
// so that no supervisor starts another incarnation and each drains its
// live one (SIGTERM, SIGKILL after grace); then it waits for the
// supervisors, the scrape loop and the exit of every incarnation, all
// within one bound, and fails the test naming whatever did not finish.
// A second call does nothing.
func (f *fleet) stop(grace time.Duration) {
	f.mu.Lock()
	if f.stopping {
		f.mu.Unlock()
		return
	}
	f.stopping = true
	f.grace = grace
	f.mu.Unlock()
	f.cancelCtx()
	// A supervisor may be in launch's scrape (≤ 500 ms) before it sees
	// ctx, then drains: grace, exitAfterKill.
	limit := grace + exitAfterKill + 5*time.Second
	timer := time.NewTimer(limit)
	defer timer.Stop()
	expired := false
	await := func(done <-chan struct{}, what func() string) {
		if expired {
			select {
			case <-done:
			default:
				f.t.Errorf("fleet stop: %s had not finished %s after stop began", what(), limit)
			}
			return
		}
		select {
		case <-done:
		case <-timer.C:
			expired = true
			f.t.Errorf("fleet stop: %s had not finished %s after stop began", what(), limit)
		}
	}
	for slot, done := range f.supervised {
		if done == nil {
			continue
		}
		await(done, func() string {
			name := "no incarnation"
			if r := f.current(slot); r != nil {
				name = "incarnation " + r.name
			}
			return fmt.Sprintf("the supervisor of slot %d (%s)", slot, name)
		})
	}
	await(f.scraped, func() string { return "the metrics scrape loop" })
	// Every supervisor awaited its incarnations' exits; one still running
	// here is one a supervisor reported it could not stop (stopErrs), or
	// one that a supervisor that did not finish holds.
	for _, r := range f.incarnations() {
		select {
		case <-r.done:
		default:
			r.cmd.Process.Kill()
			f.t.Errorf("fleet stop: replica %s (pid %d) was still running after its supervisor returned or gave up; sent SIGKILL", r.name, r.cmd.Process.Pid)
		}
	}
	f.mu.Lock()
	errs := append([]string(nil), f.stopErrs...)
	f.mu.Unlock()
	for _, e := range errs {
		f.t.Errorf("fleet stop: %s", e)
	}
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

// awaitGroup waits up to limit for wg, told to finish, and fails the test
// naming what it waited for when it does not.
func awaitGroup(t *testing.T, wg *sync.WaitGroup, limit time.Duration, what string) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		t.Errorf("%s had not finished %s after it was told to", what, limit)
	}
}

// mineBlock asks anvil for one block (evm_mine), within 2 s.
func mineBlock(anvil *testenv.Anvil) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	anvil.Client.Client().CallContext(ctx, nil, "evm_mine")
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

// listenPort returns a free loopback port no incarnation of the fleet was
// handed before.
func (f *fleet) listenPort() (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ports == nil {
		f.ports = map[int]bool{}
	}
	for try := 0; try < 100; try++ {
		port, err := freePort()
		if err != nil {
			return 0, err
		}
		if !f.ports[port] {
			f.ports[port] = true
			return port, nil
		}
	}
	return 0, errors.New("no loopback port the fleet has not handed out before, after 100 tries")
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
