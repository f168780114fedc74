// Package provider decides, once per test binary, where the servers of
// testenv run: in containers through testcontainers-go ("docker")
// or as the local binaries found by internal/toolbin ("local"). The choice
// comes from XGR_TEST_PROVIDER (docker, local or auto; auto is the default
// and picks docker when an engine answers, else local).
//
// It is a package of its own, without go-ethereum, so that `make test` can
// print the choice (./testenv/preflight/report) cheaply before the
// suite runs.
package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// Env names the variable that chooses the provider.
const Env = "XGR_TEST_PROVIDER"

// Kind is where the servers run.
type Kind string

const (
	// Local runs redis-server, redis-cli and anvil from XGR_<NAME>_BIN,
	// .tools/bin or PATH (`make tools` installs them).
	Local Kind = "local"
	// Docker runs them in containers of RedisImage and FoundryImage.
	Docker Kind = "docker"
)

// The container images, pinned by digest. A digest names one exact image
// (an OCI index over the platforms), so a moved tag changes nothing; the tag
// is kept for readers and is ignored by the engine when a digest is present.
//
// RedisDigest is the index digest that docker-library/repo-info recorded for
// redis:7.0.15 (the version of Debian's redis-server package that `make
// tools` installs), rebuild of 2024-09-04. FoundryDigest is the index digest
// of ghcr.io/foundry-rs/foundry:v1.7.1 (the anvil version scripts/
// install-tools.sh pins), as pinned by several public projects. Neither was
// pulled from here (the machine that wrote them has no engine): the first
// `XGR_TEST_PROVIDER=docker make test` on a machine with an engine verifies
// them; a digest that does not resolve fails the pull with its name.
const (
	RedisTag      = "redis:7.0.15"
	RedisDigest   = "sha256:ba8af28227224b9a73b59aa7df25b09781b8d6b23b72adcc4c58fb9019d81fa2"
	RedisImage    = RedisTag + "@" + RedisDigest
	FoundryTag    = "ghcr.io/foundry-rs/foundry:v1.7.1"
	FoundryDigest = "sha256:8347b728d5d393dac1c018691b36f506d23b9dcd78341d40ea0fcb11c3a19cdd"
	FoundryImage  = FoundryTag + "@" + FoundryDigest
)

// probeTimeout bounds the question "does an engine answer?".
const probeTimeout = 10 * time.Second

// Choice is the decision and why it was made.
type Choice struct {
	Kind Kind
	// Reason says why, e.g. "XGR_TEST_PROVIDER=local" or
	// "no Docker engine answers at unix:///var/run/docker.sock: no such socket".
	Reason string
	// Err is set when no provider can serve: XGR_TEST_PROVIDER=docker
	// without an engine, or a value that is not docker, local or auto. Its
	// text is one line that says what to do.
	Err error
}

// Probe asks whether a Docker engine answers. It returns where the engine
// is, or where it was looked for and why it does not answer.
type Probe func(ctx context.Context) (where string, err error)

// Choose decides from the value of XGR_TEST_PROVIDER and a probe; it calls
// the probe only when the value is docker or auto (or empty).
func Choose(setting string, probe Probe) Choice {
	switch s := strings.ToLower(strings.TrimSpace(setting)); s {
	case "local":
		return Choice{Kind: Local, Reason: Env + "=local"}
	case "docker", "auto", "":
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		defer cancel()
		where, err := probe(ctx)
		if err == nil {
			if s == "docker" {
				return Choice{Kind: Docker, Reason: Env + "=docker, engine at " + where}
			}
			return Choice{Kind: Docker, Reason: "auto: Docker engine at " + where}
		}
		why := "no Docker engine answers at " + where + ": " + oneLine(err)
		if s == "docker" {
			return Choice{Kind: Docker, Reason: why, Err: fmt.Errorf("%s=docker: %s: install Docker or use %s=local|auto", Env, why, Env)}
		}
		return Choice{Kind: Local, Reason: "auto: " + why}
	default:
		return Choice{Kind: Local, Reason: "invalid " + Env, Err: fmt.Errorf("%s=%q: want docker, local or auto (unset means auto)", Env, setting)}
	}
}

