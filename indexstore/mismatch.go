package indexstore

import "context"

// RecordMismatch appends a hash mismatch record (the list keeps the last 1,000).
func (x *Index) RecordMismatch(ctx context.Context, record string) error {
	pipe := x.rdb.TxPipeline()
	pipe.RPush(ctx, x.mismatches(), record)
	pipe.LTrim(ctx, x.mismatches(), -1000, -1)
	_, err := pipe.Exec(ctx)
	return err
}

// Mismatches returns the recorded hash mismatches, oldest first.
func (x *Index) Mismatches(ctx context.Context) ([]string, error) {
	return x.rdb.LRange(ctx, x.mismatches(), 0, -1).Result()
}
