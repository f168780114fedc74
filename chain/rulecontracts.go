package chain

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
)

// RuleContracts reads XRC-137 rule contracts on a node for the gateway:
// a contract's owner() and the RID of its encryption header (who may
// change grants on a rule's RID, rpc.RuleOwners) and its stored text
// (rpc.RuleReader).
type RuleContracts struct{ Backend Backend }

// RuleOwner is the rule contract's owner() and the RID of its
// encryption header.
func (r RuleContracts) RuleOwner(ctx context.Context, contract common.Address) (common.Address, common.Hash, error) {
	rule := NewRule(contract, r.Backend)
	owner, err := rule.Owner(ctx)
	if err != nil {
		return common.Address{}, common.Hash{}, err
	}
	enc, err := rule.Encryption(ctx)
	return owner, enc.RID, err
}

// RuleText is the rule contract's stored text and whether it is
// encrypted.
func (r RuleContracts) RuleText(ctx context.Context, contract common.Address) (string, bool, error) {
	st, err := NewRule(contract, r.Backend).Stored(ctx)
	return st.Text, st.Encrypted, err
}
