package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/internal/redact"
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
		return errors.New("--redis-password-file and the --redis URL both give the Redis password: give it once")
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
// $XGR_REDIS_PASSWORD ("" for none); giving both is an error. The file's
// trailing newline is not part of the password.
func redisPassword(c *cli.Context) (string, error) {
	env := os.Getenv(redisPasswordEnv)
	file := c.String("redis-password-file")
	if file == "" {
		return env, nil
	}
	if env != "" {
		return "", fmt.Errorf("--redis-password-file and $%s both give the Redis password: give it once", redisPasswordEnv)
	}
	return readRedisPasswordFile(file)
}

func readRedisPasswordFile(file string) (string, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return "", fmt.Errorf("--redis-password-file: %v", err)
	}
	if !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return "", fmt.Errorf("--redis-password-file %s: want a regular file of at most 4096 bytes holding the password", file)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("--redis-password-file: %v", err)
	}
	pw := strings.TrimRight(string(b), "\r\n")
	if pw == "" {
		return "", fmt.Errorf("--redis-password-file %s: the file is empty", file)
	}
	return pw, nil
}

// redisAddrForms is what --redis accepts, for error messages.
const redisAddrForms = "want host:port, :port, redis://[user:password@]host:port/db, rediss://… (TLS) or unix:///path/to/redis.sock"

// parseRedisAddr reads a Redis address as --redis gives it: a URL
// (redis://, rediss://, unix://), host:port, :port (this host), a bare
// host (port 6379) or a socket path. The error says what is accepted and
// never holds the address's password.
func parseRedisAddr(s string) (*redis.Options, error) {
	opts, err := parseRedisAddrText(s)
	return opts, redact.Error(err, s)
}

func parseRedisAddrText(s string) (*redis.Options, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("empty address: " + redisAddrForms)
	}
	if strings.Contains(s, "://") {
		scheme, _, _ := strings.Cut(s, "://")
		switch scheme {
		case "redis", "rediss", "unix":
		default:
			return nil, fmt.Errorf("scheme %q is not a Redis scheme: %s", scheme, redisAddrForms)
		}
		opts, err := redis.ParseURL(s)
		if err != nil {
			// go-redis's own words name URL internals; say what is wrong in
			// the user's terms and keep the detail last.
			return nil, fmt.Errorf("not a Redis URL (%v): %s", err, redisAddrForms)
		}
		return opts, nil
	}
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "./") {
		return &redis.Options{Network: "unix", Addr: s}, nil
	}
	if strings.ContainsAny(s, "/@?# ") {
		return nil, fmt.Errorf("%q is neither a URL nor host:port: %s", s, redisAddrForms)
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		if strings.Count(s, ":") > 0 {
			return nil, fmt.Errorf("%v: %s", err, redisAddrForms)
		}
		host, port = s, "6379" // a bare host name
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return nil, fmt.Errorf("port %q is not a port number (1-65535): %s", port, redisAddrForms)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return &redis.Options{Addr: net.JoinHostPort(host, port)}, nil
}

// parseRedisSeeds reads a comma-separated list of host:port addresses
// (--redis-cluster, --redis-sentinel).
func parseRedisSeeds(flag, s string) ([]string, error) {
	var out []string
	for _, a := range strings.Split(s, ",") {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		host, port, err := net.SplitHostPort(a)
		if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("--%s: %q is not host:port (e.g. 10.0.0.5:7000)", flag, a)
		}
		if host == "" {
			a = "127.0.0.1:" + port
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--%s: give at least one host:port", flag)
	}
	return out, nil
}

// redisTarget is the Redis a command talks to, for messages: where it is
// and which flag and variable chose it.
type redisTarget struct {
	Addr string
	Flag string
}

func (t redisTarget) String() string { return fmt.Sprintf("Redis at %s (%s)", t.Addr, t.Flag) }

// failed wraps an error from this Redis so that it names Redis, the
// address and the flag, without the dialer's jargon: "Redis at
// 127.0.0.1:1 (--redis / XGR_REDIS): connection refused".
func (t redisTarget) failed(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %s", t, redisReason(err))
}

