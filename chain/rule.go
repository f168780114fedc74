package chain

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/xgr-sidecar/xgr/contracts/xrc137"
)

// XRC-137 revert reasons, as the standard words them.
const (
	ReasonRuleNotOwner        = "not owner"
	ReasonRuleOwnerIsExecutor = "owner cannot be executor"
	ReasonRuleExpectedBlob    = "expected XGR1 blob"
	ReasonRuleMetaRequired    = "encrypted meta required: call setRuleAndEncrypted or setEncrypted first"
	ReasonRuleZeroOwner       = "zero addr"
)

var xrc137ABI = xrc137.NewXRC137()

// Rule is a client of one XRC-137 rule contract.
type Rule struct {
	access
	Address common.Address
	backend Backend
}

// NewRule returns a client of the rule contract at addr. It does not check
// that a contract is there; the first call does.
func NewRule(addr common.Address, b Backend) *Rule {
	a := xrc137ABI.GetABI()
	return &Rule{access: access{kind: "XRC-137", abi: &a, bound: xrc137ABI.Instance(b, addr)}, Address: addr, backend: b}
}

// RuleWrite is what the contract reports after a rule write (from its
// XRC137Deployed or XRC137Updated event).
type RuleWrite struct {
	Hash      common.Hash    `json:"hash"`
	Version   uint64         `json:"version"`
	Encrypted bool           `json:"encrypted"`
	Receipt   *types.Receipt `json:"-"`
}

// DeployRule deploys a new XRC-137 contract holding text as a plain rule,
// owned by the sender.
func DeployRule(ctx context.Context, s *Sender, text []byte) (*Rule, RuleWrite, error) {
	input := xrc137ABI.PackConstructor(string(text))
	r, err := s.Deploy(ctx, "deploy XRC-137", common.FromHex(xrc137.XRC137MetaData.Bin), input)
	if err != nil {
		return nil, RuleWrite{Receipt: r}, err
	}
	rule := NewRule(r.ContractAddress, s.Backend)
	ev := firstEvent(r, rule.Address, xrc137ABI.UnpackXRC137DeployedEvent)
	if ev == nil {
		return rule, RuleWrite{Receipt: r}, fmt.Errorf("deploy XRC-137: transaction %s emitted no XRC137Deployed event", r.TxHash.Hex())
	}
	return rule, RuleWrite{Hash: ev.RuleHash, Version: u64(ev.Version), Encrypted: ev.EncryptedState, Receipt: r}, nil
}

// Encryption is the rule's encryption header; a zero RID means plain text.
type Encryption struct {
	RID    common.Hash   `json:"rid"`
	Suite  string        `json:"suite"`
	EncDEK hexutil.Bytes `json:"encDEK"`
}

// RuleInfo is everything a rule contract exposes, read at one block.
type RuleInfo struct {
	Address       common.Address   `json:"address"`
	Block         uint64           `json:"block"`
	Owner         common.Address   `json:"owner"`
	Name          string           `json:"name"`
	SchemaVersion string           `json:"schemaVersion"`
	Text          string           `json:"rule"`
	Hash          common.Hash      `json:"hash"`
	Version       uint64           `json:"version"`
	Encrypted     bool             `json:"encrypted"`
	Encryption    Encryption       `json:"encryption"`
	Executors     []common.Address `json:"executors"`
}

// Info reads the whole contract state at the current head block, so the
// values belong together even while writes land.
func (r *Rule) Info(ctx context.Context) (RuleInfo, error) {
	head, err := r.backend.BlockNumber(ctx)
	if err != nil {
		return RuleInfo{}, fmt.Errorf("read block number: %w", err)
	}
	at := &bind.CallOpts{Context: ctx, BlockNumber: new(big.Int).SetUint64(head)}
	info := RuleInfo{Address: r.Address, Block: head}
	fail := func(method string, err error) (RuleInfo, error) {
		return RuleInfo{}, readError(r.Address, method, err)
	}
	if info.Text, err = bind.Call(r.bound, at, xrc137ABI.PackGetRule(), xrc137ABI.UnpackGetRule); err != nil {
		return fail("getRule", err)
	}
	h, err := bind.Call(r.bound, at, xrc137ABI.PackRuleHash(), xrc137ABI.UnpackRuleHash)
	if err != nil {
		return fail("ruleHash", err)
	}
	info.Hash = h
	v, err := bind.Call(r.bound, at, xrc137ABI.PackRuleVersion(), xrc137ABI.UnpackRuleVersion)
	if err != nil {
		return fail("ruleVersion", err)
	}
	info.Version = u64(v)
	if info.Owner, err = bind.Call(r.bound, at, xrc137ABI.PackOwner(), xrc137ABI.UnpackOwner); err != nil {
		return fail("owner", err)
	}
	if info.Name, err = bind.Call(r.bound, at, xrc137ABI.PackNameXRC(), xrc137ABI.UnpackNameXRC); err != nil {
		return fail("nameXRC", err)
	}
	if info.SchemaVersion, err = bind.Call(r.bound, at, xrc137ABI.PackSchemaVersion(), xrc137ABI.UnpackSchemaVersion); err != nil {
		return fail("schemaVersion", err)
	}
	if info.Encrypted, err = bind.Call(r.bound, at, xrc137ABI.PackIsEncrypted(), xrc137ABI.UnpackIsEncrypted); err != nil {
		return fail("isEncrypted", err)
	}
	enc, err := bind.Call(r.bound, at, xrc137ABI.PackEncrypted(), xrc137ABI.UnpackEncrypted)
	if err != nil {
		return fail("encrypted", err)
	}
	info.Encryption = Encryption{RID: enc.Rid, Suite: enc.Suite, EncDEK: enc.EncDEK}
	if info.Executors, err = bind.Call(r.bound, at, xrc137ABI.PackGetExecutorList(), xrc137ABI.UnpackGetExecutorList); err != nil {
		return fail("getExecutorList", err)
	}
	return info, nil
}

