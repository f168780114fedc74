package replica

import "errors"

// Part names the part of a Config (or of a run) an Error is about.
type Part string

// The parts of a replica.
const (
	PartConfig     Part = "config"     // durations, caps
	PartRedis      Part = "redis"      // Redis, Client, the store
	PartNode       Part = "node"       // Node, Chain
	PartRules      Part = "rules"      // Rules
	PartBackend    Part = "backend"    // Rules.Backends (Error.Name is the backend)
	PartEvidence   Part = "evidence"   // Evidence
	PartTracing    Part = "tracing"    // OTLPEndpoint
	PartChecks     Part = "checks"     // Checks: Redis persistence
	PartSchema     Part = "schema"     // Checks: the Redis schema
	PartIndex      Part = "index"      // Index, and Run's index that stopped
	PartGateway    Part = "gateway"    // Gateway
	PartExecutions Part = "executions" // Executions
	PartListener   Part = "listener"   // Listeners and Gateway.Addr (Error.Name, Error.Addr)
	PartDrain      Part = "drain"      // Run: the replica stopped without draining
)

// Error is why New could not assemble a replica, or why Run ended badly.
type Error struct {
	// Part is what failed; Name names it further (a backend's name, a
	// listener's httpserve.Config.Name) and Addr is a listener's address.
	Part       Part
	Name, Addr string
	// Usage: the Config cannot work as given (nothing was started).
	Usage bool
	Err   error
}

func (e *Error) Error() string {
	where := string(e.Part)
	if e.Name != "" {
		where += " " + e.Name
	}
	return where + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// errPart wraps err (nil stays nil) as an *Error of part.
func errPart(part Part, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Part: part, Err: err}
}
