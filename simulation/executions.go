package simulation

import (
	"regexp"
	"strings"
	"time"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/execution/onchain"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
)

// Executions is how a simulation treats steps' executions: sent on chain
// (Sender), previewed with eth_call (Preview), or neither (the zero
// value: reported not performed).
type Executions struct {
	Sender  execution.Actuator
	Preview *onchain.Previewer
}

// Actuator is the Runner's: the sender paced in real time on a virtual
// clock (its polls would otherwise spin), the previewer, or nil (off).
func (s *Executions) Actuator(virtual bool, every time.Duration) execution.Actuator {
	switch {
	case s == nil:
		return nil
	case s.Preview != nil:
		return s.Preview
	case s.Sender == nil:
		return nil
	case virtual:
		return execution.Paced{Actuator: s.Sender, Every: every}
	}
	return s.Sender
}

// unsentTx is how the reactor describes a previewed outcome's
// transaction, which was never sent.
var unsentTx = regexp.MustCompile(`tx 0x0{64} in block 0, gas [0-9]+: `)

// Describe rewrites a previewed execution's outcome line: "preview: would
// succeed (gas N)" or "preview: reverts: REASON" instead of a transaction
// that was never sent.
func (s *Executions) Describe(root joinstore.Root, e reactor.Event) reactor.Event {
	if s == nil || s.Preview == nil {
		return e
	}
	if e.Type != reactor.EvExecOutcome {
		// A flip's reason quotes the reverted outcome: no transaction.
		e.Detail = unsentTx.ReplaceAllString(e.Detail, "preview: ")
		return e
	}
	key := reactor.ExecKey(root, e.Pid)
	r, ok := s.Preview.Result(key + reactor.FlipKeySuffix)
	if !ok {
		if r, ok = s.Preview.Result(key); !ok {
			return e
		}
	}
	const flips = "; the step flips to invalid"
	d := r.Describe()
	if strings.HasSuffix(e.Detail, flips) {
		d += flips
	}
	e.Detail = d
	return e
}
