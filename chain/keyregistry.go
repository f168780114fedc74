package chain

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/xgr-sidecar/xgr/contracts/xrc563"
)

// XRC-563 revert reasons.
const (
	ReasonReadKeyLength = "readPub: invalid length"
	ReasonReadKeyPrefix = "readPub: invalid prefix"
)

var xrc563ABI = xrc563.NewXRC563()

// KeyRegistry is a client of an XRC-563 read-key registry: the P-256
// public keys accounts publish so that others can wrap data keys for them.
type KeyRegistry struct {
	Address common.Address
	bound   *bind.BoundContract
}

// NewKeyRegistry returns a client of the registry at addr. It does not
// check that a contract is there; the first call does.
func NewKeyRegistry(addr common.Address, b Backend) *KeyRegistry {
	return &KeyRegistry{Address: addr, bound: xrc563ABI.Instance(b, addr)}
}

// DeployKeyRegistry deploys a new XRC-563 registry.
func DeployKeyRegistry(ctx context.Context, s *Sender) (*KeyRegistry, *types.Receipt, error) {
	r, err := s.Deploy(ctx, "deploy XRC-563", common.FromHex(xrc563.XRC563MetaData.Bin), nil)
	if err != nil {
		return nil, r, err
	}
	return NewKeyRegistry(r.ContractAddress, s.Backend), r, nil
}

// ReadKey is the key owner published (SEC1 bytes), empty when none.
func (k *KeyRegistry) ReadKey(ctx context.Context, owner common.Address) ([]byte, error) {
	out, err := bind.Call(k.bound, &bind.CallOpts{Context: ctx}, xrc563ABI.PackGetReadKey(owner), xrc563ABI.UnpackGetReadKey)
	if err != nil {
		return nil, readError(k.Address, "getReadKey", err)
	}
	return out, nil
}

// Register publishes (or replaces) the sender's read public key.
func (k *KeyRegistry) Register(ctx context.Context, s *Sender, pub []byte) (*types.Receipt, error) {
	r, err := s.Transact(ctx, k.bound, "registerReadKey", xrc563ABI.PackRegisterReadKey(pub))
	if err != nil {
		return r, err
	}
	if ev := firstEvent(r, k.Address, xrc563ABI.UnpackReadKeyRegisteredEvent); ev == nil {
		return r, fmt.Errorf("registerReadKey: transaction %s emitted no ReadKeyRegistered event (is %s an XRC-563 registry?)", r.TxHash.Hex(), k.Address.Hex())
	}
	return r, nil
}

// Clear removes the sender's read public key.
func (k *KeyRegistry) Clear(ctx context.Context, s *Sender) (*types.Receipt, error) {
	r, err := s.Transact(ctx, k.bound, "clearReadKey", xrc563ABI.PackClearReadKey())
	if err != nil {
		return r, err
	}
	if ev := firstEvent(r, k.Address, xrc563ABI.UnpackReadKeyClearedEvent); ev == nil {
		return r, fmt.Errorf("clearReadKey: transaction %s emitted no ReadKeyCleared event (is %s an XRC-563 registry?)", r.TxHash.Hex(), k.Address.Hex())
	}
	return r, nil
}
