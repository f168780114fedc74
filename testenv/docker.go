package testenv

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/testcontainers/testcontainers-go"
	tcexec "github.com/testcontainers/testcontainers-go/exec"
	tclog "github.com/testcontainers/testcontainers-go/log"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/xgr-sidecar/xgr/devnet"
	"github.com/xgr-sidecar/xgr/testenv/provider"
)

// The docker provider. Every container publishes its ports on 127.0.0.1
// only, so URLs and addresses look exactly as with local binaries and the
// xgr binary under test reaches them the same way.
//
// Redis containers listen inside on the port they publish outside (the same
// number), which keeps three things true that tests rely on: an address
// survives Restart; a 3-master cluster whose nodes share one network
// namespace announces 127.0.0.1:PORT, which works inside and outside; and a
// sentinel in the master's namespace reports a master address the test
// process can dial.

const (
	// dockerStartTimeout bounds one container start, image pull included.
	dockerStartTimeout = 5 * time.Minute
	// dockerReadyTimeout bounds the wait for the readiness signal.
	dockerReadyTimeout = 60 * time.Second
)

var loopback = netip.MustParseAddr("127.0.0.1")

// runContainer starts image for t with the options, terminates it when the
// test ends and attaches its log to a failing test. testcontainers-go's own
// messages go to the test log too.
func runContainer(t testing.TB, what, image string, opts ...testcontainers.ContainerCustomizer) (*testcontainers.DockerContainer, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), dockerStartTimeout)
	defer cancel()
	opts = append([]testcontainers.ContainerCustomizer{testcontainers.WithLogger(tclog.TestLogger(t))}, opts...)
	c, err := testcontainers.Run(ctx, image, opts...)
	if c != nil {
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("%s container log (%s):\n%s", what, image, containerLog(c))
			}
			_ = c.Terminate(context.Background(), testcontainers.StopTimeout(0))
		})
	}
	if err != nil {
		return nil, fmt.Errorf("docker provider: %s (%s): %w", what, image, err)
	}
	return c, nil
}

// containerLog is everything the container printed so far.
func containerLog(c *testcontainers.DockerContainer) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rc, err := c.Logs(ctx)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	return string(b)
}

// publishLoopback publishes each of same on 127.0.0.1 under the same port
// number, and each of dynamic ("8545/tcp") on a port the engine picks.
func publishLoopback(same []int, dynamic ...string) testcontainers.CustomizeRequestOption {
	return func(req *testcontainers.GenericContainerRequest) error {
		bindings := network.PortMap{}
		for _, p := range same {
			port := network.MustParsePort(strconv.Itoa(p) + "/tcp")
			req.ExposedPorts = append(req.ExposedPorts, port.String())
			bindings[port] = []network.PortBinding{{HostIP: loopback, HostPort: strconv.Itoa(p)}}
		}
		for _, d := range dynamic {
			port := network.MustParsePort(d)
			req.ExposedPorts = append(req.ExposedPorts, port.String())
			bindings[port] = []network.PortBinding{{HostIP: loopback}}
		}
		return testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			if hc.PortBindings == nil {
				hc.PortBindings = network.PortMap{}
			}
			maps.Copy(hc.PortBindings, bindings)
		})(req)
	}
}

// joinNetwork makes the container share owner's network namespace (its
// loopback and its published ports).
func joinNetwork(owner *testcontainers.DockerContainer) testcontainers.CustomizeRequestOption {
	return testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
		hc.NetworkMode = container.NetworkMode("container:" + owner.GetContainerID())
	})
}

// contains matches a wait strategy's response that contains s.
func contains(s string) func(io.Reader) bool {
	return func(r io.Reader) bool {
		b, _ := io.ReadAll(r)
		return bytes.Contains(b, []byte(s))
	}
}

// portTaken reports whether a start failed because a published port was
// taken between choosing and binding it.
func portTaken(err error) bool {
	s := err.Error()
	return strings.Contains(s, "port is already allocated") || strings.Contains(s, "address already in use")
}

