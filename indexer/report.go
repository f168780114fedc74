package indexer

import "time"

// backfillReport decides when a long backfill logs its progress: at most
// once every Every (default 5 s), and never at the head. Each line says
// where the index is, the chain head it is catching up with, and the
// blocks and cache entries per second since the previous line.
type backfillReport struct {
	Every time.Duration
	last  time.Time
	from  uint64
	// entries counts the cache changes committed since the last line.
	entries int
	started bool
}

// observe records a step; it returns the attributes of a progress line
// when one is due.
func (r *backfillReport) observe(p Progress, now time.Time, rangeSize uint64) ([]any, bool) {
	if r.Every <= 0 {
		r.Every = 5 * time.Second
	}
	if !r.started {
		r.started, r.last, r.from = true, now, p.From
	}
	r.entries += p.Changes
	atHead := p.To >= p.Head && !p.Rewound
	elapsed := now.Sub(r.last)
	if elapsed <= r.Every || atHead || p.To < r.from {
		return nil, false
	}
	secs := elapsed.Seconds()
	attrs := []any{"block", p.To, "head", p.Head, "remaining", p.Head - p.To,
		"blocks_per_s", float64(p.To-r.from) / secs, "entries", r.entries, "entries_per_s", float64(r.entries) / secs, "range", rangeSize}
	r.last, r.from, r.entries = now, p.To, 0
	return attrs, true
}
