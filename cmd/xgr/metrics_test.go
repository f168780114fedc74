package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// scrape reads a Prometheus text exposition into sample name{labels} ->
// value, and the set of metric names it shows.
func scrape(t *testing.T, url string) (map[string]float64, map[string]bool) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	samples, names := map[string]float64{}, map[string]bool{}
	for _, line := range strings.Split(string(body), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("bad sample %q", line)
		}
		samples[line[:i]] = v
		name := line[:i]
		if j := strings.IndexByte(name, '{'); j >= 0 {
			name = name[:j]
		}
		names[name] = true
	}
	return samples, names
}

// metricRef finds the metric names an expression uses (xgr's own, Go's and
// the process collector's; "up" is Prometheus's).
var metricRef = regexp.MustCompile(`\b(?:xgr|go|process)_[a-z0-9_]+\b`)

// deployExprs reads every PromQL expression of the shipped alert rules and
// Grafana dashboard.
func deployExprs(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	raw, err := os.ReadFile("../../deploy/prometheus/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	var rules struct {
		Groups []struct {
			Name  string
			Rules []struct {
				Alert, Expr string
				For         string
				Labels      map[string]string
				Annotations map[string]string
			}
		}
	}
	if err := yaml.Unmarshal(raw, &rules); err != nil {
		t.Fatalf("alerts.yml: %v", err)
	}
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" || r.Expr == "" || r.Labels["severity"] == "" || r.Annotations["summary"] == "" {
				t.Errorf("alerts.yml: rule %+v lacks alert, expr, severity or summary", r)
			}
			if r.For != "" {
				if _, err := time.ParseDuration(r.For); err != nil {
					t.Errorf("alerts.yml: %s: for %q: %v", r.Alert, r.For, err)
				}
			}
			out["alerts.yml "+r.Alert] = append(out["alerts.yml "+r.Alert], r.Expr)
		}
	}
	raw, err = os.ReadFile("../../deploy/grafana/xgr.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("xgr.json: %v", err)
	}
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			out["xgr.json "+p.Title] = append(out["xgr.json "+p.Title], tg.Expr)
		}
	}
	if len(rules.Groups) == 0 || len(dash.Panels) == 0 {
		t.Fatalf("found %d alert groups and %d panels", len(rules.Groups), len(dash.Panels))
	}
	return out
}

// xgr dev's /metrics is not empty: after its demo sessions finished it
// shows them by outcome, the steps' durations, the trigger-to-start time,
// the chain index and Redis round trips, the demo settlement's executions
// (xgr_txm_*, the executor's balance, refusals), with the Go and process
// collectors; every metric the shipped alert rules and Grafana dashboard
// use is among them (a histogram by its _bucket series).
func TestDeployFilesUseRegisteredMetrics(t *testing.T) {
	exprs := deployExprs(t)
	var out lockedOutput
	cmd := exec.Command(xgrBinary(t), "--log-level", "info", "dev", "--ostc-dir", "../../examples/ostc", "--rules-dir", "../../examples/rules",
		"--rpc-listen", "", "--listen", "127.0.0.1:0", "--orders", "1", "--every", "10ms")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	}()
	console := regexp.MustCompile(`console http://([0-9.:]+)/ui/`)
	deadline := time.Now().Add(60 * time.Second)
	for len(finished(out.String())) < 3 || !console.MatchString(out.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("no console address and 3 finished sessions within 60s:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	addr := console.FindStringSubmatch(out.String())[1]
	// The trigger's session finished; the index gauges are read at the scrape.
	samples, names := scrape(t, "http://"+addr+"/metrics")

	for _, want := range []struct {
		sample string
		min    float64
	}{
		{`xgr_sessions_finished_total{outcome="ok"}`, 3},
		{`xgr_meter_sessions_total`, 3},
		{`xgr_meter_executions_total`, 1},
		{`xgr_trigger_starts_total{outcome="started"}`, 1},
		{`xgr_trigger_to_start_seconds_count`, 1},
		{`xgr_step_duration_seconds_count`, 10},
		{`xgr_events_total{type="executed"}`, 10},
		{`xgr_indexer_head_block`, 1},
		{`xgr_indexer_checkpoint_block`, 1},
		{`xgr_redis_request_duration_seconds_count{op="pipeline"}`, 1},
		{`go_goroutines`, 1},
		{`process_resident_memory_bytes`, 1},
	} {
		if v, ok := samples[want.sample]; !ok || v < want.min {
			t.Errorf("%s = %v (present %v); want ≥ %v", want.sample, v, ok, want.min)
		}
	}
	for _, s := range []string{`xgr_due_sessions`, `xgr_due_oldest_age_seconds`, `xgr_indexer_lag_blocks`, `xgr_indexer_pending_triggers`,
		`xgr_session_takeovers_total`, `xgr_root_lease_losses_total`, `xgr_redis_errors_total{kind="connection"}`, `xgr_sessions_running`} {
		if _, ok := samples[s]; !ok {
			t.Errorf("%s is not exposed", s)
		}
	}
	// The demo settlement's executor (xgr dev runs it with executions on):
	// the transaction manager's series, labelled by chain and sender, its
	// balance, and the refusals by limit.
	for _, want := range []struct {
		name, label string
		min         float64
	}{
		{"xgr_txm_final_total", `outcome="success"`, 1},
		{"xgr_txm_final_total", `outcome="reverted"`, 0},
		{"xgr_txm_final_total", `outcome="lost"`, 0},
		{"xgr_txm_attempts_total", "", 1},
		{"xgr_txm_time_until_included_seconds_count", "", 1},
		{"xgr_txm_time_until_final_seconds_count", "", 1},
		{"xgr_txm_executor_balance_ether", "", 1},
		{"xgr_txm_in_flight", "", 0},
		{"xgr_txm_unmined_nonces", "", 0},
		{"xgr_txm_nonce_gaps_filled_total", "", 0},
		{"xgr_execution_refusals_total", `limit="executions.targets"`, 0},
	} {
		var found []string
		for k, v := range samples {
			if strings.HasPrefix(k, want.name+"{") && strings.Contains(k, want.label) {
				found = append(found, k)
				if want.name != "xgr_execution_refusals_total" && !regexp.MustCompile(`chain_id="1337".*sender="0x[0-9a-f]{40}"`).MatchString(k) {
					t.Errorf("%s: want chain_id and sender labels", k)
				}
				if v < want.min {
					t.Errorf("%s = %v; want ≥ %v", k, v, want.min)
				}
			}
		}
		if len(found) != 1 {
			t.Errorf("%s{%s}: %d series %v; want one (the executor's)", want.name, want.label, len(found), found)
		}
	}
	if !regexp.MustCompile(`xgr_build_info\{goversion="go[0-9.]+",revision="[^"]*",version="[^"]+"\} 1`).MatchString(strings.Join(keys(samples), " 1\n") + " 1") {
		t.Errorf("no xgr_build_info sample")
	}

	var missing []string
	for where, es := range exprs {
		for _, e := range es {
			for _, name := range metricRef.FindAllString(e, -1) {
				if !names[name] {
					missing = append(missing, where+": "+name)
				}
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("metrics used by deploy/ that xgr does not expose:\n%s", strings.Join(missing, "\n"))
	}

	// The lifecycle lines at INFO.
	if !regexp.MustCompile(`level=INFO msg="session finished" session=0x[0-9a-f]+:\d+ ostcId=\S+ outcome=ok steps=\d+ replica=dev duration=\S+`).MatchString(out.String()) {
		t.Errorf("no INFO line for a finished session with its outcome:\n%s", out.String())
	}
}

func keys(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