// redisNode describes one redis-server container.
type redisNode struct {
	what string
	// port is where redis-server listens inside (and, when published, on
	// 127.0.0.1 outside).
	port int
	// args follow the provider's own redis-server arguments; configFirst,
	// when set, is a configuration file passed before all of them.
	args        []string
	configFirst string
	// publish lists the ports this container publishes under the same
	// number (its own and those of containers that join its namespace).
	publish []int
	// netOf, when set, is the container whose network namespace this one
	// joins (it then publishes nothing itself).
	netOf *testcontainers.DockerContainer
	files []testcontainers.ContainerFile
}

// startRedisNode starts a redis-server container and waits until it answers
// PING on its port (redis-cli inside the container: the real readiness
// signal, independent of port forwarding).
func startRedisNode(t testing.TB, n redisNode) (*Redis, *testcontainers.DockerContainer, error) {
	t.Helper()
	port := strconv.Itoa(n.port)
	cmd := []string{"redis-server"}
	if n.configFirst != "" {
		cmd = append(cmd, n.configFirst)
	}
	cmd = append(cmd, "--port", port, "--bind", "0.0.0.0", "--protected-mode", "no", "--dir", "/data",
		"--save", "", "--loglevel", "notice")
	cmd = append(cmd, n.args...)
	opts := []testcontainers.ContainerCustomizer{
		testcontainers.WithCmd(cmd...),
		testcontainers.WithWaitStrategy(wait.ForExec([]string{"redis-cli", "-p", port, "ping"}).
			WithResponseMatcher(contains("PONG")).WithStartupTimeout(dockerReadyTimeout)),
	}
	if n.netOf != nil {
		opts = append(opts, joinNetwork(n.netOf))
	} else {
		opts = append(opts, publishLoopback(n.publish))
	}
	if len(n.files) > 0 {
		opts = append(opts, testcontainers.WithFiles(n.files...))
	}
	c, err := runContainer(t, n.what, provider.RedisImage, opts...)
	if err != nil {
		return nil, nil, err
	}
	return &Redis{Network: "tcp", Addr: "127.0.0.1:" + port, t: t, srv: &dockerServer{c: c}}, c, nil
}

// dockerRedis starts a single redis-server container on a free port,
// publishing extra ports as well (for containers that will join it).
func dockerRedis(t testing.TB, args []string, extra func() []int) *Redis {
	t.Helper()
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		port := FreePort(t)
		publish := []int{port}
		if extra != nil {
			publish = append(publish, extra()...)
		}
		var r *Redis
		if r, _, err = startRedisNode(t, redisNode{what: "redis-server", port: port, args: args, publish: publish}); err == nil {
			return r
		}
		if !portTaken(err) {
			break
		}
	}
	t.Fatalf("redis-server did not start: %v", err)
	return nil
}

// dockerCluster starts n cluster nodes in containers that share the first
// node's network namespace; the first publishes every node's port on
// 127.0.0.1 under the same number. The nodes meet on 127.0.0.1 (the bus
// ports stay inside the namespace), so the addresses they announce are the
// ones the test process dials. redis-cli of the image creates the cluster.
func dockerCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		var ports []int
		for len(ports) < n {
			if p := FreePort(t); !containsInt(ports, p) {
				ports = append(ports, p)
			}
		}
		var c *Cluster
		if c, err = startDockerCluster(t, ports); err == nil {
			return c
		}
		if !portTaken(err) {
			break
		}
	}
	t.Fatalf("redis cluster did not start: %v", err)
	return nil
}

