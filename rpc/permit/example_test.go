package permit_test

import (
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/rpc/permit"
)

// A runner signs a ControlPermit that wakes the processes of root session 7
// waiting on step E1; the gateway verifies it against its chain, its
// control-domain contract and its clock.
func Example() {
	key, _ := crypto.ToECDSA(crypto.Keccak256([]byte("example runner key")))
	chainID := big.NewInt(1879)
	control := common.HexToAddress("0x00000000000000000000000000000000000000A7")
	now := time.Unix(1_760_000_000, 0)

	envelope, err := permit.SignControl(key, chainID, control, permit.ControlMsg{
		SessionID: big.NewInt(7),
		Action:    permit.ActionWake,
		StepID:    "E1",
		Expiry:    big.NewInt(now.Add(5 * time.Minute).Unix()),
	}, false)
	if err != nil {
		panic(err)
	}

	v, err := permit.Verify(envelope, permit.Expect{
		ChainID:         chainID,
		ControlContract: control,
		Now:             now,
		Skew:            30 * time.Second,
		Kinds:           []permit.Kind{permit.KindControl, permit.KindControlV2},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(v.Kind, v.Control.Action, "session", v.SessionID, "step", v.Control.StepID)
	fmt.Println("signer", v.Signer.Hex() == crypto.PubkeyToAddress(key.PublicKey).Hex())

	// Ten minutes later the same permit has expired.
	_, err = permit.Verify(envelope, permit.Expect{ChainID: chainID, ControlContract: control, Now: now.Add(10 * time.Minute)})
	fmt.Println(permit.CodeOf(err))
	// Output:
	// ControlPermit wake session 7 step E1
	// signer true
	// expired
}

// The payloadHash of a bound permit is keccak256 of the payload's
// canonical text: what JSON.stringify writes, with numbers kept exact. A
// reformatted or re-escaped payload has the same hash.
func ExamplePayloadHash() {
	sent := []byte(`{
  "order": "walkthrough-1",
  "note": "caf\u00e9 <b>",
  "amount": 18446744073709551617
}`)
	canon, _ := permit.CanonicalPayload(sent)
	h, _ := permit.PayloadHash(sent)
	fmt.Println(string(canon))
	fmt.Println(h.Hex())
	empty, _ := permit.PayloadHash(nil)
	fmt.Println(empty == crypto.Keccak256Hash([]byte("{}")))
	// Output:
	// {"order":"walkthrough-1","note":"café <b>","amount":18446744073709551617}
	// 0x854035d3f338bb624a156b64206bd723d83980e223578789abc00acf8afce366
	// true
}

// A GrantPermit signs the RID, the scope and EntriesHash of an
// xgr_manageGrants request: here the worked example of docs/rpc.md, the
// owner (the dev chain's account 0) granting account 1 READ on a log
// bundle of session 9. Used with any other entry, RID or scope it is
// refused.
func ExampleEntriesHash() {
	key, _ := crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	chainID := big.NewInt(1337)
	rid := common.HexToHash("0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a")
	entries := []permit.GrantEntry{{Grantee: common.HexToAddress("0x70997970c51812dc3a010c7d01b50e0d17dc79c8"), Rights: 1, ExpireAt: 1767225600}}
	h := permit.EntriesHash(entries, permit.GrantRefs{SessionID: 9})
	fmt.Println("entriesHash", h.Hex())

	env, err := permit.SignGrant(key, chainID, permit.GrantMsg{RID: rid, Scope: 2, EntriesHash: h, Expiry: big.NewInt(1767225600)})
	if err != nil {
		panic(err)
	}
	want := permit.Expect{ChainID: chainID, Now: time.Unix(1767225300, 0), Kinds: []permit.Kind{permit.KindGrant, permit.KindXdala}, RequireBound: true,
		Request: &permit.Request{RID: rid, Scope: 2, EntriesHash: h}}
	v, err := permit.Verify(env, want)
	if err != nil {
		panic(err)
	}
	fmt.Println(v.Kind, v.Signer.Hex(), "digest", v.Digest.Hex())

	// The same permit with the relay as grantee.
	want.Request.EntriesHash = permit.EntriesHash([]permit.GrantEntry{{Grantee: common.HexToAddress("0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc"), Rights: 5, ExpireAt: 1767225600}},
		permit.GrantRefs{SessionID: 9})
	_, err = permit.Verify(env, want)
	fmt.Println(permit.CodeOf(err))
	// Output:
	// entriesHash 0x35f9c0cfd4fc43988f4910625ed3764e7b31a89a5446c712892ebf549fc1a773
	// GrantPermit 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 digest 0x98a288291a689f80d8f54b836ba25f4f2549281522ef77df1b5c57da2654db5e
	// request-mismatch
}
