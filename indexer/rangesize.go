package indexer

import (
	"errors"
	"strings"
)

// RangeSizer learns how many blocks one eth_getLogs request may span on an
// endpoint: it starts around 2,000, halves on the providers' "too many
// results / range too large" errors and grows slowly after successes.
type RangeSizer struct {
	// Size is the current range in blocks.
	Size uint64
	// Min and Max bound it.
	Min, Max uint64
	// streak counts successes since the last change.
	streak int
}

// NewRangeSizer starts at start blocks (default 2,000), between 1 and max
// (default 100,000).
func NewRangeSizer(start, max uint64) *RangeSizer {
	if start == 0 {
		start = 2000
	}
	if max == 0 {
		max = 100_000
	}
	return &RangeSizer{Size: min(start, max), Min: 1, Max: max}
}

// growAfter is how many successes in a row earn a larger range.
const growAfter = 4

// Success records a request that returned; the range grows by a quarter
// after a few in a row.
func (r *RangeSizer) Success() {
	r.streak++
	if r.streak >= growAfter && r.Size < r.Max {
		r.Size = min(r.Max, r.Size+max(1, r.Size/4))
		r.streak = 0
	}
}

// Failure records an error. It reports whether the error was the provider
// refusing the range (the range was halved and the request should be
// retried) rather than some other failure.
func (r *RangeSizer) Failure(err error) bool {
	r.streak = 0
	if !IsRangeError(err) {
		return false
	}
	r.Size = max(r.Min, r.Size/2)
	return true
}

// rangeErrors are fragments of the errors providers return for log queries
// that span too much (geth, Alchemy, Infura, QuickNode, Ankr, anvil, …).
var rangeErrors = []string{
	"query returned more than",
	"too many results",
	"range is too large",
	"range too large",
	"block range",
	"exceed maximum block range",
	"limit exceeded",
	"response size exceeded",
	"query timeout exceeded",
	"log response size",
	"logs matched by query exceeds",
}

// IsRangeError reports whether err is a provider refusing a log range.
func IsRangeError(err error) bool {
	if err == nil {
		return false
	}
	var rerr interface{ ErrorCode() int }
	if errors.As(err, &rerr) && rerr.ErrorCode() == -32005 {
		return true
	}
	msg := strings.ToLower(err.Error())
	for _, f := range rangeErrors {
		if strings.Contains(msg, f) {
			return true
		}
	}
	return false
}
