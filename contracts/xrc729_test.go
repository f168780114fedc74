package contracts_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/contracts/xrc729"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

var reg729 = xrc729.NewXRC729()

func TestXRC729DeployAnnouncesItself(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	g, r := testenv.DeployXRC729(t, a, chain.RegistryInit{})
	owner := a.Address(0)

	// Constructor events, in the standard's order.
	want := []common.Hash{sig("OwnershipTransferred(address,address)"), sig("XRC729Deployed(address,address,bytes32,string,string)")}
	if got := topicsOf(r); !slices.Equal(got, want) {
		t.Fatalf("deploy emitted %v, want %v", got, want)
	}
	ot := one(t, r, g.Address, reg729.UnpackOwnershipTransferredEvent)
	if ot.PreviousOwner != (common.Address{}) || ot.NewOwner != owner {
		t.Fatalf("OwnershipTransferred(%s, %s), want (0x0, %s)", ot.PreviousOwner.Hex(), ot.NewOwner.Hex(), owner.Hex())
	}
	d := one(t, r, g.Address, reg729.UnpackXRC729DeployedEvent)
	if d.Xrc729Address != g.Address || d.Owner != owner || d.NameHash != crypto.Keccak256Hash([]byte("XGR_XRC729")) ||
		d.NameXRC != "XGR_XRC729" || d.SchemaVersion != "xrc729-ostc@1" {
		t.Fatalf("XRC729Deployed = %+v", d)
	}
	if name := must(g.Name(ctx))(t); name != "XGR_XRC729" {
		t.Fatalf("nameXRC() = %q", name)
	}
	if v := must(g.SchemaVersion(ctx))(t); v != "xrc729-ostc@1" {
		t.Fatalf("schemaVersion() = %q", v)
	}
	data := must(reg729.Instance(a.Client, g.Address).CallRaw(nil, reg729.PackGetNameXRC()))(t)
	if name := must(reg729.UnpackGetNameXRC(data))(t); name != "XGR_XRC729" {
		t.Fatalf("getNameXRC() = %q", name)
	}
	if ids := must(g.IDs(ctx))(t); len(ids) != 0 {
		t.Fatalf("fresh registry lists %q", ids)
	}
}

