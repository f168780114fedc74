package chain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
)

// DefaultPoll is how often a Sender asks the node for a receipt or a new
// block while it waits.
const DefaultPoll = 250 * time.Millisecond

// GasMarginPercent is added to the node's gas estimate. An estimate is exact
// only for the state and block it ran on; the block a transaction lands in
// may differ (the XRC-729 registry stores block.timestamp, and re-storing the
// same value is cheaper than storing a new one). Unused gas is not charged.
const GasMarginPercent = 20

// Sender signs transactions with one key, sends them and waits until each is
// mined and has the wanted number of confirmations.
type Sender struct {
	Backend Backend
	// Auth signs; its From is the sending account.
	Auth *bind.TransactOpts
	// Confirmations is how many blocks must hold or follow the transaction's
	// block before it counts as done: 1 is "mined". 0 is taken as 1.
	Confirmations uint64
	// Poll is the wait between checks; 0 means DefaultPoll.
	Poll time.Duration
	// Progress, when set, is told what a mined transaction still waits for
	// ("mined in block 7; waiting for 2 more blocks"), once per change.
	Progress func(msg string)
}

// NewSender returns a sender for key on the backend's chain (its chain id is
// read from the node, so transactions cannot be replayed on another chain).
func NewSender(ctx context.Context, b Backend, key *ecdsa.PrivateKey, confirmations uint64) (*Sender, error) {
	id, err := b.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("read chain id: %w", err)
	}
	return &Sender{Backend: b, Auth: bind.NewKeyedTransactor(key, id), Confirmations: confirmations}, nil
}

// From is the sending account.
func (s *Sender) From() common.Address { return s.Auth.From }

// opts are the signer's options with a gas limit of the node's estimate
// plus GasMarginPercent (unless Auth fixes a limit). A call that would
// revert fails here, with the contract's reason, before anything is sent.
func (s *Sender) opts(ctx context.Context, op string, to *common.Address, data []byte) (*bind.TransactOpts, error) {
	o := *s.Auth
	o.Context = ctx
	if o.GasLimit == 0 {
		est, err := s.Backend.EstimateGas(ctx, ethereum.CallMsg{From: o.From, To: to, Value: o.Value, Data: data})
		if err != nil {
			if re, ok := AsRevert(op, err); ok {
				return nil, re
			}
			return nil, fmt.Errorf("%s: estimate gas: %w", op, err)
		}
		o.GasLimit = est + est*GasMarginPercent/100
	}
	return &o, nil
}

// ErrNoContract is returned (wrapped) for an address without code.
var ErrNoContract = errors.New("no contract")

// Transact sends calldata to a contract and waits for it (see Wait). An
// address without code is refused (ErrNoContract) before anything is sent;
// a call that would revert returns a *RevertError naming op, with the
// contract's reason, also before anything is sent.
func (s *Sender) Transact(ctx context.Context, c *bind.BoundContract, op string, calldata []byte) (*types.Receipt, error) {
	to := c.Address()
	code, err := s.Backend.PendingCodeAt(ctx, to)
	if err != nil {
		return nil, fmt.Errorf("%s: read code at %s: %w", op, to.Hex(), err)
	}
	if len(code) == 0 {
		return nil, fmt.Errorf("%s: %w at %s on this chain (wrong address or --rpc?)", op, ErrNoContract, to.Hex())
	}
	opts, err := s.opts(ctx, op, &to, calldata)
	if err != nil {
		return nil, err
	}
	tx, err := c.RawTransact(opts, calldata)
	if err != nil {
		if re, ok := AsRevert(op, err); ok {
			return nil, re
		}
		return nil, fmt.Errorf("%s: send transaction: %w", op, err)
	}
	return s.Wait(ctx, op, tx)
}

// Deploy sends a contract creation (bytecode followed by the packed
// constructor arguments) and waits for it. The receipt's ContractAddress is
// the new contract.
func (s *Sender) Deploy(ctx context.Context, op string, bytecode, constructorInput []byte) (*types.Receipt, error) {
	opts, err := s.opts(ctx, op, nil, append(append([]byte{}, bytecode...), constructorInput...))
	if err != nil {
		return nil, err
	}
	_, tx, err := bind.DeployContract(opts, bytecode, s.Backend, constructorInput)
	if err != nil {
		if re, ok := AsRevert(op, err); ok {
			return nil, re
		}
		return nil, fmt.Errorf("%s: send deployment: %w", op, err)
	}
	return s.Wait(ctx, op, tx)
}

