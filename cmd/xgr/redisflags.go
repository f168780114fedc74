package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/redis/go-redis/v9"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/internal/redact"
	"github.com/xgr-sidecar/xgr/redisconn"
)

// redisFlags select the Redis that holds session state: one server by URL,
// a Redis Cluster by seed addresses, or a master through Sentinel.
func redisFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "redis", Value: "redis://127.0.0.1:6379/0", EnvVars: []string{"XGR_REDIS"}, Usage: "Redis address: host:port, redis://[:password@]host:port/db, rediss:// for TLS, unix:///path.sock"},
		&cli.StringFlag{Name: "redis-cluster", EnvVars: []string{"XGR_REDIS_CLUSTER"}, Usage: "comma-separated seed addresses (host:port) of a Redis Cluster (instead of --redis)"},
		&cli.StringFlag{Name: "redis-sentinel", EnvVars: []string{"XGR_REDIS_SENTINEL"}, Usage: "comma-separated Sentinel addresses (host:port, with --redis-master)"},
		&cli.StringFlag{Name: "redis-master", EnvVars: []string{"XGR_REDIS_MASTER"}, Usage: "master name known to the Sentinels"},
		&cli.StringFlag{Name: "redis-password-file", EnvVars: []string{"XGR_REDIS_PASSWORD_FILE"}, Usage: "file holding the Redis password (or set " + redisPasswordEnv + "; keeps it out of ps and of the URL)"},
	}
}

// redisPasswordFileFlag is --redis-password-file of the commands whose
// --redis is given explicitly (simulate, scenario run, bench): a file only;
// they read no password from the environment, as they read no address.
func redisPasswordFileFlag() cli.Flag {
	return &cli.StringFlag{Name: "redis-password-file", Usage: "file holding the password of --redis (keeps it out of ps and of the URL)"}
}

// withPasswordFile sets opts.Password from --redis-password-file when it
// is given; a password in the --redis URL as well is an error.
func withPasswordFile(c *cli.Context, opts *redis.Options) error {
	file := c.String("redis-password-file")
	if file == "" {
		return nil
	}
	if opts.Password != "" {
		return fmt.Errorf("--redis-password-file and the --redis URL both give the Redis password: give it once")
	}
	pw, err := readRedisPasswordFile(file)
	if err != nil {
		return err
	}
	opts.Password = pw
	return nil
}

// redisPasswordEnv holds the Redis password when no file gives it.
const redisPasswordEnv = "XGR_REDIS_PASSWORD"

// redisPassword is the Redis password of --redis-password-file or
// $XGR_REDIS_PASSWORD ("" for none) and where it came from; giving both
// is an error.
func redisPassword(c *cli.Context) (pw, from string, err error) {
	env := os.Getenv(redisPasswordEnv)
	file := c.String("redis-password-file")
	if file == "" {
		return env, "$" + redisPasswordEnv, nil
	}
	if env != "" {
		return "", "", fmt.Errorf("--redis-password-file and $%s both give the Redis password: give it once", redisPasswordEnv)
	}
	pw, err = readRedisPasswordFile(file)
	return pw, "--redis-password-file", err
}

// readRedisPasswordFile is redisconn.ReadPasswordFile with the flag named.
func readRedisPasswordFile(file string) (string, error) {
	pw, err := redisconn.ReadPasswordFile(file)
	if err != nil {
		return "", fmt.Errorf("--redis-password-file %v", err)
	}
	return pw, nil
}

// parseRedisAddr reads a Redis address as --redis gives it
// (redisconn.ParseAddr).
func parseRedisAddr(s string) (*redis.Options, error) { return redisconn.ParseAddr(s) }

// parseRedisSeeds reads the comma-separated host:port list of a flag
// (--redis-cluster, --redis-sentinel).
func parseRedisSeeds(flag, s string) ([]string, error) {
	seeds, err := redisconn.ParseSeeds(s)
	if err != nil {
		return nil, fmt.Errorf("--%s: %v", flag, err)
	}
	return seeds, nil
}

// redisTarget is the Redis a command talks to, for messages: where it is
// and which flag and variable chose it.
type redisTarget struct {
	Addr string
	Flag string
}

func (t redisTarget) String() string { return t.target().String() }

func (t redisTarget) target() redisconn.Target { return redisconn.Target{Addr: t.Addr, Origin: t.Flag} }

