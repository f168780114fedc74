package redisconn

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/redact"
)

// Config selects the Redis that holds xgr's state and says how to reach
// it: one server (Addr), a Redis Cluster (Cluster) or a master through
// Sentinel (Sentinels and Master); Cluster wins over Sentinels, both over
// Addr.
type Config struct {
	// Addr is one server: host:port, :port, a bare host (DefaultPort), a
	// redis:// or unix:// URL (rediss:// for TLS), or a socket path
	// (ParseAddr).
	Addr string
	// Cluster are seed addresses (host:port) of a Redis Cluster.
	Cluster []string
	// Sentinels are Sentinel addresses (host:port) that know the master
	// named Master.
	Sentinels []string
	Master    string
	// Password authenticates; an Addr URL that holds one as well is an
	// error (the password is given once).
	Password string
	// Origin names what chose this Redis in messages (Target), e.g.
	// "--redis / XGR_REDIS"; PasswordOrigin what gave Password.
	Origin, PasswordOrigin string
}

// PingTimeout bounds Open's first PING.
const PingTimeout = 10 * time.Second

// Target is the Redis c selects, for messages; its address holds no
// password.
func (c Config) Target() Target {
	switch {
	case len(c.Cluster) > 0:
		return Target{Addr: "cluster " + strings.Join(c.Cluster, ","), Origin: c.Origin}
	case len(c.Sentinels) > 0:
		return Target{Addr: "master " + c.Master + " via sentinels " + strings.Join(c.Sentinels, ","), Origin: c.Origin}
	}
	if opts, err := ParseAddr(c.Addr); err == nil {
		return Target{Addr: opts.Addr, Origin: c.Origin}
	}
	return Target{Addr: redact.URL(c.Addr), Origin: c.Origin}
}

// Check reports what makes c unusable, without connecting: an address
// that does not parse, a seed that is not host:port, Sentinels without a
// Master, a password given twice, no Redis at all.
func (c Config) Check() error {
	_, err := c.client(false)
	return err
}

// NewClient is the client of c, not connected yet (go-redis connects on
// the first command); the errors are Check's. Context deadlines bound
// its sockets too (ContextTimeoutEnabled): a health check must not wait
// out a paused or frozen Redis.
func (c Config) NewClient() (redis.UniversalClient, error) { return c.client(true) }

// client checks c and, when build, makes its client.
func (c Config) client(build bool) (redis.UniversalClient, error) {
	seeds := func(what string, addrs []string) error {
		if _, err := ParseSeeds(strings.Join(addrs, ",")); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	}
	switch {
	case len(c.Cluster) > 0:
		if err := seeds("cluster seeds", c.Cluster); err != nil || !build {
			return nil, err
		}
		return redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Cluster, Password: c.Password, ContextTimeoutEnabled: true}), nil
	case len(c.Sentinels) > 0:
		if err := seeds("sentinels", c.Sentinels); err != nil {
			return nil, err
		}
		if c.Master == "" {
			return nil, errors.New("sentinels need the name of the master they know")
		}
		if !build {
			return nil, nil
		}
		return redis.NewFailoverClient(&redis.FailoverOptions{MasterName: c.Master, SentinelAddrs: c.Sentinels, Password: c.Password, ContextTimeoutEnabled: true}), nil
	case strings.TrimSpace(c.Addr) == "":
		return nil, errors.New("no Redis: give an address, cluster seeds, or sentinels with a master")
	}
	opts, err := ParseAddr(c.Addr)
	if err != nil {
		return nil, fmt.Errorf("address %q: %w", redact.URL(c.Addr), err)
	}
	if c.Password != "" {
		if opts.Password != "" {
			from := c.PasswordOrigin
			if from == "" {
				from = "Password"
			}
			return nil, fmt.Errorf("address %q holds a password and %s gives one: give it once", redact.URL(c.Addr), from)
		}
		opts.Password = c.Password
	}
	if !build {
		return nil, nil
	}
	opts.ContextTimeoutEnabled = true
	return redis.NewClient(opts), nil
}

// Open is the client of c once its Redis answered a PING (within
// PingTimeout). A config that cannot work is Check's error; a Redis that
// does not answer is an *Error naming the Target.
func Open(ctx context.Context, c Config) (redis.UniversalClient, error) {
	rdb, err := c.NewClient()
	if err != nil {
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, PingTimeout)
	defer cancel()
	if err := rdb.Ping(pctx).Err(); err != nil {
		rdb.Close()
		return nil, c.Target().Failed(err)
	}
	return rdb, nil
}
