package authority

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/registry"
)

// Checker judges runners with facts from a Reader. Safe for concurrent use
// when its Reader is.
type Checker struct {
	reader Reader
}

// NewChecker returns a checker that reads facts through r.
func NewChecker(r Reader) *Checker { return &Checker{reader: r} }

// Check reads the facts of p's contracts and judges runner on them. An
// error means the facts could not be read and nothing was decided; a
// refusal is in the coverage (Coverage.Err).
func (c *Checker) Check(ctx context.Context, runner common.Address, p Plan) (Coverage, error) {
	contracts := p.Contracts()
	facts := make(map[common.Address]Facts, len(contracts))
	if len(contracts) > 0 {
		fs, err := c.reader.Facts(ctx, contracts)
		if err != nil {
			return Coverage{}, fmt.Errorf("read the authority of runner %s: %w", runner.Hex(), err)
		}
		if len(fs) != len(contracts) {
			return Coverage{}, fmt.Errorf("read the authority of runner %s: %d facts for %d contracts", runner.Hex(), len(fs), len(contracts))
		}
		for i, f := range fs {
			facts[contracts[i]] = f
		}
	}
	return Decide(runner, p, facts), nil
}

// Authorize is nil when runner may run sessions of orchestration o
// recorded under the XRC-729 registry reg: it is owner or executor of the
// registry and of every rule contract o references by address. reg nil
// judges the rule contracts alone (a session of a local file); o nil the
// registry alone (before the orchestration is read). A refusal is an
// *Error; any other error means the facts could not be read.
func (c *Checker) Authorize(ctx context.Context, runner common.Address, reg *common.Address, o *registry.Orchestration) error {
	cov, err := c.Check(ctx, runner, PlanFor(reg, o))
	if err != nil {
		return err
	}
	return cov.Err()
}
