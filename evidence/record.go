package evidence

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/xgr-sidecar/xgr/grant"
)

// Record stores the bundle of a step whose commit just succeeded: as Put,
// without Put's check for a bundle already there (a step commits once;
// the write is still write-once). A plaintext bundle goes with its grants
// in one round trip (a pipeline: the grants' scripts, then put_bundle.lua);
// an encrypted one as Prepare and Write, so that its readers' wrapped keys
// are stored before the envelope only they can open.
func (s *Store) Record(ctx context.Context, b *Bundle, p Policy, now time.Time) (*Stored, error) {
	if p.Encrypt {
		prep, err := s.Prepare(ctx, b, p, now)
		if err != nil {
			return nil, err
		}
		return s.Write(ctx, prep, now)
	}
	prep, grants, err := s.prepare(ctx, b, p, 0, now)
	if err != nil {
		return nil, err
	}
	for try := 0; ; try++ {
		pipe := s.rdb.Pipeline()
		if err := s.cfg.Grants.Queue(ctx, pipe, prep.Stored.RID, grant.ScopeLog, grants, now); err != nil {
			return nil, fmt.Errorf("evidence: bundle %s: grants: %w", b.Pid, err)
		}
		put := scriptPut.EvalSha(ctx, pipe, []string{prep.Key}, append([]any{prep.TTL.Milliseconds()}, prep.Fields...)...)
		_, err := pipe.Exec(ctx)
		if err != nil && try == 0 && strings.Contains(err.Error(), "NOSCRIPT") {
			// The writes are idempotent: load the scripts and send again.
			if err := s.loadScripts(ctx); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("evidence: bundle %s: %w", b.Pid, err)
		}
		out := prep.Stored
		out.Created = put.Val() == int64(1)
		return &out, nil
	}
}

func (s *Store) loadScripts(ctx context.Context) error {
	if err := s.cfg.Grants.LoadScripts(ctx); err != nil {
		return err
	}
	if err := scriptPut.Load(ctx, s.rdb).Err(); err != nil {
		return fmt.Errorf("evidence: load scripts: %w", err)
	}
	return nil
}

// queueGrants writes grants as Put does, in one pipeline (grant.Store.Queue;
// the scripts loaded and the pipeline sent again on NOSCRIPT: the writes
// are idempotent).
func (s *Store) queueGrants(ctx context.Context, rid grant.RID, scope uint8, grants []grant.Grant, now time.Time) error {
	if len(grants) == 0 {
		return nil
	}
	for try := 0; ; try++ {
		pipe := s.rdb.Pipeline()
		if err := s.cfg.Grants.Queue(ctx, pipe, rid, scope, grants, now); err != nil {
			return err
		}
		_, err := pipe.Exec(ctx)
		if err != nil && try == 0 && strings.Contains(err.Error(), "NOSCRIPT") {
			if err := s.cfg.Grants.LoadScripts(ctx); err != nil {
				return err
			}
			continue
		}
		return err
	}
}
