package metric

import (
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/joinstore"
)

// scrapeTimeout bounds the reads a scrape makes (Redis, the node).
const scrapeTimeout = 2 * time.Second

// AddSessions registers the session manager's gauges: the sessions this
// replica runs now (running) and the due queue read from Redis at each
// scrape (xgr_due_sessions, xgr_due_oldest_age_seconds).
func (s *Set) AddSessions(store *joinstore.Store, running func() int) {
	s.Registry.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "xgr_sessions_running", Help: "Sessions this replica runs now."},
			func() float64 { return float64(running()) }),
		&dueCollector{store: store, errs: prometheus.NewCounter(prometheus.CounterOpts{Name: "xgr_due_scrape_errors_total",
			Help: "Scrapes that could not read the due queue from Redis (xgr_due_* are then absent)."})})
}

var (
	dueDepth = prometheus.NewDesc("xgr_due_sessions",
		"Sessions whose due time (or expired lease) has come and that no replica has picked up yet: the due queue's depth.", nil, nil)
	dueAge = prometheus.NewDesc("xgr_due_oldest_age_seconds",
		"How long the oldest session of the due queue has been due (0 when the queue is empty).", nil, nil)
)

type dueCollector struct {
	store *joinstore.Store
	errs  prometheus.Counter
}

func (c *dueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- dueDepth
	ch <- dueAge
	c.errs.Describe(ch)
}

func (c *dueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	now := time.Now()
	depth, oldest, err := c.store.DueBacklog(ctx, now)
	if err == nil {
		age := 0.0
		if !oldest.IsZero() && oldest.Before(now) {
			age = now.Sub(oldest).Seconds()
		}
		ch <- prometheus.MustNewConstMetric(dueDepth, prometheus.GaugeValue, float64(depth))
		ch <- prometheus.MustNewConstMetric(dueAge, prometheus.GaugeValue, age)
	} else {
		c.errs.Inc()
	}
	c.errs.Collect(ch)
}

// AddIndex registers the chain index's gauges, read at each scrape from
// the node (head, finalized block) and Redis (checkpoint, pending
// triggers): xgr_indexer_head_block, _finalized_block, _checkpoint_block,
// _lag_blocks, _finalized_lag_blocks and _pending_triggers.
func (s *Set) AddIndex(chain indexer.HeadReader, idx *indexstore.Index) {
	s.Registry.MustRegister(&indexCollector{chain: chain, idx: idx, errs: s.indexScrapeErrs})
}

var (
	idxHead        = prometheus.NewDesc("xgr_indexer_head_block", "The node's head block number.", nil, nil)
	idxFinalized   = prometheus.NewDesc("xgr_indexer_finalized_block", "The node's finalized block number (absent when the node has no finalized tag).", nil, nil)
	idxCheckpoint  = prometheus.NewDesc("xgr_indexer_checkpoint_block", "The last block the index committed (absent before the first commit).", nil, nil)
	idxLag         = prometheus.NewDesc("xgr_indexer_lag_blocks", "Blocks between the node's head and the index checkpoint.", nil, nil)
	idxFinalLag    = prometheus.NewDesc("xgr_indexer_finalized_lag_blocks", "Blocks between the node's head and its finalized block: how long triggers wait under finality finalized or auto.", nil, nil)
	idxPending     = prometheus.NewDesc("xgr_indexer_pending_triggers", "Trigger starts recorded and not started yet (waiting for finality, their orchestration, or a retry).", nil, nil)
	indexCollected = []*prometheus.Desc{idxHead, idxFinalized, idxCheckpoint, idxLag, idxFinalLag, idxPending}
)

type indexCollector struct {
	chain indexer.HeadReader
	idx   *indexstore.Index
	errs  prometheus.Counter
}

func (c *indexCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range indexCollected {
		ch <- d
	}
}

func (c *indexCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	gauge := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	tip, err := c.chain.BlockNumber(ctx)
	if err != nil {
		c.errs.Inc()
		return
	}
	gauge(idxHead, float64(tip))
	if h, err := c.chain.HeaderByNumber(ctx, big.NewInt(int64(rpc.FinalizedBlockNumber))); err == nil && h != nil {
		gauge(idxFinalized, float64(h.Number.Uint64()))
		gauge(idxFinalLag, float64(int64(tip)-int64(h.Number.Uint64())))
	}
	head, ok, err := c.idx.Head(ctx)
	if err != nil {
		c.errs.Inc()
		return
	}
	if ok {
		gauge(idxCheckpoint, float64(head.Number))
		gauge(idxLag, float64(int64(tip)-int64(head.Number)))
	}
	if n, err := c.idx.PendingCount(ctx); err == nil {
		gauge(idxPending, float64(n))
	}
}

// AddIndexLease registers xgr_indexer_lease_held: 1 while leading says
// this replica holds the indexing lease.
func (s *Set) AddIndexLease(leading func() bool) {
	s.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "xgr_indexer_lease_held",
		Help: "1 while this replica holds the indexing lease and follows the chain; 0 while another replica does."},
		func() float64 {
			if leading() {
				return 1
			}
			return 0
		}))
}