// Line is the report printed once per test binary (and by `make test`):
// which provider serves, why, and what runs where; or the one-line error.
func (c Choice) Line() string {
	if c.Err != nil {
		return "testenv: " + c.Err.Error()
	}
	switch c.Kind {
	case Docker:
		return fmt.Sprintf("testenv: provider docker (%s): redis, 3-master cluster and sentinel in %s, anvil in %s", c.Reason, RedisImage, FoundryImage)
	default:
		return fmt.Sprintf("testenv: provider local (%s): redis-server, redis-cli and anvil from XGR_<NAME>_BIN, .tools/bin or PATH", c.Reason)
	}
}

var current struct {
	once   sync.Once
	choice Choice
}

// Current is the choice for this process, made on the first call from the
// environment and the real engine probe and printed then to stderr.
func Current() Choice {
	current.once.Do(func() {
		current.choice = Choose(os.Getenv(Env), DockerProbe)
		fmt.Fprintln(os.Stderr, current.choice.Line())
	})
	return current.choice
}

// DockerProbe finds the engine the way testcontainers-go does (its
// properties file, DOCKER_HOST, the default socket, rootless sockets) and
// asks it for `docker info`.
func DockerProbe(ctx context.Context) (string, error) {
	type result struct {
		where string
		err   error
	}
	done := make(chan result, 1)
	go func() {
		cli, err := testcontainers.NewDockerClientWithOpts(ctx)
		if err != nil {
			if noDefaultSocket() {
				// The common case, said plainly (testcontainers-go's
				// own error lists every place it looked).
				err = errors.New("no such socket")
			}
			done <- result{lookedAt(), cause(err)}
			return
		}
		defer cli.Close()
		if _, err := cli.Info(ctx, client.InfoOptions{}); err != nil {
			done <- result{cli.DaemonHost(), cause(err)}
			return
		}
		done <- result{cli.DaemonHost(), nil}
	}()
	select {
	case r := <-done:
		return r.where, r.err
	case <-ctx.Done():
		return lookedAt(), fmt.Errorf("no answer within %s", probeTimeout)
	}
}

// lookedAt is where an engine was expected: DOCKER_HOST, else the default
// socket.
func lookedAt() string {
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		return h
	}
	return client.DefaultDockerHost
}

// cause names the usual reasons plainly; other errors pass unchanged.
func cause(err error) error {
	s := err.Error()
	for _, c := range []struct{ in, say string }{
		{"no such file or directory", "no such socket"},
		{"permission denied", "permission denied (is this user in the docker group?)"},
		{"connection refused", "connection refused"},
		{"Cannot connect to the Docker daemon", "cannot connect"},
		{"i/o timeout", "timeout"},
	} {
		if strings.Contains(s, c.in) {
			return errors.New(c.say)
		}
	}
	return err
}

// noDefaultSocket reports whether DOCKER_HOST is unset and the default
// socket does not exist.
func noDefaultSocket() bool {
	if os.Getenv("DOCKER_HOST") != "" || !strings.HasPrefix(client.DefaultDockerHost, "unix://") {
		return false
	}
	_, err := os.Stat(strings.TrimPrefix(client.DefaultDockerHost, "unix://"))
	return errors.Is(err, os.ErrNotExist)
}

// oneLine flattens a (possibly joined) error into a short single line.
func oneLine(err error) string {
	var parts []string
	for _, p := range strings.Split(err.Error(), "\n") {
		// testcontainers-go joins every place it tried; the rootless
		// fallback is noise when another place said more.
		if p = strings.TrimSpace(p); p != "" && (p != "rootless Docker not found" || len(parts) == 0) {
			parts = append(parts, p)
		}
	}
	s := strings.Join(parts, "; ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
