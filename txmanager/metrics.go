package txmanager

import (
	"math/big"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the manager's measurements, in the style of Chainlink's EVM
// transaction manager, labelled by chain_id and sender. One Metrics serves
// every Manager of a process; a nil *Metrics records nothing.
type Metrics struct {
	untilBroadcast, untilIncluded, untilFinal  *prometheus.HistogramVec
	attempts, bumps, bumpsCapped, rebroadcasts *prometheus.CounterVec
	broadcastErrors, reorgs, gapsFilled        *prometheus.CounterVec
	finalityViolations, resigns                *prometheus.CounterVec
	finished, permanentFailures                *prometheus.CounterVec
	inFlight, queued, unminedNonces, balance   *prometheus.GaugeVec
}

// NewMetrics creates the metrics and registers them on reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	labels := []string{"chain_id", "sender"}
	buckets := []float64{.01, .05, .1, .25, .5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800}
	hist := func(name, help string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
	}
	counter := func(name, help string, extra ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, append(append([]string{}, labels...), extra...))
	}
	gauge := func(name, help string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	}
	m := &Metrics{
		untilBroadcast:  hist("xgr_txm_time_until_broadcast_seconds", "Time from submission to the first broadcast of an execution."),
		untilIncluded:   hist("xgr_txm_time_until_included_seconds", "Time from submission to the first receipt of an execution."),
		untilFinal:      hist("xgr_txm_time_until_final_seconds", "Time from submission to an execution's final outcome."),
		attempts:        counter("xgr_txm_attempts_total", "Signed and recorded attempts (first attempts and bumps)."),
		bumps:           counter("xgr_txm_gas_bumps_total", "Attempts replaced by a fee bump."),
		bumpsCapped:     counter("xgr_txm_gas_bump_exceeds_limit_total", "Bumps due but refused by MaxFeePerGas (the attempt stays)."),
		rebroadcasts:    counter("xgr_txm_rebroadcasts_total", "Unmined attempts sent again."),
		broadcastErrors: counter("xgr_txm_broadcast_errors_total", "Broadcasts the node refused for another reason than knowing the transaction or its nonce."),
		reorgs:          counter("xgr_txm_reorgs_total", "Receipts a reorg dropped (the same transaction is sent again)."),
		gapsFilled:      counter("xgr_txm_nonce_gaps_filled_total", "Nonce gaps filled with a zero-value self-transfer."),
		finalityViolations: counter("xgr_txm_finality_violations_total",
			"Nonces used in a block the configured finality called final that a deeper reorg took from the chain (a final key is sent again; a foreign transaction's nonce is filled)."),
		resigns: counter("xgr_txm_resigned_total",
			"Executions signed again under a new nonce because a foreign transaction used theirs in a final block (the executor key signed elsewhere)."),
		finished: counter("xgr_txm_final_total", "Executions that became final, by outcome (success, reverted, lost, failed).", "outcome"),
		permanentFailures: counter("xgr_txm_permanent_failures_total",
			"Executions the node refused for good (they failed; their nonces are filled), by reason: intrinsic_gas, insufficient_funds, oversized, gas_limit, fee_cap, tx_fee_cap, dropped.", "reason"),
		inFlight:      gauge("xgr_txm_in_flight", "Unmined transactions of the sender (reserved or signed)."),
		queued:        gauge("xgr_txm_queued", "Executions waiting for a nonce (MaxInFlight reached)."),
		unminedNonces: gauge("xgr_txm_unmined_nonces", "Assigned nonces above the chain's mined nonce (in flight plus gaps)."),
		balance: gauge("xgr_txm_executor_balance_ether",
			"The sender's balance at the latest block, in ether (10^18 wei of the chain's native token), read by the upkeep every BalanceEvery."),
	}
	for _, c := range []prometheus.Collector{m.untilBroadcast, m.untilIncluded, m.untilFinal, m.attempts, m.bumps, m.bumpsCapped,
		m.rebroadcasts, m.broadcastErrors, m.reorgs, m.gapsFilled, m.finalityViolations, m.resigns, m.finished, m.permanentFailures, m.inFlight, m.queued, m.unminedNonces, m.balance} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Outcomes are the values of xgr_txm_final_total's outcome label.
var Outcomes = []Outcome{Success, Reverted, Lost, Failed}