// redisReason is err in a user's words: a network error without its
// "dial tcp host:port: connect:" prefix, a timeout as a timeout.
func redisReason(err error) string {
	var op *net.OpError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer in time (is it running and reachable?)"
	case errors.As(err, &op) && op.Err != nil:
		msg := op.Err.Error()
		if _, after, ok := strings.Cut(msg, "connect: "); ok {
			msg = after
		}
		return msg
	}
	return err.Error()
}

// openRedis connects to the Redis of --redis, --redis-cluster or
// --redis-sentinel and checks that it answers (PING). A malformed address
// is a usage error (exit 2), a Redis that does not answer a failure (exit
// 1); both messages name Redis, the address and the flag.
func openRedis(c *cli.Context) (redis.UniversalClient, redisTarget, error) {
	rdb, t, err := newRedisClient(c)
	if err != nil {
		return nil, t, cli.Exit(fmt.Sprintf("%s: %v", cmdName(c), err), 2)
	}
	ctx, cancel := context.WithTimeout(c.Context, 10*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		return nil, t, cli.Exit(fmt.Sprintf("%s: %v", cmdName(c), t.failed(err)), 1)
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
	v := strings.TrimSpace(c.String("redis"))
	if !strings.Contains(v, "://") && !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "./") && !strings.Contains(v, ":") {
		return usageError("%s changes sessions: --redis %q names a host without a port; write %s:6379 (or a redis:// URL) if that Redis is meant", cmdName(c), v, v)
	}
	return nil
}

// newRedisClient builds the client of the Redis flags without connecting.
func newRedisClient(c *cli.Context) (redis.UniversalClient, redisTarget, error) {
	pw, err := redisPassword(c)
	if err != nil {
		return nil, redisTarget{Flag: "--redis-password-file / " + redisPasswordEnv}, err
	}
	pwFrom := "$" + redisPasswordEnv
	if c.String("redis-password-file") != "" {
		pwFrom = "--redis-password-file"
	}
	switch {
	case c.String("redis-cluster") != "":
		seeds, err := parseRedisSeeds("redis-cluster", c.String("redis-cluster"))
		t := redisTarget{Addr: "cluster " + strings.Join(seeds, ","), Flag: "--redis-cluster / XGR_REDIS_CLUSTER"}
		if err != nil {
			return nil, t, err
		}
		return redis.NewClusterClient(&redis.ClusterOptions{Addrs: seeds, Password: pw, ContextTimeoutEnabled: true}), t, nil
	case c.String("redis-sentinel") != "":
		seeds, err := parseRedisSeeds("redis-sentinel", c.String("redis-sentinel"))
		t := redisTarget{Addr: "master " + c.String("redis-master") + " via sentinels " + strings.Join(seeds, ","), Flag: "--redis-sentinel / XGR_REDIS_SENTINEL"}
		if err != nil {
			return nil, t, err
		}
		if c.String("redis-master") == "" {
			return nil, t, errors.New("--redis-sentinel needs --redis-master NAME (the master name the Sentinels know)")
		}
		return redis.NewFailoverClient(&redis.FailoverOptions{MasterName: c.String("redis-master"), SentinelAddrs: seeds, Password: pw, ContextTimeoutEnabled: true}), t, nil
	}
	t := redisTarget{Addr: redact.URL(c.String("redis")), Flag: "--redis / XGR_REDIS"}
	opts, err := parseRedisAddr(c.String("redis"))
	if err != nil {
		return nil, t, fmt.Errorf("--redis %q: %v", redact.URL(c.String("redis")), err)
	}
	t.Addr = opts.Addr
	if pw != "" {
		if opts.Password != "" {
			return nil, t, fmt.Errorf("--redis %q holds a password and %s gives one: give it once", redact.URL(c.String("redis")), pwFrom)
		}
		opts.Password = pw
	}
	// Deadlines of a context bound the socket too (a health check must not
	// wait out a paused or frozen Redis).
	opts.ContextTimeoutEnabled = true
	return redis.NewClient(opts), t, nil
}