// Wait polls until tx is in a block and the chain head is Confirmations-1
// blocks past it, re-reading the receipt each time so a reorganisation that
// moves or drops the transaction is noticed. A mined but failed transaction
// returns its receipt and a *RevertError whose reason is found by replaying
// the transaction as a call on the state before its block.
//
// On a node that mines only on demand (see MinesOnDemand) the blocks that
// more than one confirmation needs come only with other transactions.
func (s *Sender) Wait(ctx context.Context, op string, tx *types.Transaction) (*types.Receipt, error) {
	confirmations := max(s.Confirmations, 1)
	poll := s.Poll
	if poll <= 0 {
		poll = DefaultPoll
	}
	var minedIn, have uint64 // the block holding tx and its confirmations, once seen
	gaveUp := func() error {
		if minedIn > 0 {
			return fmt.Errorf("%s: %s is mined in block %d but has %d of %d confirmations; gave up waiting for %d more block(s): %w",
				op, tx.Hash().Hex(), minedIn, have, confirmations, confirmations-have, ctx.Err())
		}
		return fmt.Errorf("%s: gave up waiting for %s to be mined (%d confirmations wanted): %w", op, tx.Hash().Hex(), confirmations, ctx.Err())
	}
	said := ""
	progress := func(msg string) {
		if s.Progress != nil && msg != said {
			said = msg
			s.Progress(msg)
		}
	}
	for {
		r, err := s.Backend.TransactionReceipt(ctx, tx.Hash())
		switch {
		case ctx.Err() != nil:
			return nil, gaveUp()
		case err == nil:
			head, err := s.Backend.BlockNumber(ctx)
			if ctx.Err() != nil {
				return nil, gaveUp()
			}
			if err != nil {
				return nil, fmt.Errorf("%s: read block number: %w", op, err)
			}
			if head+1 >= r.BlockNumber.Uint64()+confirmations {
				if r.Status != types.ReceiptStatusSuccessful {
					return r, s.failure(ctx, op, tx, r)
				}
				return r, nil
			}
			minedIn, have = r.BlockNumber.Uint64(), head+1-min(head+1, r.BlockNumber.Uint64())
			more := confirmations - have
			progress(fmt.Sprintf("%s: mined in block %d; waiting for %d more block(s) for %d confirmations", op, minedIn, more, confirmations))
		case errors.Is(err, ethereum.NotFound):
		default:
			return nil, fmt.Errorf("%s: read receipt of %s: %w", op, tx.Hash().Hex(), err)
		}
		select {
		case <-ctx.Done():
			return nil, gaveUp()
		case <-time.After(poll):
		}
	}
}

// MinesOnDemand tells whether the node adds blocks only when transactions
// arrive: anvil or hardhat with automine on (anvil_getAutomine,
// hardhat_getAutomine). It returns how it found out ("" when the node does
// not say or mines on its own).
func MinesOnDemand(ctx context.Context, b any) string {
	rc, ok := b.(interface{ Client() *rpc.Client })
	if !ok || rc.Client() == nil {
		return ""
	}
	for _, method := range []string{"anvil_getAutomine", "hardhat_getAutomine"} {
		var on bool
		if err := rc.Client().CallContext(ctx, &on, method); err == nil {
			if on {
				return method + " is true"
			}
			return ""
		}
	}
	return ""
}

// failure explains a failed receipt by replaying the transaction.
func (s *Sender) failure(ctx context.Context, op string, tx *types.Transaction, r *types.Receipt) error {
	msg := ethereum.CallMsg{
		From:  s.From(),
		To:    tx.To(),
		Gas:   tx.Gas(),
		Value: tx.Value(),
		Data:  tx.Data(),
	}
	at := new(big.Int).Sub(r.BlockNumber, big.NewInt(1))
	_, err := s.Backend.CallContract(ctx, msg, at)
	where := fmt.Sprintf("%s (transaction %s in block %d)", op, tx.Hash().Hex(), r.BlockNumber.Uint64())
	if re, ok := AsRevert(where, err); ok {
		return re
	}
	return &RevertError{Op: where, Err: err}
}
