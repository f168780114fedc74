package rule

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// next is the payload flow of the reactor: the input overlaid by the
// output, kept as JSON between steps (as the session store keeps it).
func next(t testing.TB, in, out map[string]any) map[string]any {
	t.Helper()
	merged := map[string]any{}
	for k, v := range in {
		merged[k] = v
	}
	for k, v := range out {
		merged[k] = v
	}
	raw, err := json.Marshal(merged)
	if err != nil {
		t.Fatalf("payload to JSON: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var back map[string]any
	if err := dec.Decode(&back); err != nil {
		t.Fatal(err)
	}
	return back
}

func num64(t testing.TB, v any) float64 {
	t.Helper()
	switch x := v.(type) {
	case float64:
		return x
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	t.Fatalf("%#v is not a number", v)
	return 0
}

// The IterationOfPi loop: 1,000 steps, each output fed back as the next
// input, against the Leibniz partial sums computed here.
func TestFixtureIterationOfPi(t *testing.T) {
	d := mustParse(t, repairedPi(t))
	payload := map[string]any{"Iter": 0, "S": 0, "Pi": 0}
	const n = 1000
	for i := 0; i < n; i++ {
		r, err := Evaluate(context.Background(), d, payload, Sources{})
		if err != nil {
			t.Fatalf("iteration %d: %v", i, err)
		}
		if !r.Valid || r.WaitSec != 3600 {
			t.Fatalf("iteration %d: valid %v wait %d", i, r.Valid, r.WaitSec)
		}
		payload = next(t, payload, r.Output)
	}
	partial := func(terms int) float64 {
		s := 0.0
		for k := 0; k < terms; k++ {
			s += math.Pow(-1, float64(k)) / (2*float64(k) + 1)
		}
		return s
	}
	if it, _ := payload["Iter"].(json.Number).Int64(); it != n {
		t.Errorf("Iter = %v, want %d", payload["Iter"], n)
	}
	// S holds n terms; Pi is computed from the S it was given, n-1 terms.
	if s := num64(t, payload["S"]); math.Abs(s-partial(n)) > 1e-12 {
		t.Errorf("S = %.15f, Leibniz partial sum of %d terms = %.15f", s, n, partial(n))
	}
	pi := num64(t, payload["Pi"])
	if math.Abs(pi-4*partial(n-1)) > 1e-12 {
		t.Errorf("Pi = %.15f, 4 x partial sum of %d terms = %.15f", pi, n-1, 4*partial(n-1))
	}
	if math.Abs(pi-math.Pi) > 2.0/n {
		t.Errorf("Pi = %.15f is further than %g from pi", pi, 2.0/n)
	}
	// Without the inputs the step is invalid and, its onInvalid being empty, outputs nothing.
	r, err := Evaluate(context.Background(), d, map[string]any{"Iter": 1}, Sources{})
	if err != nil || r.Valid || len(r.Output) != 0 || !hasReason(r, ReasonMissingInput, "payload") {
		t.Errorf("missing S and Pi: %+v, %v", r, err)
	}
}

// priceServer stands in for the three public price APIs over TLS, with a
// certificate for their host names that only the test trusts.
type priceServer struct {
	srv  *httptest.Server
	pool *x509.CertPool

	mu       sync.Mutex
	coinbase string // amount as the API writes it (a string)
	bitstamp string
	gecko    float64
	down     map[string]bool
	paths    []string
}

var priceHosts = []string{"api.coinbase.com", "www.bitstamp.net", "api.coingecko.com"}

func newPriceServer(t *testing.T) *priceServer {
	t.Helper()
	p := &priceServer{down: map[string]bool{}}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "xgr test price APIs"},
		DNSNames:              priceHosts,
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	p.pool = x509.NewCertPool()
	p.pool.AddCert(cert)
	p.srv = httptest.NewUnstartedServer(http.HandlerFunc(p.serve))
	p.srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	p.srv.StartTLS()
	t.Cleanup(p.srv.Close)
	return p
}

func (p *priceServer) set(coinbase, bitstamp string, gecko float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.coinbase, p.bitstamp, p.gecko = coinbase, bitstamp, gecko
	p.down = map[string]bool{}
}

func (p *priceServer) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	host := strings.Split(r.Host, ":")[0]
	p.paths = append(p.paths, host+r.URL.RequestURI())
	if p.down[host] {
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case host == "api.coinbase.com" && strings.HasPrefix(r.URL.Path, "/v2/prices/") && strings.HasSuffix(r.URL.Path, "/spot"):
		pair := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v2/prices/"), "/spot")
		base, quote, _ := strings.Cut(pair, "-")
		fmt.Fprintf(w, `{"data":{"amount":%q,"base":%q,"currency":%q}}`, p.coinbase, base, quote)
	case host == "www.bitstamp.net" && r.URL.Path == "/api/v2/ticker/btcusd":
		fmt.Fprintf(w, `{"last":%q,"high":"1","low":"1","volume":"12.5","timestamp":"1700000000"}`, p.bitstamp)
	case host == "api.coingecko.com" && r.URL.Path == "/api/v3/simple/price" && r.URL.Query().Get("ids") == "bitcoin":
		fmt.Fprintf(w, `{"bitcoin":{"usd":%v}}`, p.gecko)
	default:
		http.NotFound(w, r)
	}
}

// caller maps the public host names to the test server, which is on
// loopback and therefore allowed explicitly.
func (p *priceServer) caller() *HTTPCaller {
	addr := p.srv.Listener.Addr().String()
	allow := make([]string, len(priceHosts))
	for i, h := range priceHosts {
		allow[i] = h + "=" + addr
	}
	return &HTTPCaller{AllowHosts: allow, RootCAs: p.pool, DefaultTimeout: 5 * time.Second}
}

func TestFixtureApiPriceFeed(t *testing.T) {
	d := mustParse(t, readFixture(t, feedFixture))
	ps := newPriceServer(t)
	src := Sources{API: ps.caller()}

	ps.set("67000.12", "", 0)
	payload := map[string]any{}
	r := eval(t, d, payload, src)
	want := map[string]any{"DeltaPct": 0.0, "Error": "", "Ok": true, "Pair": "BTC-USD", "PrevPrice": 67000.12, "Seq": int64(1), "Source": "coinbase"}
	if !r.Valid || fmt.Sprint(r.Output) != fmt.Sprint(want) || r.WaitSec != 3600 {
		t.Fatalf("first round: valid %v output %v", r.Valid, r.Output)
	}
	if ps.paths[0] != "api.coinbase.com/v2/prices/BTC-USD/spot" || r.Extracted["OkApi"] != true {
		t.Errorf("request %v, extracted %v", ps.paths, r.Extracted)
	}

	payload = next(t, payload, r.Output)
	ps.set("68000", "", 0)
	r = eval(t, d, payload, src)
	delta := (68000 - 67000.12) / 67000.12
	if !r.Valid || math.Abs(num64(t, r.Output["DeltaPct"])-delta) > 1e-15 || r.Output["Seq"] != int64(2) || r.Output["PrevPrice"] != 68000.0 {
		t.Fatalf("second round: %+v", r)
	}

	// A jump over MaxDeltaPct (20%) fails the first rule.
	payload = next(t, payload, r.Output)
	ps.set("100000", "", 0)
	r = eval(t, d, payload, src)
	if r.Valid || r.Output["Error"] != "API fetch or validation failed" || r.Output["Ok"] != false || r.Output["Seq"] != int64(3) || !hasReason(r, ReasonRuleFalse, "rules[0]") {
		t.Fatalf("jump: %+v", r)
	}
	if _, ok := r.Output["PrevPrice"]; ok {
		t.Error("the invalid branch keeps the previous price")
	}

	// The API is down: the aliases default (0, false) and the rules fail.
	payload = next(t, payload, r.Output)
	ps.mu.Lock()
	ps.down["api.coinbase.com"] = true
	ps.mu.Unlock()
	r = eval(t, d, payload, src)
	if r.Valid || r.Extracted["FetchedPrice"] != 0.0 || r.Extracted["OkApi"] != false || !strings.Contains(r.Calls[0].Error, "503") {
		t.Fatalf("API down: %+v", r)
	}

	// Inputs shape the URL.
	ps.set("3000", "", 0)
	r = eval(t, d, map[string]any{"Base": "ETH", "Quote": "EUR"}, src)
	if got := ps.paths[len(ps.paths)-1]; got != "api.coinbase.com/v2/prices/ETH-EUR/spot" || r.Output["Pair"] != "ETH-EUR" {
		t.Errorf("ETH-EUR: request %s, output %v", got, r.Output)
	}
}

func TestFixtureApiPriceFeedQuorum(t *testing.T) {
	d := mustParse(t, readFixture(t, quorumFixture))
	ps := newPriceServer(t)
	src := Sources{API: ps.caller()}

	// Two of three sources agree within 1%: valid, the price is their mean.
	ps.set("100000.00", "100500.00", 120000)
	payload := map[string]any{}
	r := eval(t, d, payload, src)
	if !r.Valid || r.Output["Price"] != 100250.0 || r.Output["DeltaPct"] != 0.0 || r.Output["Ok"] != true || r.Output["Seq"] != int64(1) {
		t.Fatalf("2 of 3: %+v", r)
	}
	if r.Output["GeckoPrice"] != 120000.0 || r.Output["Pair"] != "BTC-USD" || len(r.Calls) != 3 {
		t.Errorf("2 of 3 output: %v", r.Output)
	}

	// No two agree within 1%: invalid.
	payload = next(t, payload, r.Output)
	ps.set("100000", "103000", 110000)
	r = eval(t, d, payload, src)
	if r.Valid || r.Output["Ok"] != false || r.Output["Error"] != "Quorum failed or delta guard triggered" || !hasReason(r, ReasonRuleFalse, "rules[0]") {
		t.Fatalf("no quorum: %+v", r)
	}

	// All three agree, close to the previous price: valid, mean of three, small delta.
	payload = next(t, payload, r.Output)
	ps.set("100300", "100400", 100500)
	r = eval(t, d, payload, src)
	if !r.Valid || r.Output["Price"] != 100400.0 {
		t.Fatalf("3 of 3: %+v", r)
	}
	// DeltaPct compares the new consensus with the input [Price], still
	// 100250 from round one (the invalid round does not set Price).
	if got := num64(t, r.Output["DeltaPct"]); math.Abs(got-150.0/100250) > 1e-15 {
		t.Errorf("DeltaPct = %v, want %v", got, 150.0/100250)
	}

	// Two sources down: their prices default to 0, one source is no quorum.
	payload = next(t, payload, r.Output)
	ps.set("100400", "100400", 100400)
	ps.mu.Lock()
	ps.down["www.bitstamp.net"], ps.down["api.coingecko.com"] = true, true
	ps.mu.Unlock()
	r = eval(t, d, payload, src)
	if r.Valid || r.Extracted["FetchedBitstamp"] != 0.0 || r.Extracted["OkGecko"] != false {
		t.Fatalf("two down: %+v", r)
	}

	// The delta guard: a 30% move against the previous consensus fails rule 3.
	payload = next(t, payload, map[string]any{"Price": 100400.0})
	ps.set("130500", "130600", 131000)
	r = eval(t, d, payload, src)
	if r.Valid || r.Rules[0].Result != true || r.Rules[2].Result != false {
		t.Fatalf("delta guard: %+v", r.Rules)
	}
}

// quorumStub answers the quorum rule's three calls without a network.
func quorumStub(coinbase, bitstamp, gecko float64) StaticAPI {
	return StaticAPI{
		"coinbase_spot":          {Status: 200, Body: []byte(fmt.Sprintf(`{"data":{"amount":"%v","base":"BTC","currency":"USD"}}`, coinbase))},
		"bitstamp_ticker":        {Status: 200, Body: []byte(fmt.Sprintf(`{"last":"%v"}`, bitstamp))},
		"coingecko_simple_price": {Status: 200, Body: []byte(fmt.Sprintf(`{"bitcoin":{"usd":%v}}`, gecko))},
	}
}