// Encryption reads the rule's encryption header alone (encrypted()): the
// rid and suite of the stored envelope and the data key wrapped with it.
func (r *Rule) Encryption(ctx context.Context) (Encryption, error) {
	enc, err := bind.Call(r.bound, &bind.CallOpts{Context: ctx}, xrc137ABI.PackEncrypted(), xrc137ABI.UnpackEncrypted)
	if err != nil {
		return Encryption{}, readError(r.Address, "encrypted", err)
	}
	return Encryption{RID: enc.Rid, Suite: enc.Suite, EncDEK: enc.EncDEK}, nil
}

// Update replaces the rule text (owner only). Plain text clears the
// encryption header; an "XGR1." envelope is refused unless a header is set.
func (r *Rule) Update(ctx context.Context, s *Sender, text []byte) (RuleWrite, error) {
	rc, err := s.Transact(ctx, r.bound, "updateRule", xrc137ABI.PackUpdateRule(string(text)))
	return r.written(rc, "updateRule", err)
}

// SetEncrypted writes an "XGR1." envelope together with its encryption
// header (owner only). A zero rid writes text as plain and clears the header.
func (r *Rule) SetEncrypted(ctx context.Context, s *Sender, text []byte, enc Encryption) (RuleWrite, error) {
	rc, err := s.Transact(ctx, r.bound, "setRuleAndEncrypted", xrc137ABI.PackSetRuleAndEncrypted(string(text), enc.RID, enc.Suite, enc.EncDEK))
	return r.written(rc, "setRuleAndEncrypted", err)
}

func (r *Rule) written(rc *types.Receipt, op string, err error) (RuleWrite, error) {
	if err != nil {
		return RuleWrite{Receipt: rc}, err
	}
	ev := firstEvent(rc, r.Address, xrc137ABI.UnpackXRC137UpdatedEvent)
	if ev == nil {
		return RuleWrite{Receipt: rc}, fmt.Errorf("%s: transaction %s emitted no XRC137Updated event (is %s an XRC-137 contract?)", op, rc.TxHash.Hex(), r.Address.Hex())
	}
	return RuleWrite{Hash: ev.RuleHash, Version: u64(ev.Version), Encrypted: ev.EncryptedState, Receipt: rc}, nil
}

// StoredRule is what a rule executor needs from the contract: the rule
// string exactly as stored, the hash the contract recorded for it and
// whether it is encrypted, all read at Block.
type StoredRule struct {
	Text      string
	Hash      common.Hash
	Encrypted bool
	Block     uint64
}

// Stored reads ruleJson, ruleHash and isEncrypted at the current head
// block, so the three belong together even while writes land. It does not
// check the hash; the caller decides what a mismatch means.
func (r *Rule) Stored(ctx context.Context) (StoredRule, error) {
	head, err := r.backend.BlockNumber(ctx)
	if err != nil {
		return StoredRule{}, fmt.Errorf("read block number: %w", err)
	}
	at := &bind.CallOpts{Context: ctx, BlockNumber: new(big.Int).SetUint64(head)}
	s := StoredRule{Block: head}
	if s.Text, err = bind.Call(r.bound, at, xrc137ABI.PackRuleJson(), xrc137ABI.UnpackRuleJson); err != nil {
		return StoredRule{}, readError(r.Address, "ruleJson", err)
	}
	if s.Hash, err = bind.Call(r.bound, at, xrc137ABI.PackRuleHash(), xrc137ABI.UnpackRuleHash); err != nil {
		return StoredRule{}, readError(r.Address, "ruleHash", err)
	}
	if s.Encrypted, err = bind.Call(r.bound, at, xrc137ABI.PackIsEncrypted(), xrc137ABI.UnpackIsEncrypted); err != nil {
		return StoredRule{}, readError(r.Address, "isEncrypted", err)
	}
	return s, nil
}

// StoredAt reads ruleJson, ruleHash and isEncrypted in the state of the
// block with the given hash (EIP-1898), as the indexer does at a log's block.
func (r *Rule) StoredAt(ctx context.Context, block common.Hash) (StoredRule, error) {
	at := &bind.CallOpts{Context: ctx, BlockHash: block}
	var s StoredRule
	var err error
	if s.Text, err = bind.Call(r.bound, at, xrc137ABI.PackRuleJson(), xrc137ABI.UnpackRuleJson); err != nil {
		return StoredRule{}, readError(r.Address, "ruleJson", err)
	}
	if s.Hash, err = bind.Call(r.bound, at, xrc137ABI.PackRuleHash(), xrc137ABI.UnpackRuleHash); err != nil {
		return StoredRule{}, readError(r.Address, "ruleHash", err)
	}
	if s.Encrypted, err = bind.Call(r.bound, at, xrc137ABI.PackIsEncrypted(), xrc137ABI.UnpackIsEncrypted); err != nil {
		return StoredRule{}, readError(r.Address, "isEncrypted", err)
	}
	return s, nil
}

// Hash reads ruleHash at the latest block: one eth_call, enough to tell
// whether a cached document is still the contract's rule.
func (r *Rule) Hash(ctx context.Context) (common.Hash, error) {
	h, err := bind.Call(r.bound, &bind.CallOpts{Context: ctx}, xrc137ABI.PackRuleHash(), xrc137ABI.UnpackRuleHash)
	if err != nil {
		return common.Hash{}, readError(r.Address, "ruleHash", err)
	}
	return h, nil
}
