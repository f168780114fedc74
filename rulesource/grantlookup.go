package rulesource

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/grant"
)

// NewKeyOpener is the opener xgr runs with: xgr's read key, the data key
// of a live READ grant to account in the grant store (StoreGrant) and,
// when b is not nil, the rule contract's own encryption header
// (HeaderGrant), tried when the grant is missing or does not open.
func NewKeyOpener(key *envelope.ReadKey, grants *grant.Store, account string, b chain.Backend, now func() time.Time) *KeyOpener {
	o := &KeyOpener{Key: key, Grant: StoreGrant(grants, account, now)}
	if b != nil {
		o.Header = HeaderGrant(b)
	}
	return o
}

// StoreGrant is a grant lookup (KeyOpener.Grant) in a grant store: the
// data key wrapped by a live grant with READ on (rid, scope 1) to account
// (a normalized address, grant.NormalizeAddress), when it holds one. With
// no account there is none, and grants is not read (it may be nil).
func StoreGrant(grants *grant.Store, account string, now func() time.Time) GrantLookup {
	return func(ctx context.Context, _ common.Address, rid envelope.RID) (string, bool, error) {
		if account == "" {
			return "", false, nil
		}
		g, err := grants.Get(ctx, grant.RID(rid), grant.ScopeRule, account)
		if err != nil {
			return "", false, err
		}
		if grant.MayRead(g, account, grant.RID(rid), grant.ScopeRule, now()) && g.EncDEK != "" {
			return g.EncDEK, true, nil
		}
		return "", false, nil
	}
}
