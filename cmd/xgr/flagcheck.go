package main

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/internal/httpserve"
	"github.com/xgr-sidecar/xgr/internal/redact"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/rpc/permit"
	"github.com/xgr-sidecar/xgr/rule"
)

// Rules for flag values by flag name, checked for every command before it
// does anything (checkFlags). Values come from the command line or the
// flag's XGR_* variable; an empty string flag is "not given" and not
// checked here.
var (
	// durationZeroOK are durations for which 0 means "none"; every other
	// duration must be at least a millisecond (leases and polls are
	// milliseconds in Redis).
	durationZeroOK = map[string]bool{"delay": true, "rpc-skew": true, "settle": true}
	// durationRange bounds durations whose consumer has limits.
	durationRange = map[string][2]time.Duration{"rpc-permit-lifetime": {time.Second, permit.MaxLifetimeCap}, "rpc-skew": {0, permit.MaxSkew}}
	// intMin are integer flags with a lower bound above 0; intZero says
	// what 0 means for the others (all must be 0 or more).
	intMin  = map[string]int64{"rpc-max-body": 1024, "rpc-max-inflight": 1, "rpc-max-conns": 4, "concurrency": 1, "replicas": 1, "sessions": 1}
	intZero = map[string]string{"max-sessions": "no cap", "max-steps": "no bound", "window": "no cap", "limit": "the default, 20",
		"last": "the default, 100", "offset": "none skipped", "session": "all sessions", "orders": "none"}
	// addressFlags hold one EVM address.
	addressFlags = map[string]bool{"registry": true, "address": true, "orchestration": true, "runner": true, "caller": true, "rpc-precompile": true}
	// nodeURLFlags name a node or gateway: http(s), ws(s), or (nodeIPC) an
	// IPC socket path.
	nodeURLFlags = map[string]bool{"rpc": true, "endpoint": false}
	// listenFlags are local addresses to listen on.
	listenFlags = map[string]bool{"listen": true, "rpc-listen": true, "metrics-listen": true, "chain-listen": true}
)

// secretFlags hold addresses that may carry a secret: a node URL's API
// key, a Redis URL's password. Their values are registered with
// internal/redact, which removes the secrets from every log line and from
// the command's error.
var secretFlags = map[string]bool{"rpc": true, "endpoint": true, "rpc-backend": true, "redis": true}

// registerSecrets registers the values of c's secretFlags.
func registerSecrets(c *cli.Context) {
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if !secretFlags[name] {
			continue
		}
		switch f.(type) {
		case *cli.StringFlag:
			redact.Register(c.String(name))
		case *cli.StringSliceFlag:
			for _, v := range c.StringSlice(name) {
				_, u, _ := strings.Cut(v, "=")
				redact.Register(u)
			}
		}
	}
}

// checkFlags checks that the required flags are given and every flag
// value of the command at once: a bad value
// is a usage error (exit 2) naming the command, the flag, the value and
// what is allowed.
func checkFlags(c *cli.Context, required []*cli.StringFlag) error {
	registerSecrets(c)
	for _, sf := range required {
		if name := sf.Names()[0]; c.String(name) == "" {
			env := ""
			if len(sf.EnvVars) > 0 {
				env = " (or $" + sf.EnvVars[0] + ")"
			}
			return usageError("%s: --%s is required%s: %s", cmdName(c), name, env, sf.Usage)
		}
	}
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if name == "help" {
			continue
		}
		if err := checkFlag(c, f, name); err != nil {
			return usageError("%s: %v", cmdName(c), err)
		}
	}
	return nil
}

// checkFlag checks one flag's value by its type and name.
func checkFlag(c *cli.Context, f cli.Flag, name string) error {
	switch f.(type) {
	case *cli.DurationFlag:
		return checkDuration(name, c.Duration(name))
	case *cli.IntFlag:
		return checkInt(name, int64(c.Int(name)))
	case *cli.Int64Flag:
		return checkInt(name, c.Int64(name))
	case *cli.Uint64Flag:
		if name == "confirmations" && c.Uint64(name) == 0 {
			return fmt.Errorf("--confirmations 0: want 1 (mined) or more")
		}
	case *cli.Float64Flag:
		v := c.Float64(name)
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) || v > math.MaxInt64/float64(time.Second) {
			return fmt.Errorf("--%s %v: want seconds, 0 or more", name, v)
		}
	case *cli.StringFlag:
		if v := c.String(name); v != "" {
			return checkString(name, v)
		}
	case *cli.StringSliceFlag:
		for _, v := range c.StringSlice(name) {
			if err := checkListItem(name, v); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkDuration(name string, d time.Duration) error {
	switch {
	case d < 0:
		return fmt.Errorf("--%s %s: want a positive duration (e.g. 200ms, 10s)", name, d)
	case d == 0 && durationZeroOK[name]:
		return nil
	case d < time.Millisecond:
		return fmt.Errorf("--%s %s: want a positive duration (e.g. 200ms, 10s), at least 1ms", name, d)
	}
	if r, ok := durationRange[name]; ok && (d < r[0] || d > r[1]) {
		return fmt.Errorf("--%s %s: want between %s and %s", name, d, r[0], r[1])
	}
	return nil
}

func checkInt(name string, n int64) error {
	if min, ok := intMin[name]; ok && n < min {
		return fmt.Errorf("--%s %d: want at least %d", name, n, min)
	}
	if n < 0 {
		if what := intZero[name]; what != "" {
			return fmt.Errorf("--%s %d: want 0 (%s) or more", name, n, what)
		}
		return fmt.Errorf("--%s %d: want 0 or more", name, n)
	}
	return nil
}

// checkString checks a string flag's value by the flag's name.
func checkString(name, v string) error {
	switch {
	case addressFlags[name]:
		if !common.IsHexAddress(v) {
			return fmt.Errorf("--%s %q: not an address (want 0x and 40 hex digits)", name, v)
		}
	case name == "owner":
		if err := joinstore.CheckOwner(joinstore.NormalizeOwner(v)); err != nil {
			return fmt.Errorf("--owner: %v", err)
		}
	case name == "pin":
		if b, err := hexutil.Decode(v); err != nil || len(b) != 32 {
			return fmt.Errorf("--pin %q: want an orchestration hash (0x and 64 hex digits)", v)
		}
	case name == "rpc" || name == "endpoint":
		return chain.CheckNodeURL(name, v, nodeURLFlags[name])
	case listenFlags[name]:
		return httpserve.CheckListen(name, v)
	case name == "redis":
		if _, err := parseRedisAddr(v); err != nil {
			return fmt.Errorf("--redis %q: %v", redact.URL(v), err)
		}
	case name == "redis-password-file":
		_, err := readRedisPasswordFile(v)
		return err
	case name == "redis-cluster" || name == "redis-sentinel":
		_, err := parseRedisSeeds(name, v)
		return err
	}
	return nil
}

// checkListItem checks one value of a repeatable flag.
func checkListItem(name, v string) error {
	switch name {
	case "executor":
		if !common.IsHexAddress(v) {
			return fmt.Errorf("--executor %q: not an address (want 0x and 40 hex digits)", v)
		}
	case "allow-host":
		if err := rule.CheckAllowHost(v); err != nil {
			return fmt.Errorf("--%v", err)
		}
	case "rpc-backend":
		_, _, err := chain.ParseBackend(v)
		return err
	case "vhosts":
		if err := httpserve.CheckHostName(v); err != nil {
			return fmt.Errorf("--vhosts %v", err)
		}
	}
	return nil
}
