package replica

import (
	"crypto/ecdsa"
	"fmt"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/internal/httpserve"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/redisconn"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/txmanager"
)

// Config is one replica process. The zero value of each optional part
// turns it off; what xgr run, xgr dev, xgr bench and xgr scenario run
// differ in is which parts they set.
type Config struct {
	// Name names the replica in leases, the indexing lease and traces
	// ("": host-pid).
	Name string
	// Log: nil is slog.Default().
	Log *slog.Logger

	// Redis is where sessions live: New opens it and Close closes it.
	// Client, when set, is a client the caller keeps instead (xgr dev's
	// private redis-server, a bench replica's own connection pool); Redis
	// is then ignored.
	Redis  redisconn.Config
	Client redis.UniversalClient
	// Store holds the session settings (TTL, caps); ServerClock and Batch
	// are set as OpenStore sets them.
	Store joinstore.Config

	// Node is the URL of the node to follow (http, ws or an IPC path):
	// New dials it and Close closes it. Chain, when set, is a node the
	// caller keeps instead (xgr dev's in-process chain, a scenario run's).
	// Without either the replica follows no chain: no index, gateway or
	// executions, and rules come from files only.
	Node  string
	Chain chain.Backend

	// Index follows registries on the chain and starts sessions of their
	// triggers (nil: no index; needs a chain).
	Index *Index
	// Orchestrations are served besides the chain's (after the chain's
	// verified cache), by their ids, for any registry.
	Orchestrations []*registry.Orchestration
	// Rules says how steps run.
	Rules Rules
	// Evidence: log bundles and the keys that open encrypted rules.
	Evidence Evidence
	// Executions sends steps' executions on chain (nil: off, and a step's
	// execution is reported not performed; needs a chain).
	Executions *Executions

	// RootLease, ProcLease, Poll and MaxSessions: see reactor.Manager's
	// RootLease, ProcLease, Poll and MaxRoots (0: its defaults; 0
	// sessions: no cap). ExecPoll is how often an executing step asks for
	// its outcome (0: 1 s).
	RootLease, ProcLease, Poll, ExecPoll time.Duration
	MaxSessions                          int

	// Gateway serves the xgr_* JSON-RPC gateway (nil: off; needs a chain).
	Gateway *Gateway
	// Console is the operator console, served under /ui on the Listeners
	// that ask for it (nil: no console).
	Console *Console
	// ControlContract is the control-domain verifyingContract of
	// ControlPermits, for the gateway and the console's signed actions.
	ControlContract common.Address
	// Listeners serve /metrics, /healthz and /readyz (and the console).
	// Without a listener the replica keeps no metrics.
	Listeners []Listener
	// HealthTimeout: /healthz fails when a Redis write takes longer; it
	// also bounds Run's drain check (0: 1 s).
	HealthTimeout time.Duration

	// OTLPEndpoint exports a trace per session over OTLP/HTTP to this
	// collector ("": off).
	OTLPEndpoint string
	// Checks are the checks of a replica on a production Redis (nil:
	// none).
	Checks *Checks

	// OnEvent receives every session's timeline after the replica's own
	// consumers (metrics, traces, console); optional, called from several
	// goroutines.
	OnEvent func(joinstore.Root, reactor.Event)
}

// Index is the chain index of a replica.
type Index struct {
	// Config is what to follow: registries, discovery, triggers,
	// finality, the reorg window (indexer.ParseConfig).
	Config indexer.Config
	// Poll is how often to look for new blocks at the head (0: 1 s).
	Poll time.Duration
}

