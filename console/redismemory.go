package console

import (
	"bufio"
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// RedisMemory is what one Redis server says in INFO memory.
type RedisMemory struct {
	// Node is the server's address.
	Node string `json:"node"`
	// UsedMemory and MaxMemory are bytes (decimal text, as Redis says
	// them; maxmemory 0 means no limit), the rest as Redis words them.
	UsedMemory      string `json:"usedMemory"`
	UsedMemoryHuman string `json:"usedMemoryHuman"`
	PeakHuman       string `json:"peakHuman"`
	MaxMemory       string `json:"maxMemory"`
	MaxMemoryHuman  string `json:"maxMemoryHuman"`
	Policy          string `json:"policy"`
	Fragmentation   string `json:"fragmentation"`
	Error           string `json:"error,omitempty"`
}

// ParseInfoMemory reads the fields of an INFO memory answer.
func ParseInfoMemory(node, info string) RedisMemory {
	m := RedisMemory{Node: node}
	fields := map[string]*string{"used_memory": &m.UsedMemory, "used_memory_human": &m.UsedMemoryHuman,
		"used_memory_peak_human": &m.PeakHuman, "maxmemory": &m.MaxMemory, "maxmemory_human": &m.MaxMemoryHuman,
		"maxmemory_policy": &m.Policy, "mem_fragmentation_ratio": &m.Fragmentation}
	sc := bufio.NewScanner(strings.NewReader(info))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":")
		if dst := fields[k]; ok && dst != nil {
			*dst = v
		}
	}
	return m
}

// redisMemory asks every master (one server, or each master of a
// cluster) for INFO memory; nil when the console has no Redis client.
func (c *Console) redisMemory(ctx context.Context, errs map[string]string) []RedisMemory {
	read := func(ctx context.Context, cl *redis.Client) RedisMemory {
		addr := cl.Options().Addr
		info, err := cl.Info(ctx, "memory").Result()
		if err != nil {
			return RedisMemory{Node: addr, Error: "INFO memory: " + err.Error()}
		}
		return ParseInfoMemory(addr, info)
	}
	switch cl := c.cfg.Redis.(type) {
	case nil:
		errs["redis"] = "this replica gave the console no Redis client (Config.Redis): memory not shown"
		return nil
	case *redis.Client:
		return []RedisMemory{read(ctx, cl)}
	case *redis.ClusterClient:
		var mu sync.Mutex
		var out []RedisMemory
		err := cl.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			r := read(ctx, m)
			mu.Lock()
			out = append(out, r)
			mu.Unlock()
			return nil
		})
		if err != nil {
			errs["redis"] = err.Error()
		}
		sortMemory(out)
		return out
	default:
		errs["redis"] = "INFO memory: unsupported Redis client type"
		return nil
	}
}

func sortMemory(m []RedisMemory) { sort.Slice(m, func(i, j int) bool { return m[i].Node < m[j].Node }) }
