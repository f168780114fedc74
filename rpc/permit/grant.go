package permit

import (
	"crypto/ecdsa"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// GrantEntry is one entry of an xgr_manageGrants request as EntriesHash
// encodes it.
type GrantEntry struct {
	// Grantee is the entry's grantee.
	Grantee common.Address
	// Rights is the rights bitmask (0 revokes).
	Rights uint8
	// ExpireAt is the grant's expiry in unix seconds.
	ExpireAt uint64
	// EncDEK is the grantee's wrapped data key exactly as sent ("" if none).
	EncDEK string
	// IsOwner is the entry's owner flag.
	IsOwner bool
}

// GrantRefs are the references an xgr_manageGrants request records with
// the grants it writes; zero values stand for absent ones.
type GrantRefs struct {
	// RefAddr is the rule contract (zero: none).
	RefAddr common.Address
	// SessionID is the session id (0: none).
	SessionID uint64
	// TxHash is the transaction hash (zero: none).
	TxHash common.Hash
}

// grantEntriesArgs is the ABI signature EntriesHash encodes:
// (tuple(address grantee, uint8 rights, uint64 expireAt, string encDEK,
// bool isOwner)[] entries, address refAddr, uint256 sessionId, bytes32 txHash).
var grantEntriesArgs = func() abi.Arguments {
	mustType := func(t string, comps []abi.ArgumentMarshaling) abi.Type {
		typ, err := abi.NewType(t, "", comps)
		if err != nil {
			panic(err)
		}
		return typ
	}
	entries := mustType("tuple[]", []abi.ArgumentMarshaling{
		{Name: "grantee", Type: "address"},
		{Name: "rights", Type: "uint8"},
		{Name: "expireAt", Type: "uint64"},
		{Name: "encDEK", Type: "string"},
		{Name: "isOwner", Type: "bool"},
	})
	return abi.Arguments{
		{Name: "entries", Type: entries},
		{Name: "refAddr", Type: mustType("address", nil)},
		{Name: "sessionId", Type: mustType("uint256", nil)},
		{Name: "txHash", Type: mustType("bytes32", nil)},
	}
}()

// abiGrantEntry is GrantEntry in the shape go-ethereum's ABI packer maps
// onto the tuple (field names are the components' in CamelCase).
type abiGrantEntry struct {
	Grantee  common.Address
	Rights   uint8
	ExpireAt uint64
	EncDEK   string
	IsOwner  bool
}

// EntriesHash is the entriesHash a GrantPermit signs for an
// xgr_manageGrants request: keccak256 of the Solidity ABI encoding
// (abi.encode, not packed) of
//
//	(tuple(address grantee, uint8 rights, uint64 expireAt, string encDEK, bool isOwner)[] entries,
//	 address refAddr, uint256 sessionId, bytes32 txHash)
//
// with the entries in the order of the request (each member as sent; an
// absent encDEK is "", an absent isOwner false) and the references zero
// when the request has none. In ethers v6:
//
//	keccak256(AbiCoder.defaultAbiCoder().encode(
//	  ["tuple(address grantee,uint8 rights,uint64 expireAt,string encDEK,bool isOwner)[]", "address", "uint256", "bytes32"],
//	  [entries.map(e => [e.grantee, e.rights, e.expireAt, e.encDEK ?? "", e.isOwner ?? false]),
//	   refAddr ?? ZeroAddress, sessionId ?? 0, txHash ?? ZeroHash]))
func EntriesHash(entries []GrantEntry, refs GrantRefs) common.Hash {
	es := make([]abiGrantEntry, len(entries))
	for i, e := range entries {
		es[i] = abiGrantEntry(e)
	}
	enc, err := grantEntriesArgs.Pack(es, refs.RefAddr, new(big.Int).SetUint64(refs.SessionID), [32]byte(refs.TxHash))
	if err != nil {
		// The values are typed as the ABI signature wants them: packing
		// cannot fail.
		panic(fmt.Sprintf("permit: EntriesHash: %v", err))
	}
	return crypto.Keccak256Hash(enc)
}

// SignGrant signs a GrantPermit for chainID with key and returns the
// envelope JSON: an xdalaPermit that also signs m.RID, m.Scope (1 or 2) and
// m.EntriesHash (EntriesHash of the request's entries and references), so
// that it authorizes only that xgr_manageGrants request. The domain is the
// xdalaPermit's. m.From as in SignSession.
func SignGrant(key *ecdsa.PrivateKey, chainID *big.Int, m GrantMsg) ([]byte, error) {
	from, err := signerOf(key, m.From)
	if err != nil {
		return nil, err
	}
	if err := notNil("GrantMsg", map[string]*big.Int{"Expiry": m.Expiry}); err != nil {
		return nil, err
	}
	msg := object{{"from", lowerHex(from)}, {"rid", hexutil.Encode(m.RID[:])}, {"scope", fmt.Sprint(m.Scope)},
		{"entriesHash", hexutil.Encode(m.EntriesHash[:])}, {"expiry", m.Expiry.String()}}
	return signEnvelope(key, KindGrant, grantFields, XdalaDomainName, XdalaDomainVersion, chainID, nil, msg)
}
