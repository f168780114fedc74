package testenv

import (
	"crypto/ecdsa"
	"testing"

	"github.com/xgr-sidecar/xgr/internal/devchain"
)

// Sim is an in-process chain (devchain) for tests.
type Sim struct {
	*devchain.Chain
}

// NewSim builds a simulated chain with the development accounts funded. The
// caller closes it.
func NewSim() (*Sim, error) {
	c, err := devchain.New()
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
	DevMnemonic = devchain.DevMnemonic
	DevAccounts = devchain.DevAccounts
)

// DevKeys derives the first n development keys.
func DevKeys(n int) ([]*ecdsa.PrivateKey, error) { return devchain.DevKeys(n) }
