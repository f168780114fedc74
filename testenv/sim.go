package testenv

import (
	"crypto/ecdsa"
	"testing"

	"github.com/xgr-sidecar/xgr/devnet"
)

// Sim is an in-process chain (devnet) for tests.
type Sim struct {
	*devnet.Chain
}

// NewSim builds a simulated chain with the development accounts funded. The
// caller closes it.
func NewSim() (*Sim, error) {
	c, err := devnet.New()
	if err != nil {
		return nil, err
	}
	return &Sim{c}, nil
}

// StartSim is NewSim for a test: it fails the test on error and closes the
// chain when the test ends.
func StartSim(t testing.TB) *Sim {
	t.Helper()
	s, err := NewSim()
	if err != nil {
		t.Fatalf("testenv: simulated chain: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// The development accounts, re-exported for tests.
const (
	DevMnemonic = devnet.DevMnemonic
	DevAccounts = devnet.DevAccounts
)

// DevKeys derives the first n development keys.
func DevKeys(n int) ([]*ecdsa.PrivateKey, error) { return devnet.DevKeys(n) }
