package contracts_test

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/contracts/xrc563"
	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/testenv"
)

var keys563 = xrc563.NewXRC563()

// The XRC-563 read-key registry on anvil: each account publishes,
// replaces and clears only its own key; keys of the wrong length or form
// are refused with the standard's reason; every change emits its event.
func TestXRC563ReadKeys(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s0, s1 := testenv.Sender(t, a, 0), testenv.Sender(t, a, 1)
	reg, _ := must2(chain.DeployKeyRegistry(ctx, s0))(t)

	if got := must(reg.ReadKey(ctx, a.Address(0)))(t); len(got) != 0 {
		t.Fatalf("fresh registry: key %x", got)
	}
	k1, _ := envelope.GenerateReadKey()
	k2, _ := envelope.GenerateReadKey()
	pub1, pub2 := k1.Public().Bytes(), k2.Public().Bytes()

	r := must(reg.Register(ctx, s0, pub1))(t)
	if got := topicsOf(r); !slices.Equal(got, topics("ReadKeyRegistered(address,bytes)")) {
		t.Fatalf("registerReadKey emitted %v", got)
	}
	ev := one(t, r, reg.Address, keys563.UnpackReadKeyRegisteredEvent)
	if ev.Owner != a.Address(0) || !bytes.Equal(ev.Pubkey, pub1) {
		t.Fatalf("ReadKeyRegistered = %+v", ev)
	}
	if got := must(reg.ReadKey(ctx, a.Address(0)))(t); !bytes.Equal(got, pub1) {
		t.Fatalf("getReadKey = %x, want %x", got, pub1)
	}
	// Another account is separate.
	if got := must(reg.ReadKey(ctx, a.Address(1)))(t); len(got) != 0 {
		t.Fatalf("account 1 has key %x", got)
	}
	must(reg.Register(ctx, s1, pub2))(t)
	// Replacing.
	must(reg.Register(ctx, s0, pub2))(t)
	if got := must(reg.ReadKey(ctx, a.Address(0)))(t); !bytes.Equal(got, pub2) {
		t.Fatalf("after replace: %x", got)
	}
	// A compressed key is what the standard allows too.
	compressed := append([]byte{0x02 | pub1[64]&1}, pub1[1:33]...)
	must(reg.Register(ctx, s0, compressed))(t)

	for _, tc := range []struct {
		name   string
		key    []byte
		reason string
	}{
		{"empty", nil, chain.ReasonReadKeyLength},
		{"64 bytes", pub1[1:], chain.ReasonReadKeyLength},
		{"66 bytes", append(slices.Clone(pub1), 0), chain.ReasonReadKeyLength},
		{"65 bytes not 0x04", append([]byte{0x02}, pub1[1:]...), chain.ReasonReadKeyPrefix},
		{"33 bytes 0x04", append([]byte{0x04}, pub1[1:33]...), chain.ReasonReadKeyPrefix},
	} {
		_, err := reg.Register(ctx, s0, tc.key)
		wantRevert(t, tc.name, err, tc.reason)
	}
	if got := must(reg.ReadKey(ctx, a.Address(0)))(t); !bytes.Equal(got, compressed) {
		t.Fatalf("a refused key changed the state: %x", got)
	}

	r = must(reg.Clear(ctx, s0))(t)
	if c := one(t, r, reg.Address, keys563.UnpackReadKeyClearedEvent); c.Owner != a.Address(0) {
		t.Fatalf("ReadKeyCleared = %+v", c)
	}
	if got := must(reg.ReadKey(ctx, a.Address(0)))(t); len(got) != 0 {
		t.Fatalf("after clear: %x", got)
	}
	if got := must(reg.ReadKey(ctx, a.Address(1)))(t); !bytes.Equal(got, pub2) {
		t.Fatalf("clear by account 0 touched account 1: %x", got)
	}
}

// must2 is must for functions with two results and an error.
func must2[A, B any](a A, b B, err error) func(t *testing.T) (A, B) {
	return func(t *testing.T) (A, B) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return a, b
	}
}
