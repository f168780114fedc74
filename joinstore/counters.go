package joinstore

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/xgr-sidecar/xgr/internal/redisscan"
)

// CounterRepair is an owner's root pid counter found below a session that
// exists or is indexed: Redis lost acknowledged writes of the counter (an
// append-only file cut back, a failover to a replica that lacked them), and
// without the repair the next starts would be given ids that are taken.
type CounterRepair struct {
	Owner string
	// Counter is what the counter held; Newest the newest session found
	// above it (in the root index, the owner's index, or by its keys), to
	// which it was raised.
	Counter, Newest int64
}

func (r CounterRepair) String() string {
	return fmt.Sprintf("owner %s: root pid counter %d is below session %d; raised to %d", r.Owner, r.Counter, r.Newest, r.Newest)
}

// maxProbe bounds how many consecutive root pids above a counter
// RepairCounters looks for sessions of.
const maxProbe = 1000

// RepairCounters looks, for every owner, for sessions above its root pid
// counter — in the global root index, in the owner's index, and by probing
// the session keys of the next root pids — and raises the counter to the
// newest it finds, so that root pids are not handed out twice. It scans
// keys: for a replica's start-up, not a hot path. It returns the repairs
// (none when nothing was lost).
func (s *Store) RepairCounters(ctx context.Context) ([]CounterRepair, error) {
	newest := map[string]int64{}
	for n := range RootShards {
		members, err := s.rdb.ZRange(ctx, shardKey(n), 0, -1).Result()
		if err != nil {
			return nil, fmt.Errorf("read root index %s: %w", shardKey(n), err)
		}
		for _, m := range members {
			if r, err := ParseRoot(m); err == nil && r.RootPid > newest[r.Owner] {
				newest[r.Owner] = r.RootPid
			}
		}
	}
	seqs, err := redisscan.Keys(ctx, s.rdb, "xgr:{own:*}:seq")
	if err != nil {
		return nil, fmt.Errorf("scan owner counters: %w", err)
	}
	for _, k := range seqs {
		owner := strings.TrimSuffix(strings.TrimPrefix(k, "xgr:{own:"), "}:seq")
		if _, ok := newest[owner]; !ok && CheckOwner(owner) == nil {
			newest[owner] = 0
		}
	}
	owners := make([]string, 0, len(newest))
	for o := range newest {
		owners = append(owners, o)
	}
	sort.Strings(owners)
	var out []CounterRepair
	for _, owner := range owners {
		ok := ownerKeysOf(owner)
		// The counter raised to the owner's index, as a start counts it
		// (lib/root_seq.lua), then to the root index.
		next, seq, err := s.nextRoot(ctx, owner)
		if err != nil {
			return out, err
		}
		if s.repairHook != nil {
			s.repairHook(owner)
		}
		top := max(newest[owner], next-1)
		// Sessions above whatever is known, not indexed (finished, paused).
		for range maxProbe {
			n, err := s.rdb.Exists(ctx, keysOf(Root{Owner: owner, RootPid: top + 1}).meta()).Result()
			if err != nil {
				return out, err
			}
			if n == 0 {
				break
			}
			top++
		}
		if top > seq {
			// A start between the counter's read and the probe made a
			// session above it: read the counter again. A start counts
			// before it writes its session, so a session above the counter
			// read after it is a lost write, never a start in flight.
			if s.repairHook != nil {
				s.repairHook(owner)
			}
			if _, seq, err = s.nextRoot(ctx, owner); err != nil {
				return out, err
			}
		}
		if top <= seq {
			continue
		}
		if err := s.eval(ctx, scriptAllocRoot, ok.all(), "-", "0", "", strconv.FormatInt(top, 10)).Err(); err != nil {
			return out, fmt.Errorf("raise the root pid counter of %s: %w", owner, err)
		}
		out = append(out, CounterRepair{Owner: owner, Counter: seq, Newest: top})
	}
	return out, nil
}
