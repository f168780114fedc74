package indexstore

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

func (x *Index) finality() string { return x.prefix + "finality" }

// FinalityRecord is the trigger finality rule the indexing replica last
// started indexing with (its config's finality: and confirmations:), so
// that a tool without the config (xgr index status) reports the rule the
// replicas use rather than a default.
type FinalityRecord struct {
	// Mode is auto, finalized, safe or confirmations.
	Mode string
	// Confirmations is the confirmations of Mode confirmations (and of
	// auto on a node without a finalized tag).
	Confirmations uint64
	// Replica names the replica that recorded it; At is when.
	Replica string
	At      time.Time
}

// SaveFinality records r as the index's finality rule, replacing the last
// record. The indexing replica calls it when it takes up indexing.
func (x *Index) SaveFinality(ctx context.Context, r FinalityRecord) error {
	return x.rdb.HSet(ctx, x.finality(), "mode", r.Mode, "confirmations", r.Confirmations,
		"replica", r.Replica, "at", r.At.UnixMilli()).Err()
}

// Finality returns the recorded finality rule; ok is false when no
// indexing replica has recorded one yet.
func (x *Index) Finality(ctx context.Context) (r FinalityRecord, ok bool, err error) {
	m, err := x.rdb.HGetAll(ctx, x.finality()).Result()
	if err != nil || len(m) == 0 {
		return r, false, err
	}
	conf, err := strconv.ParseUint(m["confirmations"], 10, 64)
	if err != nil || m["mode"] == "" {
		return r, false, fmt.Errorf("index finality record %s: mode %q, confirmations %q: want a mode and a whole number", x.finality(), m["mode"], m["confirmations"])
	}
	at, _ := strconv.ParseInt(m["at"], 10, 64)
	return FinalityRecord{Mode: m["mode"], Confirmations: conf, Replica: m["replica"], At: time.UnixMilli(at).UTC()}, true, nil
}
