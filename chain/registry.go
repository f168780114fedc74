package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/xgr-sidecar/xgr/contracts/xrc729"
)

// XRC-729 revert reasons, as the standard words them.
const (
	ReasonNotOwner = "XRC729: not owner"
	ReasonNotFound = "XRC729: not found"
)

// ErrNotFound is returned (wrapped) when the registry has no such id.
var ErrNotFound = errors.New("no orchestration with that id in the registry")

var xrc729ABI = xrc729.NewXRC729()

// Registry is a client of one XRC-729 registry contract.
type Registry struct {
	access
	Address common.Address
	backend Backend
}

// NewRegistry returns a client of the registry at addr. It does not check
// that a contract is there; the first call does.
func NewRegistry(addr common.Address, b Backend) *Registry {
	bound := xrc729ABI.Instance(b, addr)
	a := xrc729ABI.GetABI()
	return &Registry{access: access{kind: "XRC-729", abi: &a, bound: bound}, Address: addr, backend: b}
}

// RegistryInit is what the constructor stores at deployment.
type RegistryInit struct {
	IDs       []string
	JSONs     [][]byte
	Executors []common.Address
}

// DeployRegistry deploys a new XRC-729 registry owned by the sender.
func DeployRegistry(ctx context.Context, s *Sender, init RegistryInit) (*Registry, *types.Receipt, error) {
	if len(init.IDs) != len(init.JSONs) {
		return nil, nil, fmt.Errorf("deploy XRC-729: %d ids but %d documents; give one document per id", len(init.IDs), len(init.JSONs))
	}
	jsons := make([]string, len(init.JSONs))
	for i, j := range init.JSONs {
		jsons[i] = string(j)
	}
	ids := init.IDs
	if ids == nil {
		ids = []string{}
	}
	execs := init.Executors
	if execs == nil {
		execs = []common.Address{}
	}
	input := xrc729ABI.PackConstructor(ids, jsons, execs)
	r, err := s.Deploy(ctx, "deploy XRC-729", common.FromHex(xrc729.XRC729MetaData.Bin), input)
	if err != nil {
		return nil, r, err
	}
	return NewRegistry(r.ContractAddress, s.Backend), r, nil
}

// OSTCMeta is what the registry records about one stored orchestration.
type OSTCMeta struct {
	ID      string      `json:"id"`
	Hash    common.Hash `json:"hash"`
	Version uint64      `json:"version"`
	// UpdatedAt is the timestamp of the block of the last write.
	UpdatedAt time.Time `json:"updatedAt"`
}

// OSTCWrite is the outcome of setOSTC, read from its OSTCUpdated event.
type OSTCWrite struct {
	OSTCMeta
	Receipt *types.Receipt `json:"-"`
}

// OSTCDeletion is the outcome of deleteOSTC, read from OSTCDeletedIndexed.
type OSTCDeletion struct {
	ID              string         `json:"id"`
	PreviousHash    common.Hash    `json:"previousHash"`
	PreviousVersion uint64         `json:"previousVersion"`
	Receipt         *types.Receipt `json:"-"`
}

func (g *Registry) notFound(id string, err error) error {
	if ReasonOf(err) == ReasonNotFound {
		return fmt.Errorf("registry %s: id %q: %w (%w)", g.Address.Hex(), id, ErrNotFound, err)
	}
	return err
}

// Get returns the exact bytes stored under id; a missing id is ErrNotFound.
func (g *Registry) Get(ctx context.Context, id string) ([]byte, error) {
	s, err := bind.Call(g.bound, &bind.CallOpts{Context: ctx}, xrc729ABI.PackGetOSTC(id), xrc729ABI.UnpackGetOSTC)
	if err != nil {
		return nil, g.notFound(id, g.readErr("getOSTC", err))
	}
	return []byte(s), nil
}

// Meta returns hash, version and last write time of id; a missing id is
// ErrNotFound.
func (g *Registry) Meta(ctx context.Context, id string) (OSTCMeta, error) {
	m, err := bind.Call(g.bound, &bind.CallOpts{Context: ctx}, xrc729ABI.PackGetOSTCMeta(id), xrc729ABI.UnpackGetOSTCMeta)
	if err != nil {
		return OSTCMeta{}, g.notFound(id, g.readErr("getOSTCMeta", err))
	}
	return OSTCMeta{ID: id, Hash: m.Hash, Version: u64(m.Version), UpdatedAt: time.Unix(int64(m.UpdatedAt), 0).UTC()}, nil
}

// Snapshot reads the metadata and the text of id at one block (the current
// head), so the hash can be checked against the text even while writes land.
func (g *Registry) Snapshot(ctx context.Context, id string) (OSTCMeta, []byte, error) {
	head, err := g.backend.BlockNumber(ctx)
	if err != nil {
		return OSTCMeta{}, nil, fmt.Errorf("read block number: %w", err)
	}
	at := &bind.CallOpts{Context: ctx, BlockNumber: new(big.Int).SetUint64(head)}
	m, err := bind.Call(g.bound, at, xrc729ABI.PackGetOSTCMeta(id), xrc729ABI.UnpackGetOSTCMeta)
	if err != nil {
		return OSTCMeta{}, nil, g.notFound(id, g.readErr("getOSTCMeta", err))
	}
	text, err := bind.Call(g.bound, at, xrc729ABI.PackGetOSTC(id), xrc729ABI.UnpackGetOSTC)
	if err != nil {
		return OSTCMeta{}, nil, g.notFound(id, g.readErr("getOSTC", err))
	}
	return OSTCMeta{ID: id, Hash: m.Hash, Version: u64(m.Version), UpdatedAt: time.Unix(int64(m.UpdatedAt), 0).UTC()}, []byte(text), nil
}

