package testenv

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/xgr-sidecar/xgr/internal/chain"
	"github.com/xgr-sidecar/xgr/internal/toolbin"
)

// Anvil is a running anvil process on a loopback port.
type Anvil struct {
	// URL is the JSON-RPC endpoint, http://127.0.0.1:PORT.
	URL string
	// Client is connected to URL.
	Client *ethclient.Client
	// Keys are the funded development keys (DevKeys).
	Keys []*ecdsa.PrivateKey

	chainID *big.Int
	cmd     *exec.Cmd
	log     *syncBuffer
}

// anvilStartTimeout bounds how long one start attempt may take to answer.
const anvilStartTimeout = 20 * time.Second

// StartAnvil starts anvil on a free loopback port with DevMnemonic's
// accounts funded and instant mining, waits until it answers eth_chainId and
// stops it when the test ends, printing its log if the test failed. A port
// taken between choosing and binding it is retried on another port.
func StartAnvil(t testing.TB) *Anvil {
	t.Helper()
	bin, err := toolbin.Find("anvil")
	if err != nil {
		t.Fatalf("testenv: cannot start anvil: %v", err)
	}
	keys, err := DevKeys(DevAccounts)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	const attempts = 5
	var last error
	for range attempts {
		port, err := freePort()
		if err != nil {
			t.Fatalf("testenv: %v", err)
		}
		a, err := startAnvil(t, bin, port)
		if err == nil {
			a.Keys = keys
			return a
		}
		last = err
		if !portTaken(err) {
			break
		}
	}
	t.Fatalf("testenv: %v", last)
	return nil
}

// portTaken reports whether a start failed because the port was in use.
func portTaken(err error) bool {
	return strings.Contains(err.Error(), "in use")
}

func startAnvil(t testing.TB, bin string, port int) (*Anvil, error) {
	a := &Anvil{URL: "http://127.0.0.1:" + strconv.Itoa(port), log: &syncBuffer{}}
	a.cmd = exec.Command(bin,
		"--host", "127.0.0.1",
		"--port", strconv.Itoa(port),
		"--mnemonic", DevMnemonic,
		"--accounts", strconv.Itoa(DevAccounts),
	)
	a.cmd.Stdout = a.log
	a.cmd.Stderr = a.log
	if err := a.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	// exited is closed when the process has ended; waitErr is then its status.
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = a.cmd.Wait()
		close(exited)
	}()
	stop := func() {
		_ = a.cmd.Process.Kill()
		<-exited
	}

	ctx, cancel := context.WithTimeout(context.Background(), anvilStartTimeout)
	defer cancel()
	id, err := waitForChainID(ctx, a.URL, exited, &waitErr)
	if err != nil {
		stop()
		return nil, fmt.Errorf("anvil on port %d did not come up: %w\nanvil log:\n%s", port, err, a.log.String())
	}
	a.chainID = id
	if a.Client, err = ethclient.Dial(a.URL); err != nil {
		stop()
		return nil, err
	}
	t.Cleanup(func() {
		a.Client.Close()
		stop()
		if t.Failed() {
			t.Logf("anvil log (%s):\n%s", a.URL, a.log.String())
		}
	})
	return a, nil
}

// waitForChainID polls eth_chainId until it answers, the process exits
// (exited is closed, *waitErr says how) or ctx ends.
func waitForChainID(ctx context.Context, url string, exited <-chan struct{}, waitErr *error) (*big.Int, error) {
	c, err := rpc.DialContext(ctx, url)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	for {
		var id hexutil.Big
		callCtx, cancel := context.WithTimeout(ctx, time.Second)
		err := c.CallContext(callCtx, &id, "eth_chainId")
		cancel()
		if err == nil {
			return (*big.Int)(&id), nil
		}
		select {
		case <-exited:
			return nil, fmt.Errorf("anvil exited (%v) before answering eth_chainId", *waitErr)
		case <-ctx.Done():
			return nil, fmt.Errorf("no answer to eth_chainId within %s (last error: %v)", anvilStartTimeout, err)
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// freePort asks the kernel for an unused loopback port. Another process may
// take it before anvil binds it; StartAnvil retries then.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Backend is the anvil client.
func (a *Anvil) Backend() chain.Backend { return a.Client }

// ChainID is anvil's chain id (31337 unless configured otherwise).
func (a *Anvil) ChainID() *big.Int { return new(big.Int).Set(a.chainID) }

// Key is the i-th development key.
func (a *Anvil) Key(i int) *ecdsa.PrivateKey { return a.Keys[i] }

// Address is the account of Key(i).
func (a *Anvil) Address(i int) common.Address { return chain.Address(a.Keys[i]) }

// Log is everything anvil printed so far.
func (a *Anvil) Log() string { return a.log.String() }

// Mine asks anvil to mine n empty blocks at once (anvil_mine).
func (a *Anvil) Mine(t testing.TB, n int) {
	t.Helper()
	if err := a.Client.Client().CallContext(context.Background(), nil, "anvil_mine", hexutil.Uint64(n)); err != nil {
		t.Fatalf("anvil_mine %d: %v", n, err)
	}
}

// syncBuffer is a bytes.Buffer safe for the writer goroutines of exec and
// readers in the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
