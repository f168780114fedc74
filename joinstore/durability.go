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
// when it is configured as xgr needs: appendonly yes, and appendfsync
// everysec (at most a second of writes lost) or always. Lost writes can
// undo commits that replicas already acted on (an executed step committed
// again, a root pid handed out twice); see docs/operating.md.
func (d Durability) Problem() string {
	switch {
	case d.AppendOnly != "yes":
		return fmt.Sprintf("appendonly is %q: a restart loses every write since the last snapshot (set appendonly yes)", d.AppendOnly)
	case d.Fsync != "everysec" && d.Fsync != "always":
		return fmt.Sprintf("appendfsync is %q: a crash may lose writes the OS had not flushed (use everysec or always)", d.Fsync)
	}
	return ""
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