// Rules says how a replica runs steps: as the XRC-137 rules of Files and
// of the chain, with scripted Outcomes for the steps no rule covers, or
// all scripted.
type Rules struct {
	// Files are rule documents by reference (a --rules directory).
	Files *rulesource.Dir
	// Addresses binds ${addr:ALIAS} and <NAME> references to rule
	// contracts (a config's addresses: section); nil binds none.
	Addresses rulesource.Addresses
	// FromChain reads rules from their XRC-137 contracts (needs a chain);
	// the index then follows the rule contracts as well.
	FromChain bool
	// Outcomes plays the steps no rule source covers (every step without
	// Files and FromChain).
	Outcomes *reactor.Scripted
	// API performs the rules' apiCalls (nil: public hosts only).
	API rule.APICaller
	// Backends serve contract reads whose "rpc" selector is a name: name
	// → node URL, dialed by New.
	Backends map[string]string
	// Observe sees every completed evaluation (optional).
	Observe func(reactor.Execution, *rulesource.Loaded, *rule.Result)
	// Wrap wraps the step executor (optional; a scenario run records the
	// executions that fail). The executor's revert flip is kept.
	Wrap func(reactor.Executor) reactor.Executor
}

// Evidence is what a replica keeps of executed steps and which keys it
// opens encrypted rules with.
type Evidence struct {
	// Bundles stores every executed step's log bundle for its branch's
	// logExpireDays; DefaultDays, MaxDays and Day are their lifetimes
	// (0: evidence's defaults).
	Bundles              bool
	DefaultDays, MaxDays uint64
	Day                  time.Duration
	// KeyRegistry is the XRC-563 key registry: bundles of encryptLogs
	// branches are sealed to the readers' keys, and the gateway wraps for
	// the owner's (nil: none; needs a chain).
	KeyRegistry *common.Address
	// ReadKey opens encrypted rules: with the data key of a live READ
	// grant to ReadKeyAccount, or the rule contract's own encryption
	// header (nil: encrypted rules are not opened).
	ReadKey        *envelope.ReadKey
	ReadKeyAccount string
}

// Executions is the executor of a replica: the key that signs and pays
// executions, what it may do, and when a receipt is final.
type Executions struct {
	// Policy is the executions: section; it must be enabled.
	Policy execution.Config
	// Key is the executor key (msg.sender of every execution).
	Key *ecdsa.PrivateKey
	// Finality says when a receipt is final; the zero value is the
	// index's finality (auto: finalized when the node has the tag, else
	// confirmations), without an index auto with 12 confirmations.
	Finality txmanager.Finality
	// Poll is the transaction manager's tick (0: 1 s).
	Poll time.Duration
	// Replica names the replica in the executor key's sender lease
	// (recorded as <Replica>/<random>); New sets it to Config.Name.
	Replica string
	// SenderLease is how long a dead replica keeps the executor key's
	// upkeep: Policy.SenderLease, else the replica's RootLease (a
	// sender's takeover takes no longer than a session's), else 10 s.
	SenderLease time.Duration
}

// Gateway is the JSON-RPC gateway's listener and permit rules (see
// rpc.Config and rpc.ServerConfig).
type Gateway struct {
	// Addr is the address to listen on; Listener hardens it (its Name
	// names it in errors).
	Addr     string
	Listener httpserve.Config
	// CORSOrigins are the browser origins allowed to call it; MaxBodyBytes
	// caps a request body or websocket message.
	CORSOrigins  []string
	MaxBodyBytes int
	// MaxInFlight caps the requests one connection has in flight.
	MaxInFlight int
	// Skew and MaxPermitLifetime bound permit expiries.
	Skew, MaxPermitLifetime time.Duration
	// RequireBoundPermits, AllowUnboundGrantPermits and AnyRegistry: see
	// rpc.Config.
	RequireBoundPermits, AllowUnboundGrantPermits, AnyRegistry bool
}

// Console is the operator console's settings.
type Console struct {
	// DirectActions lets the page kill and wake without permits (serve it
	// on loopback only).
	DirectActions bool
}

// Listener is an address that serves /metrics, /healthz and /readyz.
type Listener struct {
	Addr string
	// HTTP hardens the listener (its Name names it in errors).
	HTTP httpserve.Config
	// Console serves the operator console here too.
	Console bool
}