func startDockerCluster(t testing.TB, ports []int) (*Cluster, error) {
	t.Helper()
	c := &Cluster{}
	first, owner, err := startRedisNode(t, redisNode{what: "redis cluster node 1", port: ports[0], args: clusterArgs, publish: ports})
	if err != nil {
		return nil, err
	}
	c.Nodes = append(c.Nodes, first)
	for i, p := range ports[1:] {
		node, _, err := startRedisNode(t, redisNode{what: fmt.Sprintf("redis cluster node %d", i+2), port: p, args: clusterArgs, netOf: owner})
		if err != nil {
			return nil, err
		}
		c.Nodes = append(c.Nodes, node)
	}
	cmd := []string{"redis-cli", "--cluster", "create"}
	for _, node := range c.Nodes {
		cmd = append(cmd, node.Addr)
	}
	cmd = append(cmd, "--cluster-replicas", "0", "--cluster-yes")
	ctx, cancel := context.WithTimeout(context.Background(), dockerReadyTimeout)
	defer cancel()
	code, out, err := owner.Exec(ctx, cmd, tcexec.Multiplexed())
	var text []byte
	if out != nil {
		text, _ = io.ReadAll(out)
	}
	if err != nil || code != 0 {
		t.Fatalf("redis-cli --cluster create (in the container): exit %d, %v\n%s", code, err, text)
	}
	return c, nil
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// dockerSentinel starts a master container that also publishes the
// sentinel's port, and a sentinel container in the master's network
// namespace monitoring 127.0.0.1:<master port>. The configuration file
// lies in /data, which the image's entrypoint hands to the redis user, so
// Sentinel can rewrite it.
func dockerSentinel(t testing.TB) *Sentinel {
	t.Helper()
	var sentinelPort int
	master := dockerRedis(t, nil, func() []int {
		sentinelPort = FreePort(t)
		return []int{sentinelPort}
	})
	_, masterPort, _ := strings.Cut(master.Addr, ":")
	mp, _ := strconv.Atoi(masterPort)
	owner := master.srv.(*dockerServer).c
	s, _, err := startRedisNode(t, redisNode{
		what: "redis sentinel", port: sentinelPort, configFirst: "/data/sentinel.conf", args: []string{"--sentinel"}, netOf: owner,
		files: []testcontainers.ContainerFile{{Reader: strings.NewReader(sentinelConf(mp)), ContainerFilePath: "/data/sentinel.conf", FileMode: 0o644}},
	})
	if err != nil {
		t.Fatalf("redis sentinel did not start: %v", err)
	}
	return &Sentinel{Master: master, Sentinel: s, Name: "xgr"}
}

// dockerServer is a Redis server in a container.
type dockerServer struct {
	c *testcontainers.DockerContainer
}

func (d *dockerServer) Log() string { return containerLog(d.c) }

// Stop stops the container at once (docker stop -t 0: SIGTERM followed
// immediately by SIGKILL, before Redis gets to a shutdown save).
func (d *dockerServer) Stop() {
	zero := time.Duration(0)
	_ = d.c.Stop(context.Background(), &zero)
}

// Restart stops the container at once and starts it again: same published
// port, same /data volume; the start waits for PING again.
func (d *dockerServer) Restart() error {
	ctx, cancel := context.WithTimeout(context.Background(), dockerReadyTimeout)
	defer cancel()
	zero := time.Duration(0)
	if err := d.c.Stop(ctx, &zero); err != nil {
		return err
	}
	return d.c.Start(ctx)
}

// dockerAnvil starts anvil from the foundry image with the same accounts
// and flags as the local binary, its RPC port published on a free
// 127.0.0.1 port, and waits until eth_chainId answers. It returns the URL
// and a function that reads the container's log.
func dockerAnvil(t testing.TB) (string, func() string, error) {
	t.Helper()
	ready := wait.ForHTTP("/").WithPort("8545/tcp").WithForcedIPv4LocalHost().
		WithMethod(http.MethodPost).WithHeaders(map[string]string{"Content-Type": "application/json"}).
		WithBody(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`)).
		WithResponseMatcher(contains(`"result"`)).WithStartupTimeout(dockerReadyTimeout)
	c, err := runContainer(t, "anvil", provider.FoundryImage,
		testcontainers.WithEntrypoint("anvil"),
		testcontainers.WithCmd("--host", "0.0.0.0", "--port", "8545",
			"--mnemonic", devnet.DevMnemonic, "--accounts", strconv.Itoa(devnet.DevAccounts)),
		publishLoopback(nil, "8545/tcp"),
		testcontainers.WithWaitStrategy(ready))
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), dockerReadyTimeout)
	defer cancel()
	port, err := c.MappedPort(ctx, "8545/tcp")
	if err != nil {
		return "", nil, fmt.Errorf("docker provider: anvil port: %w", err)
	}
	return "http://127.0.0.1:" + port.Port(), func() string { return containerLog(c) }, nil
}