// failed wraps an error from this Redis so that it names Redis, the
// address and the flag, without the dialer's jargon: "Redis at
// 127.0.0.1:1 (--redis / XGR_REDIS): connection refused".
func (t redisTarget) failed(err error) error { return t.target().Failed(err) }

// redisConfig is the Redis of --redis, --redis-cluster or
// --redis-sentinel (with --redis-master) and the password of
// --redis-password-file or $XGR_REDIS_PASSWORD. The error names the flag
// that is wrong (a usage error).
func redisConfig(c *cli.Context) (redisconn.Config, redisTarget, error) {
	pw, pwFrom, err := redisPassword(c)
	if err != nil {
		return redisconn.Config{}, redisTarget{Flag: "--redis-password-file / " + redisPasswordEnv}, err
	}
	cfg := redisconn.Config{Password: pw, PasswordOrigin: pwFrom}
	switch {
	case c.String("redis-cluster") != "":
		cfg.Origin = "--redis-cluster / XGR_REDIS_CLUSTER"
		if cfg.Cluster, err = parseRedisSeeds("redis-cluster", c.String("redis-cluster")); err != nil {
			return cfg, redisTarget{Addr: "cluster " + c.String("redis-cluster"), Flag: cfg.Origin}, err
		}
	case c.String("redis-sentinel") != "":
		cfg.Origin, cfg.Master = "--redis-sentinel / XGR_REDIS_SENTINEL", c.String("redis-master")
		if cfg.Sentinels, err = parseRedisSeeds("redis-sentinel", c.String("redis-sentinel")); err != nil {
			return cfg, redisTarget{Flag: cfg.Origin}, err
		}
		if cfg.Master == "" {
			return cfg, redisTarget{Flag: cfg.Origin}, fmt.Errorf("--redis-sentinel needs --redis-master NAME (the master name the Sentinels know)")
		}
	default:
		cfg.Addr, cfg.Origin = c.String("redis"), "--redis / XGR_REDIS"
		shown := redact.URL(cfg.Addr)
		opts, err := parseRedisAddr(cfg.Addr)
		if err != nil {
			return cfg, redisTarget{Addr: shown, Flag: cfg.Origin}, fmt.Errorf("--redis %q: %v", shown, err)
		}
		if pw != "" && opts.Password != "" {
			return cfg, redisTarget{Addr: opts.Addr, Flag: cfg.Origin}, fmt.Errorf("--redis %q holds a password and %s gives one: give it once", shown, pwFrom)
		}
	}
	t := cfg.Target()
	return cfg, redisTarget{Addr: t.Addr, Flag: t.Origin}, nil
}

// openRedis connects to the Redis of --redis, --redis-cluster or
// --redis-sentinel and checks that it answers (PING). A malformed address
// is a usage error (exit 2), a Redis that does not answer a failure (exit
// 1); both messages name Redis, the address and the flag.
func openRedis(c *cli.Context) (redis.UniversalClient, redisTarget, error) {
	cfg, t, err := redisConfig(c)
	if err != nil {
		return nil, t, cli.Exit(fmt.Sprintf("%s: %v", cmdName(c), err), 2)
	}
	rdb, err := redisconn.Open(c.Context, cfg)
	if err != nil {
		return nil, t, cli.Exit(fmt.Sprintf("%s: %v", cmdName(c), err), 1)
	}
	return rdb, t, nil
}

// checkExplicitRedis refuses (exit 2) a command that changes state unless
// the operator named its Redis: --redis, --redis-cluster or
// --redis-sentinel (or their XGR_* variables), and --redis with a port or
// as a URL. The default 127.0.0.1:6379, or a bare host that means port
// 6379 too, would change whatever Redis happens to listen there.
func checkExplicitRedis(c *cli.Context) error {
	if c.String("redis-cluster") != "" || c.String("redis-sentinel") != "" {
		return nil
	}
	if !c.IsSet("redis") || strings.TrimSpace(c.String("redis")) == "" {
		return usageError("%s changes sessions: name their Redis with --redis (or XGR_REDIS, --redis-cluster, --redis-sentinel); it does not assume 127.0.0.1:6379", cmdName(c))
	}
	if v := strings.TrimSpace(c.String("redis")); !redisconn.NamesPort(v) {
		return usageError("%s changes sessions: --redis %q names a host without a port; write %s:6379 (or a redis:// URL) if that Redis is meant", cmdName(c), v, v)
	}
	return nil
}
