package joinstore

import (
	"context"
	"fmt"
	"sync"

	"github.com/redis/go-redis/v9"
)

// Durability is what a Redis server says about persistence.
type Durability struct {
	// Node names the server (its address in a cluster, "" for one server).
	Node string
	// AppendOnly and Fsync are its appendonly and appendfsync settings.
	AppendOnly, Fsync string
}

// Problem says why a server may lose acknowledged writes on a crash, or ""
// when it is configured as xgr needs: appendonly yes and appendfsync
// always, or everysec when acceptEverysec (the operator accepted losing up
// to a second of acknowledged writes on an OS crash). Lost writes can undo
// commits that replicas already acted on (an executed step committed
// again, a root pid handed out twice); see docs/operating.md.
func (d Durability) Problem(acceptEverysec bool) string {
	switch {
	case d.AppendOnly != "yes":
		return fmt.Sprintf("appendonly is %q: %s (set appendonly yes, appendfsync always)", d.AppendOnly, d.Risk())
	case d.Fsync == "always":
		return ""
	case d.Fsync == "everysec" && acceptEverysec:
		return ""
	case d.Fsync == "everysec":
		return fmt.Sprintf("appendfsync is \"everysec\": %s (set appendfsync always, or accept the risk with --accept-aof-everysec)", d.Risk())
	}
	return fmt.Sprintf("appendfsync is %q: %s (set appendfsync always)", d.Fsync, d.Risk())
}

// Risk says what a crash can take with this setting: which acknowledged
// writes are lost and what can then be handed out again.
func (d Durability) Risk() string {
	switch {
	case d.AppendOnly != "yes":
		return "a restart loses every write since the last snapshot: sessions, steps, and the counters that keep root pids unique (ids are reused) and the replay records of SessionPermits"
	case d.Fsync == "always":
		return "none: every write is on disk before Redis acknowledges it"
	case d.Fsync == "everysec":
		return "an OS crash or power loss loses up to about a second of acknowledged writes (a kill of redis-server alone loses none): starts acknowledged in that second vanish and their session ids go to later starts, a SessionPermit's replay record may vanish, a committed step may run again"
	}
	return "an OS crash or power loss loses the writes the OS had not flushed yet (up to about 30 s): acknowledged starts and steps vanish, session ids are reused, SessionPermits may be replayed"
}

// Durability reads the persistence settings of the server, or of every
// master of a cluster (CONFIG GET; managed services that disable CONFIG
// return an error, which the caller reports as "cannot check").
func (s *Store) Durability(ctx context.Context) ([]Durability, error) {
	read := func(ctx context.Context, c *redis.Client) (Durability, error) {
		m, err := c.ConfigGet(ctx, "append*").Result()
		if err != nil {
			return Durability{}, fmt.Errorf("CONFIG GET append* on %s: %w", c.Options().Addr, err)
		}
		return Durability{AppendOnly: m["appendonly"], Fsync: m["appendfsync"]}, nil
	}
	switch c := s.rdb.(type) {
	case *redis.Client:
		d, err := read(ctx, c)
		return []Durability{d}, err
	case *redis.ClusterClient:
		var mu sync.Mutex
		var out []Durability
		err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			d, err := read(ctx, m)
			d.Node = m.Options().Addr
			mu.Lock()
			out = append(out, d)
			mu.Unlock()
			return err
		})
		return out, err
	}
	m, err := s.rdb.ConfigGet(ctx, "append*").Result()
	if err != nil {
		return nil, fmt.Errorf("CONFIG GET append*: %w", err)
	}
	return []Durability{{AppendOnly: m["appendonly"], Fsync: m["appendfsync"]}}, nil
}