func TestXRC729StoresEveryExampleExactly(t *testing.T) {
	files, err := filepath.Glob("../examples/ostc/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	g, _ := testenv.DeployXRC729(t, a, chain.RegistryInit{})
	s := testenv.Sender(t, a, 0)

	var ids []string
	for _, f := range files {
		raw := must(os.ReadFile(f))(t)
		o, err := registry.Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		id := o.ID
		ids = append(ids, id)
		local := registry.Hash(raw)

		w, err := g.Put(ctx, s, id, raw)
		if err != nil {
			t.Fatalf("put %s: %v", f, err)
		}
		r := w.Receipt
		want := []common.Hash{sig("OSTCSet(string)"), sig("OSTCUpdated(address,address,bytes32,bytes32,string,uint256,uint64)")}
		if got := topicsOf(r); !slices.Equal(got, want) {
			t.Fatalf("%s: setOSTC emitted %v, want OSTCSet, OSTCUpdated", id, got)
		}
		set := one(t, r, g.Address, reg729.UnpackOSTCSetEvent)
		if set.Id != crypto.Keccak256Hash([]byte(id)) {
			t.Fatalf("%s: OSTCSet topic %s is not keccak256(id)", id, common.Hash(set.Id).Hex())
		}
		up := one(t, r, g.Address, reg729.UnpackOSTCUpdatedEvent)
		header := must(a.Client.HeaderByNumber(ctx, r.BlockNumber))(t)
		if up.Xrc729Address != g.Address || up.Owner != a.Address(0) || up.OstcIdHash != crypto.Keccak256Hash([]byte(id)) ||
			up.OstcHash != local || up.Id != id || up.Version.Uint64() != 1 || up.UpdatedAt != header.Time {
			t.Fatalf("%s: OSTCUpdated = %+v; want hash %s, version 1, updatedAt %d", id, up, local.Hex(), header.Time)
		}
		if w.Hash != local || w.Version != 1 || w.ID != id {
			t.Fatalf("%s: Put reported %+v", id, w.OSTCMeta)
		}

		got := must(g.Get(ctx, id))(t)
		if string(got) != string(raw) {
			t.Fatalf("%s: getOSTC returned %d bytes that differ from the %d stored", id, len(got), len(raw))
		}
		m := must(g.Meta(ctx, id))(t)
		if m.Hash != local || m.Version != 1 || uint64(m.UpdatedAt.Unix()) != header.Time {
			t.Fatalf("%s: getOSTCMeta = %+v, want hash %s (registry.Hash), version 1", id, m, local.Hex())
		}
		if !must(g.Has(ctx, id))(t) {
			t.Fatalf("%s: hasOSTC = false after setOSTC", id)
		}
	}
	listed := must(g.IDs(ctx))(t)
	slices.Sort(listed)
	slices.Sort(ids)
	if !slices.Equal(listed, ids) {
		t.Fatalf("getAllOSTC = %q, want %q", listed, ids)
	}

	if must(g.Has(ctx, "absent"))(t) {
		t.Fatal("hasOSTC(absent) = true")
	}
	_, err = g.Get(ctx, "absent")
	wantRevert(t, "getOSTC(absent)", err, "XRC729: not found")
	if !errors.Is(err, chain.ErrNotFound) {
		t.Fatalf("getOSTC(absent): %v does not wrap ErrNotFound", err)
	}
	_, err = g.Meta(ctx, "absent")
	wantRevert(t, "getOSTCMeta(absent)", err, "XRC729: not found")
}

func TestXRC729UpdateDeleteAndRecreate(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	g, _ := testenv.DeployXRC729(t, a, chain.RegistryInit{})
	s := testenv.Sender(t, a, 0)

	v1 := []byte(`{"id":"flow","structure":{"A":{"rule":"0x1"}}}`)
	v2 := []byte(`{"id":"flow","structure":{"A":{"rule":"0x2"}}}`)
	must(g.Put(ctx, s, "flow", v1))(t)
	w := must(g.Put(ctx, s, "flow", v2))(t)
	up := one(t, w.Receipt, g.Address, reg729.UnpackOSTCUpdatedEvent)
	if up.Id != "flow" || up.OstcHash != registry.Hash(v2) || up.Version.Uint64() != 2 {
		t.Fatalf("second setOSTC: OSTCUpdated id %q hash %s version %v; want flow, %s, 2", up.Id, common.Hash(up.OstcHash).Hex(), up.Version, registry.Hash(v2).Hex())
	}
	if got := must(g.Get(ctx, "flow"))(t); string(got) != string(v2) {
		t.Fatalf("getOSTC after update = %s", got)
	}
	if ids := must(g.IDs(ctx))(t); !slices.Equal(ids, []string{"flow"}) {
		t.Fatalf("an update must not list the id twice: %q", ids)
	}

	// Three more ids so deletion has to move the last one into the gap.
	for _, id := range []string{"b", "c", "d"} {
		must(g.Put(ctx, s, id, []byte(`{}`)))(t)
	}
	del := must(g.Delete(ctx, s, "flow"))(t)
	r := del.Receipt
	want := []common.Hash{sig("OSTCDeleted(string)"), sig("OSTCDeletedIndexed(address,address,bytes32,bytes32,string,uint256)")}
	if got := topicsOf(r); !slices.Equal(got, want) {
		t.Fatalf("deleteOSTC emitted %v, want OSTCDeleted, OSTCDeletedIndexed", got)
	}
	if ev := one(t, r, g.Address, reg729.UnpackOSTCDeletedEvent); ev.Id != crypto.Keccak256Hash([]byte("flow")) {
		t.Fatalf("OSTCDeleted topic is not keccak256(id)")
	}
	di := one(t, r, g.Address, reg729.UnpackOSTCDeletedIndexedEvent)
	if di.Xrc729Address != g.Address || di.Owner != a.Address(0) || di.OstcIdHash != crypto.Keccak256Hash([]byte("flow")) ||
		di.PreviousOstcHash != registry.Hash(v2) || di.Id != "flow" || di.PreviousVersion.Uint64() != 2 {
		t.Fatalf("OSTCDeletedIndexed = %+v", di)
	}
	_, err := g.Get(ctx, "flow")
	wantRevert(t, "getOSTC after delete", err, "XRC729: not found")
	if must(g.Has(ctx, "flow"))(t) {
		t.Fatal("hasOSTC = true after delete")
	}
	if ids := must(g.IDs(ctx))(t); !slices.Equal(ids, []string{"d", "b", "c"}) {
		t.Fatalf("getAllOSTC after deleting the first id = %q, want the last moved into its place [d b c]", ids)
	}
	for _, id := range []string{"b", "c", "d"} {
		if got := must(g.Get(ctx, id))(t); string(got) != "{}" {
			t.Fatalf("%s after moving: %q", id, got)
		}
	}

	_, err = g.Delete(ctx, s, "flow")
	wantRevert(t, "deleteOSTC of a deleted id", err, "XRC729: not found")
	if !errors.Is(err, chain.ErrNotFound) {
		t.Fatalf("delete of a missing id: %v does not wrap ErrNotFound", err)
	}

	// A deleted id starts again at version 1.
	w = must(g.Put(ctx, s, "flow", v1))(t)
	if w.Version != 1 {
		t.Fatalf("setOSTC after delete: version %d, want 1", w.Version)
	}
}

func TestXRC729WritesAreOwnerOnly(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	g, _ := testenv.DeployXRC729(t, a, chain.RegistryInit{IDs: []string{"x"}, JSONs: [][]byte{[]byte("{}")}})
	intruder := testenv.Sender(t, a, 1)
	other := a.Address(2)

	_, err := g.Put(ctx, intruder, "x", []byte(`{"evil":true}`))
	wantRevert(t, "setOSTC by a non-owner", err, "XRC729: not owner")
	_, err = g.Delete(ctx, intruder, "x")
	wantRevert(t, "deleteOSTC by a non-owner", err, "XRC729: not owner")
	_, err = g.AddExecutor(ctx, intruder, other)
	wantRevert(t, "addExecutor by a non-owner", err, "XRC729: not owner")
	_, err = g.RemoveExecutor(ctx, intruder, other)
	wantRevert(t, "removeExecutor by a non-owner", err, "XRC729: not owner")
	_, err = g.TransferOwnership(ctx, intruder, intruder.From())
	wantRevert(t, "transferOwnership by a non-owner", err, "XRC729: not owner")

	if got := must(g.Get(ctx, "x"))(t); string(got) != "{}" {
		t.Fatalf("document changed by refused writes: %s", got)
	}
	// An executor has no write rights either.
	must(g.AddExecutor(ctx, testenv.Sender(t, a, 0), intruder.From()))(t)
	_, err = g.Put(ctx, intruder, "x", []byte(`{}`))
	wantRevert(t, "setOSTC by an executor", err, "XRC729: not owner")
}

func TestXRC729Executors(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	e1, e2, e3 := a.Address(1), a.Address(2), a.Address(3)

	// Constructor executors: duplicates collapse, one event each.
	g, r := testenv.DeployXRC729(t, a, chain.RegistryInit{Executors: []common.Address{e1, e1}})
	if evs := eventsOf(t, r, g.Address, reg729.UnpackExecutorAddedEvent); len(evs) != 1 || evs[0].Executor != e1 {
		t.Fatalf("constructor with [e1 e1]: ExecutorAdded events %v, want one for e1", evs)
	}
	owner := testenv.Sender(t, a, 0)

	rc := must(g.AddExecutor(ctx, owner, e1))(t)
	if len(rc.Logs) != 0 {
		t.Fatalf("adding a present executor emitted %d logs, want none", len(rc.Logs))
	}
	rc = must(g.AddExecutor(ctx, owner, e2))(t)
	if ev := one(t, rc, g.Address, reg729.UnpackExecutorAddedEvent); ev.Executor != e2 {
		t.Fatalf("ExecutorAdded(%s), want %s", ev.Executor.Hex(), e2.Hex())
	}
	must(g.AddExecutor(ctx, owner, e3))(t)
	if l := must(g.Executors(ctx))(t); !slices.Equal(l, []common.Address{e1, e2, e3}) {
		t.Fatalf("getExecutorList = %v", l)
	}
	for addr, want := range map[common.Address]bool{e1: true, e2: true, e3: true, a.Address(0): false, a.Address(4): false} {
		if got := must(g.IsExecutor(ctx, addr))(t); got != want {
			t.Fatalf("isExecutor(%s) = %v, want %v", addr.Hex(), got, want)
		}
	}

	rc = must(g.RemoveExecutor(ctx, owner, e1))(t)
	if ev := one(t, rc, g.Address, reg729.UnpackExecutorRemovedEvent); ev.Executor != e1 {
		t.Fatalf("ExecutorRemoved(%s), want %s", ev.Executor.Hex(), e1.Hex())
	}
	if l := must(g.Executors(ctx))(t); !slices.Equal(l, []common.Address{e3, e2}) {
		t.Fatalf("after removing the first executor: %v, want the last moved into its place [e3 e2]", l)
	}
	rc = must(g.RemoveExecutor(ctx, owner, e1))(t)
	if len(rc.Logs) != 0 {
		t.Fatalf("removing an absent executor emitted %d logs, want none", len(rc.Logs))
	}

	_, err := g.AddExecutor(ctx, owner, a.Address(0))
	wantRevert(t, "addExecutor(owner)", err, "XRC729: owner cannot be executor")
	_, err = g.AddExecutor(ctx, owner, common.Address{})
	wantRevert(t, "addExecutor(0x0)", err, "XRC729: zero executor")

	// The constructor applies the same rules.
	_, _, err = chain.DeployRegistry(ctx, owner, chain.RegistryInit{Executors: []common.Address{a.Address(0)}})
	wantRevert(t, "constructor with the owner as executor", err, "XRC729: owner cannot be executor")
	_, err = owner.Deploy(ctx, "deploy", common.FromHex(xrc729.XRC729MetaData.Bin), reg729.PackConstructor([]string{"a", "b"}, []string{"{}"}, []common.Address{}))
	wantRevert(t, "constructor with 2 ids and 1 document", err, "XRC729: OSTC array length mismatch")
}

func TestXRC729TransferOwnership(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	g, _ := testenv.DeployXRC729(t, a, chain.RegistryInit{})
	old := testenv.Sender(t, a, 0)
	heir := testenv.Sender(t, a, 1)
	keep := a.Address(2)
	must(g.AddExecutor(ctx, old, heir.From()))(t)
	must(g.AddExecutor(ctx, old, keep))(t)

	_, err := g.TransferOwnership(ctx, old, common.Address{})
	wantRevert(t, "transferOwnership(0x0)", err, "XRC729: zero address")

	rc := must(g.TransferOwnership(ctx, old, heir.From()))(t)
	want := []common.Hash{sig("ExecutorRemoved(address)"), sig("OwnershipTransferred(address,address)")}
	if got := topicsOf(rc); !slices.Equal(got, want) {
		t.Fatalf("transferOwnership to an executor emitted %v, want ExecutorRemoved, OwnershipTransferred", got)
	}
	if ev := one(t, rc, g.Address, reg729.UnpackExecutorRemovedEvent); ev.Executor != heir.From() {
		t.Fatalf("ExecutorRemoved(%s), want the new owner", ev.Executor.Hex())
	}
	ot := one(t, rc, g.Address, reg729.UnpackOwnershipTransferredEvent)
	if ot.PreviousOwner != old.From() || ot.NewOwner != heir.From() {
		t.Fatalf("OwnershipTransferred(%s, %s)", ot.PreviousOwner.Hex(), ot.NewOwner.Hex())
	}
	if o := must(g.Owner(ctx))(t); o != heir.From() {
		t.Fatalf("owner() = %s, want %s", o.Hex(), heir.From().Hex())
	}
	if l := must(g.Executors(ctx))(t); !slices.Equal(l, []common.Address{keep}) {
		t.Fatalf("executors after transfer = %v, want only %s", l, keep.Hex())
	}

	_, err = g.Put(ctx, old, "x", []byte("{}"))
	wantRevert(t, "setOSTC by the previous owner", err, "XRC729: not owner")
	if w := must(g.Put(ctx, heir, "x", []byte("{}")))(t); w.Version != 1 {
		t.Fatalf("new owner's setOSTC: version %d", w.Version)
	}
	// Ownership can move to an account that is no executor: no ExecutorRemoved.
	rc = must(g.TransferOwnership(ctx, heir, old.From()))(t)
	if got := topicsOf(rc); !slices.Equal(got, []common.Hash{sig("OwnershipTransferred(address,address)")}) {
		t.Fatalf("transferOwnership to a non-executor emitted %v", got)
	}
}
