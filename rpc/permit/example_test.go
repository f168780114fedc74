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
