package ruleexec_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/ruleexec"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/testenv"
)

// temporary is how an engine tells a retryable step error apart.
type temporary interface{ Temporary() bool }

func isTemporary(err error) bool {
	var t temporary
	return errors.As(err, &t) && t.Temporary()
}

// dial connects to url (an HTTP node; nothing is sent until the first call).
func dial(t *testing.T, url string) *ethclient.Client {
	t.Helper()
	c, err := ethclient.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// nodes that give no definite answer: nothing listens on the port; HTTP 429
// and 503; a JSON-RPC "limit exceeded" (-32005).
func unavailableNodes(t *testing.T) map[string]*ethclient.Client {
	status := func(code int) *ethclient.Client {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, http.StatusText(code), code)
		}))
		t.Cleanup(srv.Close)
		return dial(t, srv.URL)
	}
	limited := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		fmt.Fprintf(w, `{"jsonrpc": "2.0", "id": %s, "error": {"code": -32005, "message": "limit exceeded"}}`, req.ID)
	}))
	t.Cleanup(limited.Close)
	return map[string]*ethclient.Client{
		"closed port":     dial(t, "http://127.0.0.1:"+strconv.Itoa(testenv.FreePort(t))),
		"HTTP 429":        status(http.StatusTooManyRequests),
		"HTTP 503":        status(http.StatusServiceUnavailable),
		"JSON-RPC -32005": dial(t, limited.URL),
	}
}

// Issue 28.7: a rule that cannot be loaded because the node is down, slow
// or rate-limiting is a temporary error (the step may be retried), not a
// reason to end the session.
func TestLoadFailureOfTheNodeIsTemporary(t *testing.T) {
	for name, client := range unavailableNodes(t) {
		x := &ruleexec.Executor{Rules: &rulesource.Loader{Chain: rulesource.NewChain(client)}, Timeout: 10 * time.Second}
		_, err := x.Execute(context.Background(), step("0x5FbDB2315678afecb367f032d93F642f64180aa3", nil))
		var te *ruleexec.TransientError
		if !errors.As(err, &te) || !isTemporary(err) || !errors.Is(err, rule.ErrUnavailable) || te.Step != "S1" {
			t.Errorf("%s: %v (want a temporary *ruleexec.TransientError)", name, err)
		}
	}
}

// Definite answers stay permanent: no code at the address, a document that
// does not parse (XRC-137 standard: the engine reads the rule from the
// contract; rule spec §3: the document schema).
func TestDefiniteLoadFailuresArePermanent(t *testing.T) {
	a := testenv.StartAnvil(t)
	broken, _ := testenv.DeployXRC137(t, a, `{"payload": {`)
	x := &ruleexec.Executor{Rules: &rulesource.Loader{Chain: rulesource.NewChain(a.Client)}, Timeout: time.Minute}
	_, err := x.Execute(context.Background(), step(a.Address(1).Hex(), nil))
	if err == nil || isTemporary(err) || !errors.Is(err, chain.ErrNoContract) {
		t.Errorf("no code at the address: %v (want permanent, chain.ErrNoContract)", err)
	}
	_, err = x.Execute(context.Background(), step(broken.Address.Hex(), nil))
	var ve *rule.ValidationError
	if err == nil || isTemporary(err) || !errors.As(err, &ve) {
		t.Errorf("broken document: %v (want permanent, a validation error)", err)
	}
}

// A contract read whose node fails has no outcome (the step is retried);
// a read that gets a definite answer without data (no code at the address:
// rule spec §6.4, "Used when the read fails") takes its default.
func TestReadFailureOfTheNodeIsTemporary(t *testing.T) {
	doc := `{"payload": {}, "contractReads": [{"to": "0x00000000000000000000000000000000000000aa", "function": "balanceOf(address)",
    "args": [{"type": "address", "value": "0x00000000000000000000000000000000000000bb"}],
    "saveAs": {"0": {"key": "Balance", "type": "uint256", "default": "0"}}}],
  "rules": ["[Balance] == 0"], "onValid": {"payload": {"Balance": "[Balance]"}}}`
	src := files(t, map[string]string{"Read.json": doc})
	for name, client := range unavailableNodes(t) {
		x := &ruleexec.Executor{Rules: src, Reads: &chain.Reads{Default: client}, Timeout: 10 * time.Second}
		_, err := x.Execute(context.Background(), step("<Read>", nil))
		var te *ruleexec.TransientError
		if !errors.As(err, &te) || !isTemporary(err) || !errors.Is(err, rule.ErrUnavailable) {
			t.Errorf("%s: %v (want a temporary *ruleexec.TransientError)", name, err)
		}
	}
	a := testenv.StartAnvil(t)
	x := &ruleexec.Executor{Rules: src, Reads: &chain.Reads{Default: a.Client}, Timeout: time.Minute}
	res, err := x.Execute(context.Background(), step("<Read>", nil))
	if err != nil || !res.Valid || res.Output["Balance"] != "0" {
		t.Errorf("no code at the read's address: %+v, %v (want the default)", res, err)
	}
}
