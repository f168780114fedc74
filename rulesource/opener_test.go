package rulesource_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/testenv"
)

// grants is a stand-in for the grant store: one wrapped key per RID, which
// a test revokes or breaks.
type grants struct {
	wrapped map[envelope.RID]string
	down    atomic.Bool
	asked   atomic.Int64
}

func (g *grants) lookup(_ context.Context, _ common.Address, rid envelope.RID) (string, bool, error) {
	g.asked.Add(1)
	if g.down.Load() {
		return "", false, errors.New("grant store: connection refused")
	}
	w, ok := g.wrapped[rid]
	return w, ok, nil
}

// A rule contract holding an XGR1 envelope runs when xgr's read key holds
// a grant for its RID, and stops at the next load once the grant is gone.
func TestChainOpensSealedRules(t *testing.T) {
	sim := testenv.StartSim(t)
	ctx := context.Background()
	key, err := envelope.GenerateReadKey()
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := envelope.SealRule([]byte(v1), key.Public())
	if err != nil {
		t.Fatal(err)
	}
	blob := sealed.Sealed.String()
	r, _ := testenv.DeployXRC137(t, sim, v2)
	if _, err := r.SetEncrypted(ctx, testenv.Sender(t, sim, 0), []byte(blob), chain.Encryption{
		RID: common.Hash(sealed.Sealed.RID), Suite: envelope.Suite, EncDEK: sealed.Wrapped.Bytes()}); err != nil {
		t.Fatal(err)
	}
	ref := r.Address.Hex()

	// Without an opener: refused as before.
	if _, err := rulesource.NewChain(sim.Backend()).Load(ctx, ref); !errors.Is(err, rulesource.ErrEncrypted) {
		t.Fatalf("no opener: %v", err)
	}

	g := &grants{wrapped: map[envelope.RID]string{sealed.Sealed.RID: sealed.Wrapped.String()}}
	c := rulesource.NewChain(sim.Backend())
	c.Opener = &rulesource.KeyOpener{Key: key, Grant: g.lookup}
	l, err := c.Load(ctx, ref)
	if err != nil || l.Doc.Hash != crypto.Keccak256Hash([]byte(v1)) || l.Address != r.Address {
		t.Fatalf("sealed rule: %+v, %v", l, err)
	}
	// Cached, but the grant is asked again at every load.
	again, err := c.Load(ctx, ref)
	if err != nil || again.Doc != l.Doc || g.asked.Load() != 2 {
		t.Fatalf("cached sealed rule: %v, %d lookups", err, g.asked.Load())
	}

	// The contract's own header wraps the DEK for xgr's key (sealed with
	// --to xgr's key): HeaderGrant serves it; for another key it does not
	// open, and a header of another rid is no grant.
	hc := rulesource.NewChain(sim.Backend())
	hc.Opener = &rulesource.KeyOpener{Key: key, Grant: rulesource.HeaderGrant(sim.Backend())}
	if hl, err := hc.Load(ctx, ref); err != nil || hl.Doc.Hash != crypto.Keccak256Hash([]byte(v1)) {
		t.Fatalf("header grant: %v", err)
	}
	stranger, _ := envelope.GenerateReadKey()
	sc := rulesource.NewChain(sim.Backend())
	sc.Opener = &rulesource.KeyOpener{Key: stranger, Grant: rulesource.HeaderGrant(sim.Backend())}
	if _, err := sc.Load(ctx, ref); !errors.Is(err, envelope.ErrNotOpened) {
		t.Fatalf("header grant, another key: %v", err)
	}
	mismatch, _ := testenv.DeployXRC137(t, sim, v2)
	if _, err := mismatch.SetEncrypted(ctx, testenv.Sender(t, sim, 0), []byte(blob), chain.Encryption{
		RID: common.Hash{9}, Suite: envelope.Suite, EncDEK: sealed.Wrapped.Bytes()}); err != nil {
		t.Fatal(err)
	}
	if _, err := hc.Load(ctx, mismatch.Address.Hex()); !errors.Is(err, rulesource.ErrNoGrant) {
		t.Fatalf("header of another rid: %v", err)
	}

	// The grant store does not answer: unavailable, may work later.
	g.down.Store(true)
	if _, err := c.Load(ctx, ref); !errors.Is(err, rule.ErrUnavailable) {
		t.Fatalf("grant store down: %v", err)
	}
	g.down.Store(false)

	// Revoked (or expired): the next load refuses, naming rule and RID.
	delete(g.wrapped, sealed.Sealed.RID)
	_, err = c.Load(ctx, ref)
	want := "rule " + r.Address.Hex() + " is encrypted (rid " + sealed.Sealed.RID.String() + ") and xgr's read key holds no READ grant for it"
	var le *rulesource.Error
	if !errors.Is(err, rulesource.ErrNoGrant) || !errors.As(err, &le) || !strings.Contains(err.Error(), want) {
		t.Fatalf("revoked: %v\nwant %q", err, want)
	}
	if strings.Contains(err.Error(), "[X] > 0") {
		t.Fatalf("error carries plaintext: %v", err)
	}

	// A grant wrapped for another key does not open, and is not taken for
	// a grant of this one; a fresh chain source (nothing cached) agrees.
	other, _ := envelope.GenerateReadKey()
	foreign, err := envelope.SealRule([]byte(v1), other.Public())
	if err != nil {
		t.Fatal(err)
	}
	g.wrapped[sealed.Sealed.RID] = foreign.Wrapped.String()
	fresh := rulesource.NewChain(sim.Backend())
	fresh.Opener = &rulesource.KeyOpener{Key: key, Grant: g.lookup}
	if _, err := fresh.Load(ctx, ref); !errors.Is(err, envelope.ErrNotOpened) {
		t.Fatalf("foreign grant: %v", err)
	}
	// No read key configured: says so.
	nokey := rulesource.NewChain(sim.Backend())
	nokey.Opener = &rulesource.KeyOpener{}
	if _, err := nokey.Load(ctx, ref); err == nil || !strings.Contains(err.Error(), "xgr has no read key") {
		t.Fatalf("no key: %v", err)
	}
	// A broken envelope on chain is named as such.
	bad, _ := testenv.DeployXRC137(t, sim, v2)
	if _, err := bad.SetEncrypted(ctx, testenv.Sender(t, sim, 0), []byte("XGR1.AES.abcdef"), chain.Encryption{RID: common.HexToHash("0x01"), Suite: "AESGCM256", EncDEK: []byte{1}}); err != nil {
		t.Fatal(err)
	}
	var fe *envelope.FormatError
	if _, err := fresh.Load(ctx, bad.Address.Hex()); !errors.As(err, &fe) || fe.Part != "suite" {
		t.Fatalf("broken envelope: %v", err)
	}
}
