package rpc

import (
	"context"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// thisStart refuses (CodeConflict, not-this-start) a read that names its
// start (key, when not nil and not empty) of a session another start
// created: after Redis lost acknowledged writes, a session id may have gone
// to a later start. meta is the session's meta when the caller read it
// already (nil: read here); a session that does not exist passes (the
// caller answers for it as without a key).
func (s *Service) thisStart(ctx context.Context, root joinstore.Root, key *string, path string, meta *joinstore.SessionMeta) error {
	if key == nil || *key == "" {
		return nil
	}
	if meta == nil {
		m, err := s.cfg.Store.SessionMeta(ctx, root)
		switch {
		case joinstoreNotFound(err):
			return nil
		case err != nil:
			return internal("session", err)
		}
		meta = &m
	}
	if meta.StartKey != *key {
		return fail(CodeConflict, "not-this-start", path,
			"session %d of %s was not created by the start with this key: Redis lost acknowledged writes and the id went to another start; start again", root.RootPid, root.Owner)
	}
	return nil
}