// SnapshotAt reads the metadata and the text of id in the state of the block
// with the given hash (EIP-1898), so a reorg cannot mix two chains' answers.
func (g *Registry) SnapshotAt(ctx context.Context, id string, block common.Hash) (OSTCMeta, []byte, error) {
	at := &bind.CallOpts{Context: ctx, BlockHash: block}
	m, err := bind.Call(g.bound, at, xrc729ABI.PackGetOSTCMeta(id), xrc729ABI.UnpackGetOSTCMeta)
	if err != nil {
		return OSTCMeta{}, nil, g.notFound(id, g.readErr("getOSTCMeta", err))
	}
	text, err := bind.Call(g.bound, at, xrc729ABI.PackGetOSTC(id), xrc729ABI.UnpackGetOSTC)
	if err != nil {
		return OSTCMeta{}, nil, g.notFound(id, g.readErr("getOSTC", err))
	}
	return OSTCMeta{ID: id, Hash: m.Hash, Version: u64(m.Version), UpdatedAt: time.Unix(int64(m.UpdatedAt), 0).UTC()}, []byte(text), nil
}

// Has reports whether id is registered.
func (g *Registry) Has(ctx context.Context, id string) (bool, error) {
	ok, err := bind.Call(g.bound, &bind.CallOpts{Context: ctx}, xrc729ABI.PackHasOSTC(id), xrc729ABI.UnpackHasOSTC)
	return ok, g.readErr("hasOSTC", err)
}

// IDs lists every registered id in contract order.
func (g *Registry) IDs(ctx context.Context) ([]string, error) {
	ids, err := bind.Call(g.bound, &bind.CallOpts{Context: ctx}, xrc729ABI.PackGetAllOSTC(), xrc729ABI.UnpackGetAllOSTC)
	return ids, g.readErr("getAllOSTC", err)
}

// Name is the registry's nameXRC.
func (g *Registry) Name(ctx context.Context) (string, error) {
	s, err := bind.Call(g.bound, &bind.CallOpts{Context: ctx}, xrc729ABI.PackNameXRC(), xrc729ABI.UnpackNameXRC)
	return s, g.readErr("nameXRC", err)
}

// SchemaVersion is the registry's schemaVersion marker.
func (g *Registry) SchemaVersion(ctx context.Context) (string, error) {
	s, err := bind.Call(g.bound, &bind.CallOpts{Context: ctx}, xrc729ABI.PackSchemaVersion(), xrc729ABI.UnpackSchemaVersion)
	return s, g.readErr("schemaVersion", err)
}

// Put stores json under id (owner only) and reports what the registry
// recorded. The bytes are stored exactly as given.
func (g *Registry) Put(ctx context.Context, s *Sender, id string, json []byte) (OSTCWrite, error) {
	r, err := s.Transact(ctx, g.bound, "setOSTC", xrc729ABI.PackSetOSTC(id, string(json)))
	if err != nil {
		return OSTCWrite{Receipt: r}, err
	}
	ev := firstEvent(r, g.Address, xrc729ABI.UnpackOSTCUpdatedEvent)
	if ev == nil {
		return OSTCWrite{Receipt: r}, fmt.Errorf("setOSTC %q: transaction %s emitted no OSTCUpdated event (is %s an XRC-729 registry?)", id, r.TxHash.Hex(), g.Address.Hex())
	}
	return OSTCWrite{OSTCMeta: updatedMeta(ev), Receipt: r}, nil
}

// Delete removes id (owner only); a missing id is ErrNotFound.
func (g *Registry) Delete(ctx context.Context, s *Sender, id string) (OSTCDeletion, error) {
	r, err := s.Transact(ctx, g.bound, "deleteOSTC", xrc729ABI.PackDeleteOSTC(id))
	if err != nil {
		return OSTCDeletion{ID: id, Receipt: r}, g.notFound(id, err)
	}
	ev := firstEvent(r, g.Address, xrc729ABI.UnpackOSTCDeletedIndexedEvent)
	if ev == nil {
		return OSTCDeletion{ID: id, Receipt: r}, fmt.Errorf("deleteOSTC %q: transaction %s emitted no OSTCDeletedIndexed event (is %s an XRC-729 registry?)", id, r.TxHash.Hex(), g.Address.Hex())
	}
	return OSTCDeletion{ID: ev.Id, PreviousHash: ev.PreviousOstcHash, PreviousVersion: u64(ev.PreviousVersion), Receipt: r}, nil
}

// Updates decodes every OSTCUpdated event of this registry in a receipt
// (a deployment with initial documents has several).
func (g *Registry) Updates(r *types.Receipt) []OSTCMeta {
	var out []OSTCMeta
	for _, ev := range eventsIn(r, g.Address, xrc729ABI.UnpackOSTCUpdatedEvent) {
		out = append(out, updatedMeta(ev))
	}
	return out
}

func updatedMeta(ev *xrc729.XRC729OSTCUpdated) OSTCMeta {
	return OSTCMeta{ID: ev.Id, Hash: ev.OstcHash, Version: u64(ev.Version), UpdatedAt: time.Unix(int64(ev.UpdatedAt), 0).UTC()}
}

func (g *Registry) readErr(method string, err error) error {
	return readError(g.Address, method, err)
}

// readError explains a failed eth_call: a revert with its reason, a missing
// contract, or the node's error.
func readError(addr common.Address, method string, err error) error {
	if err == nil {
		return nil
	}
	if re, ok := AsRevert(method, err); ok {
		return re
	}
	if errors.Is(err, bind.ErrNoCode) {
		return fmt.Errorf("%s: %w at %s on this chain (wrong address or --rpc?)", method, ErrNoContract, addr.Hex())
	}
	return fmt.Errorf("%s at %s: %w", method, addr.Hex(), err)
}
