package replica

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/chain"
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
		p.opener = rulesource.NewKeyOpener(ev.ReadKey, p.grants, ev.ReadKeyAccount, r.chain, time.Now)
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
