package joinstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Config tunes the store.
type Config struct {
	// SessionTTL is how long finished process records and finished sessions
	// stay readable (XGR_SESSION_TTL_SECS, default 86400 s).
	SessionTTL time.Duration
	// StepsCap bounds the proc_steps stream of one session (approximate
	// trimming; default 100000 entries) so that endless loops stay bounded.
	StepsCap int
}

// Store is the Redis-backed session store. It is safe for concurrent use and
// works with a single node, a Redis Cluster or Sentinel (redis.UniversalClient).
type Store struct {
	rdb redis.UniversalClient
	cfg Config
}

// New returns a store on the given client.
func New(rdb redis.UniversalClient, cfg Config) *Store {
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = 86400 * time.Second
	}
	if cfg.StepsCap <= 0 {
		cfg.StepsCap = 100000
	}
	return &Store{rdb: rdb, cfg: cfg}
}

func ms(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

// StartRequest describes a new session.
type StartRequest struct {
	Owner string
	// IdempotencyKey makes retries safe: the same key always names the same
	// session. Empty means every call starts a new session.
	IdempotencyKey           string
	XRC729, OstcID, OstcHash string
	StartStep                string
	// Payload is the root process's resumePlain (a JSON object; empty = {}).
	Payload json.RawMessage
	// WakeAt delays the first step; zero means now.
	WakeAt time.Time
	Paused bool
	// Window caps concurrent executions in the session (0 = unlimited).
	Window int
	Now    time.Time
}

// StartResult says what Start did. Ack is queued, scheduled, paused or
// already_queued (seed 001 §2.1).
type StartResult struct {
	Ack  string
	Root Root
	Pid  string
}

// Start allocates a root pid (idempotently by key) and creates the session
// with its root process. A retry after a crash between the two steps
// completes the session rather than creating a second one.
func (s *Store) Start(ctx context.Context, req StartRequest) (StartResult, error) {
	if err := CheckOwner(req.Owner); err != nil {
		return StartResult{}, err
	}
	if req.StartStep == "" {
		return StartResult{}, fmt.Errorf("start: no start step")
	}
	payload := req.Payload
	if len(payload) == 0 {
		payload = json.RawMessage("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(payload, &obj); err != nil || obj == nil {
		return StartResult{}, fmt.Errorf("start: payload must be a JSON object")
	}
	wake := req.WakeAt
	if wake.IsZero() || wake.Before(req.Now) {
		wake = req.Now
	}
	ok := ownerKeysOf(req.Owner)
	res, err := scriptAllocRoot.Run(ctx, s.rdb, []string{ok.seq(), ok.idem(), ok.roots()}, req.IdempotencyKey, ms(req.Now)).StringSlice()
	if err != nil {
		return StartResult{}, fmt.Errorf("start: allocate root: %w", err)
	}
	rootPid, err := strconv.ParseInt(res[0], 10, 64)
	if err != nil {
		return StartResult{}, fmt.Errorf("start: allocate root: bad root pid %q", res[0])
	}
	root := Root{Owner: req.Owner, RootPid: rootPid}
	k := keysOf(root)
	paused := "0"
	if req.Paused {
		paused = "1"
	}
	out, err := scriptStartSession.Run(ctx, s.rdb, []string{k.meta(), k.iter(), k.due(), k.proc(1)},
		req.Owner, rootPid, req.XRC729, req.OstcID, req.OstcHash, req.StartStep, string(payload),
		ms(req.Now), ms(wake), paused, req.Window).StringSlice()
	if err != nil {
		return StartResult{}, fmt.Errorf("start %s: %w", root, err)
	}
	if out[0] != "already_queued" && out[0] != "paused" {
		if err := s.rdb.ZAdd(ctx, rootShardKey(root), redis.Z{Score: float64(wake.UnixMilli()), Member: root.String()}).Err(); err != nil {
			return StartResult{}, fmt.Errorf("start %s: index root: %w", root, err)
		}
	}
	return StartResult{Ack: out[0], Root: root, Pid: out[1]}, nil
}

// DueIters returns up to limit iters of the session whose nextWakeAt has come.
func (s *Store) DueIters(ctx context.Context, root Root, now time.Time, limit int) ([]int64, error) {
	ids, err := s.rdb.ZRangeArgs(ctx, redis.ZRangeArgs{
		Key: keysOf(root).due(), Start: "-inf", Stop: ms(now), ByScore: true, Count: int64(limit),
	}).Result()
	if err != nil {
		return nil, err
	}
	out := make([]int64, 0, len(ids))
	for _, id := range ids {
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("due set of %s holds %q", root, id)
		}
		out = append(out, n)
	}
	return out, nil
}

// Candidate is a process the caller wants to claim.
type Candidate struct {
	Iter int64
	// Bypass lets a join-creating step run even when the window is full.
	Bypass bool
	// Reserve is how many child iters the step's commit may need (the most
	// spawns plus join targets any branch of its step creates).
	Reserve int
}

// Claim is a process handed to a worker under an inFlight lease.
type Claim struct {
	Root  Root
	Iter  int64
	Pid   string
	Token int64
	// Reserved child iters: [FirstChild, FirstChild+Reserve).
	FirstChild    int64
	Reserve       int
	ResumeStep    string
	ResumePlain   json.RawMessage
	ParentPid     string
	JoinGroupID   string
	ThreadHeadPid string
	LeaseUntil    time.Time
}

// Claim moves the candidates that are still due, waiting, unpaused and not
// killed to running, each under a new lease with a fresh fencing token,
// until the session's window is full.
func (s *Store) Claim(ctx context.Context, root Root, now time.Time, lease time.Duration, worker string, cands []Candidate) ([]Claim, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	k := keysOf(root)
	keys := []string{k.meta(), k.due(), k.run(), k.fence(), k.iter()}
	args := []any{ms(now), lease.Milliseconds(), worker}
	for _, c := range cands {
		keys = append(keys, k.proc(c.Iter))
		bypass := 0
		if c.Bypass {
			bypass = 1
		}
		args = append(args, c.Iter, bypass, c.Reserve)
	}
	vals, err := scriptClaim.Run(ctx, s.rdb, keys, args...).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("claim in %s: %w", root, err)
	}
	reserve := map[int64]int{}
	for _, c := range cands {
		reserve[c.Iter] = c.Reserve
	}
	out := make([]Claim, 0, len(vals)/8)
	for i := 0; i+8 <= len(vals); i += 8 {
		iter, _ := strconv.ParseInt(vals[i], 10, 64)
		token, _ := strconv.ParseInt(vals[i+1], 10, 64)
		first, _ := strconv.ParseInt(vals[i+2], 10, 64)
		out = append(out, Claim{
			Root: root, Iter: iter, Pid: root.Pid(iter), Token: token, FirstChild: first, Reserve: reserve[iter],
			ResumeStep: vals[i+3], ResumePlain: json.RawMessage(vals[i+4]), ParentPid: vals[i+5],
			JoinGroupID: vals[i+6], ThreadHeadPid: vals[i+7], LeaseUntil: now.Add(lease),
		})
	}
	return out, nil
}

