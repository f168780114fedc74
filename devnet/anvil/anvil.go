// Package anvil runs an anvil child process on a free loopback port with the
// development mnemonic's accounts funded: for commands that need a private
// chain and must leave nothing behind (xgr scenario run without --rpc).
// Tests use testenv, which ties the process to a testing.TB.
package anvil

import (
	"context"
	"fmt"
	"math/big"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/xgr-sidecar/xgr/devnet"
	"github.com/xgr-sidecar/xgr/internal/toolbin"
)

// StartTimeout bounds how long one start attempt may take to answer.
const StartTimeout = 20 * time.Second

// Process is a running anvil.
type Process struct {
	// URL is the JSON-RPC endpoint, http://127.0.0.1:PORT.
	URL string
	// ChainID is what eth_chainId answered.
	ChainID *big.Int

	cmd    *exec.Cmd
	log    *toolbin.Output
	exited chan struct{}
	once   sync.Once
}

// Start finds the anvil binary (toolbin: $XGR_ANVIL_BIN, .tools/bin, PATH;
// a missing one is an error that says to run `make tools`), starts it on a
// free loopback port with devnet.DevMnemonic's first devnet.DevAccounts
// accounts funded and instant mining, and waits until it answers
// eth_chainId. A port taken between choosing and binding it is retried.
// The kernel kills anvil if the caller dies; call Stop to end it.
func Start(ctx context.Context) (*Process, error) {
	bin, err := toolbin.Find("anvil")
	if err != nil {
		return nil, err
	}
	var last error
	for range 5 {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		p, err := start(ctx, bin, port)
		if err == nil {
			return p, nil
		}
		last = err
		if !portTaken(err) {
			break
		}
	}
	return nil, last
}

// portTaken reports whether a start failed because the port was in use.
func portTaken(err error) bool {
	return strings.Contains(err.Error(), "in use")
}

func start(ctx context.Context, bin string, port int) (*Process, error) {
	p := &Process{URL: "http://127.0.0.1:" + strconv.Itoa(port), log: &toolbin.Output{}, exited: make(chan struct{})}
	p.cmd = exec.Command(bin, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"--mnemonic", devnet.DevMnemonic, "--accounts", strconv.Itoa(devnet.DevAccounts))
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	dieWithParent(p.cmd)
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	var waitErr error
	go func() {
		waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	ctx, cancel := context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	c, err := rpc.DialContext(ctx, p.URL)
	if err != nil {
		p.Stop()
		return nil, err
	}
	defer c.Close()
	for {
		var id hexutil.Big
		callCtx, cancelCall := context.WithTimeout(ctx, time.Second)
		err := c.CallContext(callCtx, &id, "eth_chainId")
		cancelCall()
		if err == nil {
			p.ChainID = (*big.Int)(&id)
			return p, nil
		}
		select {
		case <-p.exited:
			return nil, fmt.Errorf("anvil on port %d exited (%v) before answering eth_chainId\nanvil log:\n%s", port, waitErr, p.Log())
		case <-ctx.Done():
			p.Stop()
			return nil, fmt.Errorf("anvil on port %d: no answer to eth_chainId within %s (last error: %v)\nanvil log:\n%s", port, StartTimeout, err, p.Log())
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// Stop kills anvil and waits until it has exited; later calls do nothing.
func (p *Process) Stop() {
	p.once.Do(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
	})
}

// Log is everything anvil printed so far.
func (p *Process) Log() string { return p.log.String() }

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
