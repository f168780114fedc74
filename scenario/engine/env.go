package engine

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/devnet/anvil"
	"github.com/xgr-sidecar/xgr/internal/redact"
	"github.com/xgr-sidecar/xgr/internal/redisserver"
	"github.com/xgr-sidecar/xgr/redisconn"
)

// Env is the chain and Redis a scenario run uses, and how to put them
// away; its JSON is the report's "environment".
type Env struct {
	RPC     string `json:"rpc"`
	ChainID uint64 `json:"chainId"`
	Anvil   bool   `json:"privateAnvil"`
	Redis   string `json:"redis"`
	Private bool   `json:"privateRedis"`
	// Executor is the address that sends the steps' executions.
	Executor string `json:"executor"`

	// Client and RDB are the node and Redis the run uses.
	Client  *ethclient.Client     `json:"-"`
	RDB     redis.UniversalClient `json:"-"`
	cleanup []func()
}

// EnvConfig names the chain and Redis of a run: RPC "" starts a private
// anvil; Redis nil starts a private redis-server, else RedisTarget names
// where its address came from (for the error when it does not answer).
type EnvConfig struct {
	RPC         string
	Redis       *redis.Options
	RedisURL    string
	RedisTarget string
}

// LocalError is a private anvil or redis-server that could not start.
type LocalError struct{ Err error }

func (e *LocalError) Error() string { return e.Err.Error() }
func (e *LocalError) Unwrap() error { return e.Err }

// OpenEnv starts (or connects to) the chain and Redis; on an error
// everything it started is stopped again.
func OpenEnv(ctx context.Context, cfg EnvConfig) (_ *Env, err error) {
	e := &Env{RPC: cfg.RPC, Redis: cfg.RedisURL}
	defer func() {
		if err != nil {
			e.Close()
		}
	}()
	if e.RPC == "" {
		p, err := anvil.Start(ctx)
		if err != nil {
			return nil, &LocalError{fmt.Errorf("cannot start a private anvil: %w", err)}
		}
		e.cleanup = append(e.cleanup, p.Stop)
		e.RPC, e.Anvil = p.URL, true
	}
	client, id, err := chain.Dial(ctx, e.RPC)
	if err != nil {
		return nil, err
	}
	e.cleanup = append(e.cleanup, client.Close)
	e.Client, e.ChainID = client, id.Uint64()
	if cfg.Redis == nil {
		srv, err := redisserver.StartPrivate("scenario")
		if err != nil {
			return nil, &LocalError{err}
		}
		e.cleanup = append(e.cleanup, srv.Stop)
		e.RDB, e.Redis, e.Private = srv.Client(), "unix:"+srv.Addr, true
	} else {
		e.RDB = redis.NewClient(cfg.Redis)
		if err := e.RDB.Ping(ctx).Err(); err != nil {
			e.RDB.Close()
			return nil, redisconn.Target{Addr: cfg.Redis.Addr, Origin: cfg.RedisTarget}.Failed(err)
		}
	}
	rdb := e.RDB
	e.cleanup = append(e.cleanup, func() { rdb.Close() })
	return e, nil
}

// Shown is e for a report: the addresses without their secrets.
func (e *Env) Shown() *Env {
	return &Env{RPC: redact.URL(e.RPC), ChainID: e.ChainID, Anvil: e.Anvil, Redis: redact.URL(e.Redis), Private: e.Private, Executor: e.Executor}
}

// Line is the report's line about the environment.
func (e *Env) Line() string {
	envLine := fmt.Sprintf("chain %d at %s", e.ChainID, redact.URL(e.RPC))
	if e.Anvil {
		envLine += " (private anvil)"
	}
	redisLine := redact.URL(e.Redis)
	if e.Private {
		redisLine += " (private redis-server)"
	}
	return fmt.Sprintf("environment: %s; redis %s", envLine, redisLine)
}

// Close stops what OpenEnv started, in reverse order.
func (e *Env) Close() {
	for i := len(e.cleanup) - 1; i >= 0; i-- {
		e.cleanup[i]()
	}
	e.cleanup = nil
}
