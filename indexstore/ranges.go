package indexstore

import (
	"context"
	"strconv"
)

// SaveRange remembers the log range an endpoint accepts.
func (x *Index) SaveRange(ctx context.Context, endpoint string, size uint64) error {
	return x.rdb.HSet(ctx, x.ranges(), endpoint, size).Err()
}

// Ranges returns the learned log ranges by endpoint.
func (x *Index) Ranges(ctx context.Context) (map[string]uint64, error) {
	m, err := x.rdb.HGetAll(ctx, x.ranges()).Result()
	if err != nil {
		return nil, err
	}
	out := make(map[string]uint64, len(m))
	for k, v := range m {
		out[k], _ = strconv.ParseUint(v, 10, 64)
	}
	return out, nil
}
