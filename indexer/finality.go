package indexer

import (
	"context"
	"fmt"
	"math/big"
	"strconv"

	"github.com/ethereum/go-ethereum/rpc"
)

// Finality is when a trigger log may start its session: the node's
// finalized or safe block, or a count of confirmations ("auto": the
// finalized block if the node has the tag, else confirmations).
type Finality struct {
	Mode          string // auto, finalized, safe or confirmations
	Confirmations uint64
}

// DefaultFinality is the finality of a config that sets none: auto, with
// 12 confirmations where the node has no finalized block.
var DefaultFinality = Finality{Mode: "auto", Confirmations: 12}

// DefaultWindow is the number of recent blocks the index keeps by default.
const DefaultWindow = 128

// DefaultConfig is the index configuration of a config file that sets
// nothing: no registries, DefaultFinality and DefaultWindow.
func DefaultConfig() *Config {
	return &Config{Window: DefaultWindow, Confirmations: DefaultFinality.Confirmations, Finality: DefaultFinality.Mode}
}

// FinalityOf is the finality c sets (DefaultFinality for a nil c).
func FinalityOf(c *Config) Finality {
	if c == nil {
		return DefaultFinality
	}
	return Finality{Mode: c.Finality, Confirmations: c.Confirmations}
}

// FinalView is the chain as a finality rule sees it now.
type FinalView struct {
	Head uint64
	// Final is the newest block whose logs may start sessions; OK is false
	// while the chain is shorter than the confirmations.
	Final uint64
	OK    bool
	// Rule says what decided Final: "finalized block", "safe block" or
	// "N confirmations"; Fallback is set when auto found no finalized tag.
	Rule     string
	Fallback bool
}

// Lag is how many blocks the final block is behind the head.
func (v FinalView) Lag() uint64 {
	if !v.OK || v.Final > v.Head {
		return 0
	}
	return v.Head - v.Final
}

// View reads the head and the final block. A node without the tag asked
// for is an error for "finalized" and "safe"; "auto" then counts
// confirmations (Fallback).
func (f Finality) View(ctx context.Context, c HeadReader) (FinalView, error) {
	tip, err := c.BlockNumber(ctx)
	if err != nil {
		return FinalView{}, err
	}
	v := FinalView{Head: tip}
	tags := map[string]int64{"finalized": int64(rpc.FinalizedBlockNumber), "safe": int64(rpc.SafeBlockNumber), "auto": int64(rpc.FinalizedBlockNumber)}
	if n, ok := tags[f.Mode]; ok {
		h, err := c.HeaderByNumber(ctx, big.NewInt(n))
		switch {
		case err == nil && h != nil:
			v.Final, v.OK, v.Rule = h.Number.Uint64(), true, map[string]string{"safe": "safe block"}[f.Mode]
			if v.Rule == "" {
				v.Rule = "finalized block"
			}
			return v, nil
		case f.Mode != "auto":
			return FinalView{}, fmt.Errorf("the node has no %s block: %v (use finality: confirmations)", f.Mode, err)
		}
		v.Fallback = true
	}
	v.Final, v.OK = Confirmed(tip, f.Confirmations)
	v.Rule = strconv.FormatUint(max(f.Confirmations, 1), 10) + " confirmations"
	return v, nil
}

// FinalAt is the head at which a log of block becomes final under
// confirmations (0 for the tag modes, which the node decides).
func (f Finality) FinalAt(v FinalView, block uint64) uint64 {
	if v.Rule == "finalized block" || v.Rule == "safe block" {
		return 0
	}
	return block + max(f.Confirmations, 1) - 1
}