// init creates a sender's series at zero, so that every metric shows from
// the manager's start (a rate or an alert on a counter that never moved
// sees 0, not "no data").
func (m *Metrics) init(l []string) {
	if m == nil {
		return
	}
	for _, h := range []*prometheus.HistogramVec{m.untilBroadcast, m.untilIncluded, m.untilFinal} {
		h.WithLabelValues(l...)
	}
	for _, c := range []*prometheus.CounterVec{m.attempts, m.bumps, m.bumpsCapped, m.rebroadcasts, m.broadcastErrors, m.reorgs, m.gapsFilled,
		m.finalityViolations, m.resigns} {
		c.WithLabelValues(l...)
	}
	for _, o := range Outcomes {
		m.finished.WithLabelValues(append(append([]string{}, l...), string(o))...)
	}
	for _, r := range PermanentReasons {
		m.permanentFailures.WithLabelValues(append(append([]string{}, l...), r)...)
	}
	for _, g := range []*prometheus.GaugeVec{m.inFlight, m.queued, m.unminedNonces} {
		g.WithLabelValues(l...)
	}
}

// weiPerEther converts the balance to the gauge's unit.
var weiPerEther = new(big.Float).SetInt(big.NewInt(1e18))

// balanceWei sets the sender's balance gauge.
func (m *Metrics) balanceWei(l []string, wei *big.Int) {
	if m != nil {
		eth, _ := new(big.Float).Quo(new(big.Float).SetInt(wei), weiPerEther).Float64()
		m.balance.WithLabelValues(l...).Set(eth)
	}
}

func (m *Metrics) broadcastAfter(l []string, d time.Duration) {
	if m != nil {
		m.untilBroadcast.WithLabelValues(l...).Observe(d.Seconds())
	}
}

func (m *Metrics) includedAfter(l []string, d time.Duration) {
	if m != nil {
		m.untilIncluded.WithLabelValues(l...).Observe(d.Seconds())
	}
}

func (m *Metrics) final(l []string, o Outcome, d time.Duration) {
	if m != nil {
		m.untilFinal.WithLabelValues(l...).Observe(d.Seconds())
		m.finished.WithLabelValues(append(append([]string{}, l...), string(o))...).Inc()
	}
}

func (m *Metrics) attempt(l []string) {
	m.inc(func(m *Metrics) *prometheus.CounterVec { return m.attempts }, l)
}
func (m *Metrics) bumped(l []string) {
	m.inc(func(m *Metrics) *prometheus.CounterVec { return m.bumps }, l)
}
func (m *Metrics) bumpCapped(l []string) {
	m.inc(func(m *Metrics) *prometheus.CounterVec { return m.bumpsCapped }, l)
}
func (m *Metrics) rebroadcast(l []string) {
	m.inc(func(m *Metrics) *prometheus.CounterVec { return m.rebroadcasts }, l)
}
func (m *Metrics) broadcastError(l []string) {
	m.inc(func(m *Metrics) *prometheus.CounterVec { return m.broadcastErrors }, l)
}
func (m *Metrics) reorg(l []string) {
	m.inc(func(m *Metrics) *prometheus.CounterVec { return m.reorgs }, l)
}
func (m *Metrics) finalityViolation(l []string) {
	m.inc(func(m *Metrics) *prometheus.CounterVec { return m.finalityViolations }, l)
}
func (m *Metrics) resigned(l []string) {
	m.inc(func(m *Metrics) *prometheus.CounterVec { return m.resigns }, l)
}
func (m *Metrics) gapFilled(l []string) {
	m.inc(func(m *Metrics) *prometheus.CounterVec { return m.gapsFilled }, l)
}

// permanentFailure counts a key the node refused for good; reason is one
// of the Reason constants (a closed set).
func (m *Metrics) permanentFailure(l []string, reason string) {
	if m != nil {
		m.permanentFailures.WithLabelValues(append(append([]string{}, l...), reason)...).Inc()
	}
}

func (m *Metrics) inc(c func(*Metrics) *prometheus.CounterVec, l []string) {
	if m != nil {
		c(m).WithLabelValues(l...).Inc()
	}
}

func (m *Metrics) gauges(l []string, inFlight, queued int) {
	if m != nil {
		m.inFlight.WithLabelValues(l...).Set(float64(inFlight))
		m.queued.WithLabelValues(l...).Set(float64(queued))
	}
}

func (m *Metrics) unmined(l []string, n uint64) {
	if m != nil {
		m.unminedNonces.WithLabelValues(l...).Set(float64(n))
	}
}
