package joinstore

import (
	"context"
	"fmt"
	"time"
)

// Stall records on a session, under the root lease (replica, token), why
// its holder cannot run it (reason), and returns how many tries in a row
// failed so (SessionMeta.Stalls). ErrRootHeld when the lease is no longer
// the caller's.
func (s *Store) Stall(ctx context.Context, root Root, replica string, token int64, reason string, now time.Time) (int64, error) {
	k := keysOf(root)
	res, err := s.eval(ctx, scriptStall, []string{k.lease(), k.meta()}, replica, token, reason, now.UnixMilli()).Result()
	if err != nil {
		return 0, fmt.Errorf("session %s: record a stall: %w", root, err)
	}
	n, ok := res.(int64)
	if !ok {
		return 0, fmt.Errorf("session %s: record a stall: %w", root, ErrRootHeld)
	}
	return n, nil
}

// Unstall clears a session's stall record under the root lease (replica,
// token): its holder opened it. ErrRootHeld when the lease is no longer
// the caller's.
func (s *Store) Unstall(ctx context.Context, root Root, replica string, token int64) error {
	k := keysOf(root)
	res, err := s.eval(ctx, scriptUnstall, []string{k.lease(), k.meta()}, replica, token).Text()
	switch {
	case err != nil:
		return fmt.Errorf("session %s: clear its stall: %w", root, err)
	case res != "cleared":
		return fmt.Errorf("session %s: clear its stall: %w", root, ErrRootHeld)
	}
	return nil
}
