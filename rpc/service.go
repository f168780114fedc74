package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/rpc/permit"
)

// Registries tells which XRC-729 registries the gateway starts sessions
// of: the ones the indexer follows (indexer.Followed implements it).
type Registries interface {
	Follows(ctx context.Context, registry common.Address) (bool, error)
}

// Config is what the gateway needs.
type Config struct {
	Store *joinstore.Store
	// Source serves hash-verified orchestrations (the indexer's cache).
	Source reactor.Source
	// Authority judges who may start sessions (XRC-729 §3.1, §4.2): the
	// registry's owner and executors, who must also be owner or executor of
	// every rule contract the orchestration references, each reference
	// resolved by its resolver (WithRules: the runtime's).
	Authority *authority.Checker
	// Registries are the registries whose sessions the gateway starts (the
	// followed ones); a start naming another is refused with
	// CodeRegistryNotServed before anything is read from the chain or
	// written. Required unless AnyRegistry.
	Registries Registries
	// AnyRegistry starts sessions of every XRC-729 registry on the chain
	// (--rpc-any-registry): their owners and orchestrations are read live.
	AnyRegistry bool
	// ChainID is the chain permits must be signed for.
	ChainID *big.Int
	// ControlContract is the verifyingContract of ControlPermits (reported
	// as "precompile" by xgr_getCoreAddrs).
	ControlContract common.Address
	// Skew is the clock skew allowed on permit expiries.
	Skew time.Duration
	// MaxPermitLifetime caps how far beyond now (plus Skew) a permit's
	// expiry may lie (0: permit.DefaultMaxLifetime, 1 h; at most
	// permit.MaxLifetimeCap).
	MaxPermitLifetime time.Duration
	// RequireBoundPermits refuses the reference's unbound permits where a
	// bound one exists: xgr_validateDataTransfer then takes SessionPermitV2
	// only and xgr_wakeUpProcess ControlPermitV3 only (kills and lists are
	// unchanged).
	RequireBoundPermits bool
	// AllowUnboundGrantPermits lets xgr_manageGrants take the reference's
	// xdalaPermit, which signs only a signer and an expiry, besides the
	// bound GrantPermit (--rpc-allow-unbound-grant-permits). Off by default:
	// a read permit (xgr_getStepLog, xgr_listGrants) that a dApp or proxy
	// relays would otherwise also write grants on the signer's RIDs.
	// RequireBoundPermits overrides it.
	AllowUnboundGrantPermits bool
	// MaxInFlight caps the requests one connection has in flight (0: 16).
	MaxInFlight int
	// RefusalBurst and RefusalEvery are the per-signer refusal budget of
	// wakes, kills and allow-mode lists (0: DefaultRefusalBurst,
	// DefaultRefusalEvery): a signer may have RefusalBurst calls refused
	// or in flight, and earns one more every RefusalEvery.
	RefusalBurst int
	RefusalEvery time.Duration
	// Grants and PublicSale are reported by xgr_getCoreAddrs ("" if none).
	Grants, PublicSale string
	// GrantStore and Evidence serve xgr_manageGrants, xgr_listGrants and
	// xgr_getStepLog (nil: those methods answer not-configured).
	GrantStore *grant.Store
	Evidence   *evidence.Store
	// Rules reads rule contracts for xgr_getXRC137Meta (nil: that method
	// answers not-configured).
	Rules RuleReader
	// RuleOwners reads the owner and the encryption header of rule
	// contracts for xgr_manageGrants of rule RIDs (scope 1), which their
	// contract's owner() owns (nil: such changes answer not-configured).
	RuleOwners RuleOwners
	// ReadKeys reads an account's registered XRC-563 read public key
	// (*chain.KeyRegistry): xgr_encryptXRC137 wraps for the owner's when
	// the request names no readKey (nil: the request must).
	ReadKeys ReadKeySource
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	Log *slog.Logger
}

// Service implements the xgr_* methods. Its exported methods are exactly
// the JSON-RPC methods (go-ethereum's rpc registers every one).
type Service struct {
	cfg Config

	mu       sync.Mutex
	inFlight map[string]int
	refusals *refusals
}

