package replica

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/logseal"
	"github.com/xgr-sidecar/xgr/rulesource"
)

// evidenceParts are what cfg.Evidence built: the grant store (always),
// the bundle store (nil without Bundles), the opener of encrypted rules
// (nil without a read key) and the key registry (nil without one).
type evidenceParts struct {
	grants  *grant.Store
	bundles *evidence.Store
	opener  rulesource.Opener
	keys    *chain.KeyRegistry
}

// openEvidence builds the evidence parts.
func (r *Replica) openEvidence(context.Context) error {
	ev := r.cfg.Evidence
	p := evidenceParts{grants: grant.New(r.rdb)}
	if ev.KeyRegistry != nil {
		p.keys = chain.NewKeyRegistry(*ev.KeyRegistry, r.chain)
	}
	if ev.Bundles {
		cfg := evidence.Config{Grants: p.grants, DefaultDays: ev.DefaultDays, MaxDays: ev.MaxDays, Day: ev.Day}
		if p.keys != nil {
			cfg.Sealer = &logseal.Sealer{Keys: p.keys}
		}
		st, err := evidence.New(r.rdb, cfg)
		if err != nil {
			return &Error{Part: PartEvidence, Usage: true, Err: err}
		}
		p.bundles = st
	}
	if ev.ReadKey != nil {
		p.opener = RuleOpener(ev.ReadKey, p.grants, ev.ReadKeyAccount, r.chain, time.Now)
	}
	r.evidence = p
	return nil
}

// consoleBundles is the store the console reads log bundles with: the
// replica's (st, with Bundles), else one on rdb that only reads, as `xgr
// session log` does (other replicas may write them).
func consoleBundles(rdb redis.UniversalClient, st *evidence.Store, grants *grant.Store) *evidence.Store {
	if st != nil {
		return st
	}
	st, err := evidence.New(rdb, evidence.Config{Grants: grants})
	if err != nil {
		return nil // the defaults are valid; nil: the console reads no bundles
	}
	return st
}

// RuleOpener opens encrypted rules with xgr's read key: the data key of a
// live READ grant to account on (rid, scope 1) in the grant store, and,
// when there is a node, the rule contract's own encryption header
// (rulesource.HeaderGrant), tried when the grant is missing or does not
// open.
func RuleOpener(key *envelope.ReadKey, grants *grant.Store, account string, b chain.Backend, now func() time.Time) *rulesource.KeyOpener {
	o := &rulesource.KeyOpener{Key: key, Grant: func(ctx context.Context, contract common.Address, rid envelope.RID) (string, bool, error) {
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
	}}
	if b != nil {
		o.Header = rulesource.HeaderGrant(b)
	}
	return o
}