// Checks are a production replica's defences against a Redis that loses
// acknowledged writes: at start its persistence settings are read (a
// risky setting is a warning, with RequireAOF a refusal) and owners' root
// pid counters found below surviving sessions are raised; when Run ends,
// a replica that could not drain says why.
type Checks struct {
	// RequireAOF refuses a Redis without appendonly yes and appendfsync
	// always (or everysec with AcceptAOFEverysec).
	RequireAOF, AcceptAOFEverysec bool
	// UpgradeSchema: the operator says every replica of an older release
	// is stopped, so this build may record its schema although it does
	// not share Redis with the one recorded (redisconn.CheckSchema).
	UpgradeSchema bool
}

// Validate reports what makes cfg unable to run, before anything is
// opened or started: an *Error with Usage set naming the part.
func (cfg Config) Validate() error {
	bad := func(part Part, format string, args ...any) error {
		return &Error{Part: part, Usage: true, Err: fmt.Errorf(format, args...)}
	}
	hasChain := cfg.Node != "" || cfg.Chain != nil
	if cfg.Client == nil {
		if err := cfg.Redis.Check(); err != nil {
			return &Error{Part: PartRedis, Usage: true, Err: err}
		}
	}
	if cfg.Node != "" && cfg.Chain != nil {
		return bad(PartNode, "both a node URL (Node) and a node (Chain): give one")
	}
	for _, d := range []struct {
		name string
		d    time.Duration
	}{{"RootLease", cfg.RootLease}, {"ProcLease", cfg.ProcLease}, {"Poll", cfg.Poll}, {"ExecPoll", cfg.ExecPoll}, {"HealthTimeout", cfg.HealthTimeout}} {
		if d.d < 0 {
			return bad(PartConfig, "%s %s: want a positive duration, or 0 for the default", d.name, d.d)
		}
	}
	if cfg.MaxSessions < 0 {
		return bad(PartConfig, "MaxSessions %d: want 0 (no cap) or more", cfg.MaxSessions)
	}
	r := cfg.Rules
	switch {
	case r.FromChain && !hasChain:
		return bad(PartRules, "rules from chain (FromChain) need a chain (Node or Chain)")
	case r.Files == nil && !r.FromChain && r.Outcomes == nil:
		return &Error{Part: PartRules, Usage: true, Err: ErrNoSteps}
	}
	for name, url := range r.Backends {
		if name == "" || url == "" {
			return bad(PartBackend, "backend %q = %q: want a name and a node URL", name, url)
		}
	}
	if cfg.Index != nil && !hasChain {
		return bad(PartIndex, "an index needs a chain (Node or Chain): its registries and triggers are followed there")
	}
	if cfg.Gateway != nil {
		if !hasChain {
			return bad(PartGateway, "the gateway needs a chain (Node or Chain): permits are checked against it (its id; the owners and executors of registries and rule contracts)")
		}
		if cfg.Gateway.Addr == "" {
			return bad(PartGateway, "the gateway has no address to listen on")
		}
	}
	if cfg.Evidence.KeyRegistry != nil && !hasChain {
		return bad(PartEvidence, "a key registry needs a chain (Node or Chain): the readers' keys are read there")
	}
	if x := cfg.Executions; x != nil {
		switch {
		case !hasChain:
			return bad(PartExecutions, "executions need a chain (Node or Chain): they are sent to that node")
		case x.Key == nil:
			return bad(PartExecutions, "no executor key")
		case !x.Policy.Enabled:
			return bad(PartExecutions, "the policy is not enabled (leave Executions nil to turn executions off)")
		}
		if err := x.Policy.Check(); err != nil {
			return &Error{Part: PartExecutions, Usage: true, Err: err}
		}
	}
	for i, l := range cfg.Listeners {
		switch {
		case l.Addr == "":
			return bad(PartListener, "Listeners[%d] has no address", i)
		case l.Console && cfg.Console == nil:
			return bad(PartListener, "Listeners[%d] (%s) serves the console, but Console is nil", i, l.Addr)
		}
	}
	return nil
}
