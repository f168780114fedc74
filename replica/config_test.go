package replica

import (
	"crypto/ecdsa"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/redisconn"
)

// Validate refuses every Config that cannot run, before anything is
// opened, as a usage error naming the part that is wrong; a Config of
// each kind that runs (run, dev, bench, scenario) passes.
func TestValidate(t *testing.T) {
	scripted := &reactor.Scripted{}
	redisOK := redisconn.Config{Addr: "127.0.0.1:6379"}
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	on := execution.DefaultConfig()
	on.Enabled, on.Policy.Targets = true, execution.Targets(common.HexToAddress("0x00000000000000000000000000000000000000aa"))
	base := func(edit func(*Config)) Config {
		cfg := Config{Redis: redisOK, Rules: Rules{Outcomes: scripted}}
		edit(&cfg)
		return cfg
	}
	withKey := func(k *ecdsa.PrivateKey, p execution.Config) *Executions { return &Executions{Policy: p, Key: k} }
	registry := common.HexToAddress("0x00000000000000000000000000000000000000bb")

	for _, tc := range []struct {
		name string
		cfg  Config
		part Part
		want string
	}{
		{"no redis", base(func(c *Config) { c.Redis = redisconn.Config{} }), PartRedis, "no Redis"},
		{"bad redis address", base(func(c *Config) { c.Redis.Addr = "http://h:1" }), PartRedis, `scheme "http" is not a Redis scheme`},
		{"sentinels without a master", base(func(c *Config) { c.Redis = redisconn.Config{Sentinels: []string{"h:26379"}} }), PartRedis, "need the name of the master"},
		{"password twice", base(func(c *Config) {
			c.Redis = redisconn.Config{Addr: "redis://:pw@h:1/0", Password: "x", PasswordOrigin: "the file"}
		}), PartRedis, "the file gives one: give it once"},
		{"node and chain", base(func(c *Config) { c.Node, c.Chain = "http://h:8545", fakeChain{} }), PartNode, "give one"},
		{"negative poll", base(func(c *Config) { c.Poll = -time.Second }), PartConfig, "Poll -1s"},
		{"negative health timeout", base(func(c *Config) { c.HealthTimeout = -time.Second }), PartConfig, "HealthTimeout -1s"},
		{"negative cap", base(func(c *Config) { c.MaxSessions = -1 }), PartConfig, "MaxSessions -1"},
		{"no steps", base(func(c *Config) { c.Rules = Rules{} }), PartRules, ErrNoSteps.Error()},
		{"rules from no chain", base(func(c *Config) { c.Rules.FromChain = true }), PartRules, "need a chain"},
		{"backend without url", base(func(c *Config) { c.Rules.Backends = map[string]string{"mainnet": ""} }), PartBackend, "want a name and a node URL"},
		{"index without chain", base(func(c *Config) { c.Index = &Index{} }), PartIndex, "needs a chain"},
		{"gateway without chain", base(func(c *Config) { c.Gateway = &Gateway{Addr: "127.0.0.1:0"} }), PartGateway, "permits are checked against it"},
		{"gateway without address", base(func(c *Config) { c.Chain, c.Gateway = fakeChain{}, &Gateway{} }), PartGateway, "no address"},
		{"key registry without chain", base(func(c *Config) { c.Evidence.KeyRegistry = &registry }), PartEvidence, "needs a chain"},
		{"executions without chain", base(func(c *Config) { c.Executions = withKey(key, on) }), PartExecutions, "need a chain"},
		{"executions without key", base(func(c *Config) { c.Chain, c.Executions = fakeChain{}, withKey(nil, on) }), PartExecutions, "no executor key"},
		{"executions off", base(func(c *Config) { c.Chain, c.Executions = fakeChain{}, withKey(key, execution.DefaultConfig()) }), PartExecutions, "not enabled"},
		{"executions without target", base(func(c *Config) {
			off := execution.DefaultConfig()
			off.Enabled = true
			c.Chain, c.Executions = fakeChain{}, withKey(key, off)
		}), PartExecutions, "target"},
		{"listener without address", base(func(c *Config) { c.Listeners = []Listener{{}} }), PartListener, "Listeners[0] has no address"},
		{"console listener without console", base(func(c *Config) { c.Listeners = []Listener{{Addr: "127.0.0.1:0", Console: true}} }), PartListener, "Console is nil"},
	} {
		err := tc.cfg.Validate()
		var re *Error
		if !errors.As(err, &re) || re.Part != tc.part || !re.Usage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v (%#v), want a usage error of part %s containing %q", tc.name, err, re, tc.part, tc.want)
		}
	}

	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"run: redis, files and outcomes", base(func(c *Config) { c.Checks, c.Listeners = &Checks{}, []Listener{{Addr: "127.0.0.1:0"}} })},
		{"run: a chain, its index, gateway, console, executions", base(func(c *Config) {
			c.Node, c.Rules.FromChain, c.Index, c.Gateway, c.Console = "http://127.0.0.1:8545", true, &Index{}, &Gateway{Addr: "127.0.0.1:0"}, &Console{}
			c.Listeners, c.Executions = []Listener{{Addr: "127.0.0.1:0", Console: true}}, withKey(key, on)
		})},
		{"dev, scenario: a caller's client and chain", Config{Client: fakeClient(t), Chain: fakeChain{}, Rules: Rules{FromChain: true}}},
		{"bench: a caller's client, outcomes", Config{Client: fakeClient(t), Rules: Rules{Outcomes: scripted}}},
	} {
		if err := tc.cfg.Validate(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// An Error names its part, the part's name and the cause, and unwraps to
// the cause.
func TestErrorNamesThePart(t *testing.T) {
	cause := errors.New("connection refused")
	err := &Error{Part: PartBackend, Name: "mainnet", Err: cause}
	if err.Error() != "backend mainnet: connection refused" || !errors.Is(err, cause) {
		t.Errorf("%q", err)
	}
	if errPart(PartNode, nil) != nil {
		t.Error("errPart(nil) is not nil")
	}
	if e := errPart(PartNode, err); e != error(err) {
		t.Errorf("errPart rewrapped an *Error: %v", e)
	}
}

// fakeChain is a node for checks that never call it.
type fakeChain struct{ chain.Backend }

// fakeClient is a Redis client that is never used (it connects on first
// use only).
func fakeClient(t *testing.T) redis.UniversalClient {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}