// NewService checks the configuration and returns the service.
func NewService(cfg Config) (*Service, error) {
	switch {
	case cfg.Store == nil || cfg.Source == nil || cfg.Authority == nil:
		return nil, fmt.Errorf("rpc: a store, an orchestration source and an authority (who may run sessions) are required")
	case cfg.Registries == nil && !cfg.AnyRegistry:
		return nil, fmt.Errorf("rpc: the registries to serve are required (the followed ones), or AnyRegistry")
	case cfg.ChainID == nil || cfg.ChainID.Sign() <= 0:
		return nil, fmt.Errorf("rpc: the chain id is required")
	case cfg.ControlContract == (common.Address{}):
		return nil, fmt.Errorf("rpc: the control-domain contract (precompile) address is required")
	case cfg.Skew < 0 || cfg.Skew > permit.MaxSkew:
		return nil, fmt.Errorf("rpc: clock skew %s outside [0, %s]", cfg.Skew, permit.MaxSkew)
	case cfg.MaxPermitLifetime < 0 || cfg.MaxPermitLifetime > permit.MaxLifetimeCap:
		return nil, fmt.Errorf("rpc: permit lifetime cap %s outside [0 (the default, %s), %s]", cfg.MaxPermitLifetime, permit.DefaultMaxLifetime, permit.MaxLifetimeCap)
	}
	if cfg.MaxPermitLifetime == 0 {
		cfg.MaxPermitLifetime = permit.DefaultMaxLifetime
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = 16
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.RefusalBurst <= 0 {
		cfg.RefusalBurst = DefaultRefusalBurst
	}
	if cfg.RefusalEvery <= 0 {
		cfg.RefusalEvery = DefaultRefusalEvery
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Service{cfg: cfg, inFlight: map[string]int{}, refusals: newRefusals(cfg.RefusalBurst, cfg.RefusalEvery, cfg.Now)}, nil
}

// budget takes a token of signer's refusal budget before a call reads
// Redis; a signer without one is refused at once (CodeLimit). done gives
// the token back unless the call ended in a refusal.
func (s *Service) budget(signer common.Address) (done func(error), err error) {
	who := owner(signer)
	if !s.refusals.take(who) {
		return nil, fail(CodeLimit, "too-many-refusals", "", "%s has had too many wakes, kills or lists refused (at most %d, one more every %s); retry in %s",
			who, s.cfg.RefusalBurst, s.cfg.RefusalEvery, s.refusals.wait(who).Round(time.Millisecond))
	}
	return func(err error) {
		var e *Error
		if err == nil || !errors.As(err, &e) || e.Code == CodeInternal {
			s.refusals.give(who)
		}
	}, nil
}

// enter counts a request against its connection's in-flight cap.
func (s *Service) enter(ctx context.Context) (func(), error) {
	peer := gethrpc.PeerInfoFromContext(ctx)
	key := peer.Transport + " " + peer.RemoteAddr
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inFlight[key] >= s.cfg.MaxInFlight {
		return nil, fail(CodeLimit, "too-many-requests", "", "this connection has %d requests in flight, at most %d are allowed; wait for answers", s.inFlight[key], s.cfg.MaxInFlight)
	}
	s.inFlight[key]++
	return func() {
		s.mu.Lock()
		if s.inFlight[key]--; s.inFlight[key] <= 0 {
			delete(s.inFlight, key)
		}
		s.mu.Unlock()
	}, nil
}

// expect is what permits of the given kinds must satisfy now.
func (s *Service) expect(path string, kinds ...permit.Kind) permit.Expect {
	return permit.Expect{ChainID: s.cfg.ChainID, ControlContract: s.cfg.ControlContract, Now: s.cfg.Now(), Skew: s.cfg.Skew,
		MaxLifetime: s.cfg.MaxPermitLifetime, RequireBound: s.cfg.RequireBoundPermits, Kinds: kinds, Path: path}
}

// verify checks a permit envelope; a missing one is an invalid parameter.
func (s *Service) verify(raw json.RawMessage, path string, kinds ...permit.Kind) (*permit.Verified, error) {
	return s.verifyFor(raw, path, nil, kinds...)
}

// verifyFor is verify for a request that bound permits (SessionPermitV2,
// ControlPermitV3) must match: its registry, step, process id and payload.
func (s *Service) verifyFor(raw json.RawMessage, path string, req *permit.Request, kinds ...permit.Kind) (*permit.Verified, error) {
	if len(raw) == 0 || string(raw) == "null" {
		names := make([]string, len(kinds))
		for i, k := range kinds {
			names[i] = string(k)
		}
		return nil, invalid(path, "required: a %s (EIP-712 typed data with its signature)", strings.Join(names, " or "))
	}
	want := s.expect(path, kinds...)
	want.Request = req
	v, err := permit.Verify(raw, want)
	if err != nil {
		return nil, permitError(err)
	}
	return v, nil
}

// owner is the key form of an address.
func owner(a common.Address) string { return strings.ToLower(a.Hex()) }

// GetCoreAddrs implements xgr_getCoreAddrs.
func (s *Service) GetCoreAddrs() CoreAddrs {
	return CoreAddrs{Grants: s.cfg.Grants, PublicSale: s.cfg.PublicSale, Precompile: owner(s.cfg.ControlContract),
		ChainID: "0x" + s.cfg.ChainID.Text(16)}
}

// GetNextProcessId implements xgr_getNextProcessId.
func (s *Service) GetNextProcessId(ctx context.Context, req NextProcessIDRequest) (*NextProcessID, error) {
	release, err := s.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	if !common.IsHexAddress(req.From) {
		return nil, invalid("from", "want an address (0x and 40 hex digits), got %q", req.From)
	}
	n, err := s.cfg.Store.NextRootPid(ctx, owner(common.HexToAddress(req.From)))
	if err != nil {
		return nil, internal("next process id", err)
	}
	return &NextProcessID{NextProcessID: strconv.FormatInt(n, 10)}, nil
}

// sessionNumber is a session id given as a JSON number or a decimal string.
type sessionNumber int64

// UnmarshalJSON accepts 123 and "123".
func (n *sessionNumber) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 {
		return fmt.Errorf("sessionId %s: want a root session id (a positive decimal number)", b)
	}
	*n = sessionNumber(v)
	return nil
}

// StepExecuted implements xgr_stepExecuted: true when the process is
// finished (done or aborted), false while it waits or runs, null when there
// is no such process. With a start key (params[3]: the startKey the start
// answered), a session another start created is refused (not-this-start).
func (s *Service) StepExecuted(ctx context.Context, ownerAddr string, sessionID sessionNumber, iteration uint64, startKey *string) (*bool, error) {
	release, err := s.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	root, err := rootOf(ownerAddr, int64(sessionID))
	if err != nil {
		return nil, err
	}
	if iteration == 0 || iteration > 1<<62 {
		return nil, invalid("params[2]", "iteration %d: want the process's iteration (1 or more)", iteration)
	}
	if err := s.thisStart(ctx, root, startKey, "params[3]", nil); err != nil {
		return nil, err
	}
	p, err := s.cfg.Store.Process(ctx, root, int64(iteration))
	switch {
	case joinstoreNotFound(err):
		return nil, nil
	case err != nil:
		return nil, internal("process", err)
	}
	done := p.Status.Finished()
	return &done, nil
}

// SessionAlive implements xgr_sessionAlive: whether the session still has a
// waiting or running process. With a start key (params[2]), a session
// another start created is refused (not-this-start).
func (s *Service) SessionAlive(ctx context.Context, ownerAddr string, sessionID sessionNumber, startKey *string) (bool, error) {
	release, err := s.enter(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	root, err := rootOf(ownerAddr, int64(sessionID))
	if err != nil {
		return false, err
	}
	meta, err := s.cfg.Store.SessionMeta(ctx, root)
	switch {
	case joinstoreNotFound(err):
		return false, nil
	case err != nil:
		return false, internal("session", err)
	}
	if err := s.thisStart(ctx, root, startKey, "params[2]", &meta); err != nil {
		return false, err
	}
	return meta.Live > 0, nil
}

func rootOf(ownerAddr string, sessionID int64) (joinstore.Root, error) {
	if !common.IsHexAddress(ownerAddr) {
		return joinstore.Root{}, invalid("params[0]", "want the owner's address (0x and 40 hex digits), got %q", ownerAddr)
	}
	return joinstore.Root{Owner: owner(common.HexToAddress(ownerAddr)), RootPid: sessionID}, nil
}