// Renew extends a lease; ErrLeaseLost when it is no longer current.
func (s *Store) Renew(ctx context.Context, c Claim, now time.Time, lease time.Duration) (time.Time, error) {
	k := keysOf(c.Root)
	until, err := scriptRenewLease.Run(ctx, s.rdb, []string{k.proc(c.Iter), k.run()}, c.Iter, c.Token, ms(now), lease.Milliseconds()).Int64()
	if err != nil {
		return time.Time{}, scriptError(err)
	}
	return time.UnixMilli(until), nil
}

// Release gives a lease back without a result; the process is due again at
// retryAt. It reports false (and changes nothing) when the lease was no
// longer current, so a second release is a visible no-op.
func (s *Store) Release(ctx context.Context, c Claim, now, retryAt time.Time) (bool, error) {
	k := keysOf(c.Root)
	res, err := scriptReleaseLease.Run(ctx, s.rdb, []string{k.proc(c.Iter), k.run(), k.due()}, c.Iter, c.Token, ms(now), ms(retryAt)).Text()
	if err != nil {
		return false, err
	}
	return res == "released", nil
}

// Child is a process a commit creates.
type Child struct {
	Iter        int64
	ResumeStep  string
	NextWakeAt  time.Time
	ResumePlain json.RawMessage
	JoinGroupID string
}

// Commit is the result of one execution.
type Commit struct {
	// Status is "done" or "aborted".
	Status   string
	LastStep string
	// Valid is the rule's verdict; nil when the step did not evaluate.
	Valid    *bool
	Digest   string
	Worker   string
	Children []Child
}

// CommitResult reports what a commit did.
type CommitResult struct {
	// Killed is true when the process was killed while running: it was
	// recorded aborted and created no children.
	Killed bool
	// Live is the number of live processes left in the session; 0 means
	// the session finished.
	Live int64
	// NextDue is the earliest nextWakeAt of the session's due set (zero when empty).
	NextDue time.Time
}

// Commit records the result of the claimed execution with its token. A stale
// token returns ErrLeaseLost and changes nothing.
func (s *Store) Commit(ctx context.Context, c Claim, now time.Time, r Commit) (CommitResult, error) {
	if r.Status != "done" && r.Status != "aborted" {
		return CommitResult{}, fmt.Errorf("commit %s: status %q: want done or aborted", c.Pid, r.Status)
	}
	k := keysOf(c.Root)
	keys := []string{k.meta(), k.run(), k.due(), k.steps(), k.iter(), k.fence(), k.proc(c.Iter)}
	valid := ""
	if r.Valid != nil {
		valid = "0"
		if *r.Valid {
			valid = "1"
		}
	}
	args := []any{c.Iter, c.Token, ms(now), r.Status, r.LastStep, valid, r.Digest, r.Worker,
		int64(s.cfg.SessionTTL / time.Second), s.cfg.StepsCap, len(r.Children)}
	for _, ch := range r.Children {
		keys = append(keys, k.proc(ch.Iter))
		plain := ch.ResumePlain
		if len(plain) == 0 {
			plain = json.RawMessage("{}")
		}
		wake := ch.NextWakeAt
		if wake.IsZero() {
			wake = now
		}
		args = append(args, ch.Iter, ch.ResumeStep, ms(wake), string(plain), ch.JoinGroupID)
	}
	vals, err := scriptCommitStep.Run(ctx, s.rdb, keys, args...).Slice()
	if err != nil {
		return CommitResult{}, fmt.Errorf("commit %s: %w", c.Pid, scriptError(err))
	}
	res := CommitResult{Killed: vals[0] == "killed"}
	res.Live, _ = vals[1].(int64)
	if due, _ := vals[2].(string); due != "" {
		if f, err := strconv.ParseFloat(due, 64); err == nil {
			res.NextDue = time.UnixMilli(int64(f))
		}
	}
	return res, nil
}

// Process returns the proc_rt fields of one process.
func (s *Store) Process(ctx context.Context, root Root, iter int64) (map[string]string, error) {
	m, err := s.rdb.HGetAll(ctx, keysOf(root).proc(iter)).Result()
	if err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("process %s of owner %s: %w", root.Pid(iter), root.Owner, ErrNotFound)
	}
	return m, nil
}
