package txmanager

import (
	"crypto/ecdsa"
	"fmt"
	"log/slog"
	"math/big"
	"time"

	"github.com/redis/go-redis/v9"
)

// Config sets up a Manager for one sender (Key) on one chain.
type Config struct {
	// Redis holds the state (a single server, a sentinel client or a
	// cluster: one sender's keys share one slot).
	Redis redis.UniversalClient
	// Chain is the node.
	Chain Chain
	// Key signs and pays; its address is msg.sender of every execution.
	Key *ecdsa.PrivateKey
	// ChainID is the chain's EIP-155 id; nil reads it from Chain.
	ChainID *big.Int
	// Replica is the replica's name. The sender's lease records its holder
	// as "<Replica>/<8 random hex digits>" (redis-cli HGET
	// xgr:txm:{txm:<chain>:<sender>}:sender lease), so an operator can tell
	// which replica sends.
	Replica string
	// ID names this replica in the sender's lease; "" builds it from
	// Replica as above.
	ID string

	// MaxInFlight caps the sender's unmined transactions (reserved or
	// signed); more executions wait in the queue. 0 means 64.
	MaxInFlight int
	// MaxFeePerGas caps every attempt's fee cap (or legacy gas price).
	// nil means 500 gwei.
	MaxFeePerGas *big.Int
	// BumpPercent raises tip and fee cap on each bump, at least 10 (the
	// default).
	BumpPercent uint64
	// BumpAfterBlocks is how many blocks an attempt may stay unmined before
	// it is replaced by a bumped one. 0 means 3.
	BumpAfterBlocks uint64
	// MaxGasLimit refuses a request above it (0 = no cap).
	MaxGasLimit uint64
	// Finality says when a receipt is final; the zero value means 12
	// confirmations.
	Finality Finality

	// Poll is the time between ticks of Run and between reads of Wait.
	// 0 means one second.
	Poll time.Duration
	// LeaseTTL is how long the sender's lease lasts without renewal (a
	// replica that stops is replaced after it). 0 means 10s, a root
	// lease's default: a sender's takeover takes no longer than a
	// session's.
	LeaseTTL time.Duration
	// ReserveTimeout is how long a reserved key may stay unsigned before the
	// lease holder signs it (with its reserved nonce): a replica stopped
	// between reservation and recording. 0 means 10s; negative means at once.
	ReserveTimeout time.Duration
	// Rebroadcast is how often an unmined attempt is sent again (a node may
	// drop it). 0 means 10s.
	Rebroadcast time.Duration
	// MarketMaxAge is how long a read of base fee and tip is used to price
	// new attempts. 0 means Poll.
	MarketMaxAge time.Duration
	// RecordTTL is how long a final record is kept. A key submitted again
	// after its record expired is a new execution, so it must outlive every
	// caller that may retry it. 0 means 30 days; negative keeps records.
	RecordTTL time.Duration

	// UnclaimedTTL is how long a transaction of the key that the chain
	// holds and no record does (found after a restore of Redis, or a use
	// of the key outside xgr) waits for the execution that sent it to
	// adopt it; then it is forgotten with the warning "its key was used
	// outside xgr". 0 means DefaultUnclaimedTTL (1h).
	UnclaimedTTL time.Duration

	// Metrics receives the manager's measurements; nil records none.
	Metrics *Metrics
	// BalanceEvery is how often Run reads the sender's balance for the
	// xgr_txm_executor_balance_ether gauge (on every replica: one
	// eth_getBalance each time, lease or not), and only with Metrics and a
	// Chain that has BalanceAt. 0 means 15s; it is never shorter than Poll.
	// Negative reads none.
	BalanceEvery time.Duration
	// Log receives warnings (failed broadcasts, capped bumps); nil is
	// slog.Default().
	Log *slog.Logger

	// crash, when set (tests), is asked at every boundary of a submission
	// and a bump; true stops the call there as a crash would.
	crash func(stage, key string) bool
}

// withDefaults fills the zero values and checks the rest.
func (c Config) withDefaults() (Config, error) {
	if c.Redis == nil || c.Chain == nil || c.Key == nil {
		return c, fmt.Errorf("txmanager: Config needs Redis, Chain and Key")
	}
	if c.MaxInFlight == 0 {
		c.MaxInFlight = 64
	}
	if c.MaxInFlight < 0 {
		return c, fmt.Errorf("txmanager: MaxInFlight %d: want a positive number", c.MaxInFlight)
	}
	if c.MaxFeePerGas == nil {
		c.MaxFeePerGas = big.NewInt(500e9)
	}
	if c.BumpPercent == 0 {
		c.BumpPercent = 10
	}
	if c.BumpAfterBlocks == 0 {
		c.BumpAfterBlocks = 3
	}
	if c.Finality.Mode == "" {
		c.Finality.Mode = "confirmations"
		if c.Finality.Confirmations == 0 {
			c.Finality.Confirmations = 12
		}
	}
	if err := c.Finality.Check(); err != nil {
		return c, fmt.Errorf("txmanager: %w", err)
	}
	if err := (FeePolicy{MaxFeePerGas: c.MaxFeePerGas, BumpPercent: c.BumpPercent}).Check(); err != nil {
		return c, fmt.Errorf("txmanager: %w", err)
	}
	if c.Poll <= 0 {
		c.Poll = time.Second
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = DefaultLeaseTTL
	}
	if c.ReserveTimeout == 0 {
		c.ReserveTimeout = 10 * time.Second
	}
	if c.Rebroadcast <= 0 {
		c.Rebroadcast = 10 * time.Second
	}
	if c.BalanceEvery == 0 {
		c.BalanceEvery = 15 * time.Second
	}
	if c.BalanceEvery > 0 && c.BalanceEvery < c.Poll {
		c.BalanceEvery = c.Poll
	}
	if c.MarketMaxAge <= 0 {
		c.MarketMaxAge = c.Poll
	}
	if c.RecordTTL == 0 {
		c.RecordTTL = 30 * 24 * time.Hour
	}
	if c.UnclaimedTTL <= 0 {
		c.UnclaimedTTL = DefaultUnclaimedTTL
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	return c, nil
}
