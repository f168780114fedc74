package permit

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// SignSession signs a SessionPermit for chainID with key and returns the
// envelope JSON, as an eth_signTypedData_v4 client sends it. m.From may be
// left zero (it becomes the key's address); otherwise it must be that
// address. The message is checked as Verify would check it (but not its
// expiry): a permit Verify would refuse is not signed.
func SignSession(key *ecdsa.PrivateKey, chainID *big.Int, m SessionMsg) ([]byte, error) {
	return signSession(key, chainID, m, false)
}

// SignSessionV2 signs a SessionPermitV2 for chainID with key: a
// SessionPermit that also signs m.Registry (the XRC-729 registry),
// m.StartStep and m.PayloadHash (PayloadHash of the start payload the
// request will carry), so that it starts only that request. m.From as in
// SignSession.
func SignSessionV2(key *ecdsa.PrivateKey, chainID *big.Int, m SessionMsg) ([]byte, error) {
	return signSession(key, chainID, m, true)
}

// signSession signs a SessionPermit, or with bound a SessionPermitV2,
// members in the order of their type.
func signSession(key *ecdsa.PrivateKey, chainID *big.Int, m SessionMsg, bound bool) ([]byte, error) {
	from, err := signerOf(key, m.From)
	if err != nil {
		return nil, err
	}
	if err := notNil("SessionMsg", map[string]*big.Int{"SessionID": m.SessionID, "MaxTotalGas": m.MaxTotalGas, "Expiry": m.Expiry}); err != nil {
		return nil, err
	}
	kind, fields := KindSession, sessionFields
	msg := object{{"from", lowerHex(from)}}
	if bound {
		kind, fields = KindSessionV2, sessionV2Fields
		msg = append(msg, member{"registry", lowerHex(m.Registry)})
	}
	msg = append(msg, member{"ostcId", m.OstcID}, member{"ostcHash", hexutil.Encode(m.OstcHash[:])})
	if bound {
		msg = append(msg, member{"startStep", m.StartStep}, member{"payloadHash", hexutil.Encode(m.PayloadHash[:])})
	}
	msg = append(msg, member{"sessionId", m.SessionID.String()}, member{"maxTotalGas", m.MaxTotalGas.String()},
		member{"expiry", m.Expiry.String()})
	return signEnvelope(key, kind, fields, SessionDomainName, SessionDomainVersion, chainID, nil, msg)
}

// SignControl signs a control permit for chainID and the control-domain
// contract with key and returns the envelope JSON. With v2 it is a
// ControlPermitV2 naming m.Runner (zero Runner means the signer itself);
// without, a ControlPermit with stepId (the endpoint reference's form),
// whose runner is the signer, so m.Runner must be zero or m.From. The
// domain is ControlDomainName, version ControlDomainVersion. m.Pid and
// m.PayloadHash must be empty (only a ControlPermitV3 signs them).
func SignControl(key *ecdsa.PrivateKey, chainID *big.Int, contract common.Address, m ControlMsg, v2 bool) ([]byte, error) {
	return signControl(key, chainID, contract, m, controlKind(v2))
}

// SignControlV3 signs a ControlPermitV3: a ControlPermitV2 (m.Runner zero
// means the signer) that also signs m.Pid (the processId of a pid-mode
// wake, "" in step mode) and m.PayloadHash (PayloadHash of the wake
// payload the request will carry), so that it wakes only with that request.
func SignControlV3(key *ecdsa.PrivateKey, chainID *big.Int, contract common.Address, m ControlMsg) ([]byte, error) {
	return signControl(key, chainID, contract, m, KindControlV3)
}

func controlKind(v2 bool) Kind {
	if v2 {
		return KindControlV2
	}
	return KindControl
}

func signControl(key *ecdsa.PrivateKey, chainID *big.Int, contract common.Address, m ControlMsg, kind Kind) ([]byte, error) {
	from, err := signerOf(key, m.From)
	if err != nil {
		return nil, err
	}
	m.From = from
	fields, msg, err := controlMessage(contract, m, kind)
	if err != nil {
		return nil, err
	}
	return signEnvelope(key, kind, fields, ControlDomainName, ControlDomainVersion, chainID, &contract, msg)
}

// ControlTypedData returns the typed data of a control permit as
// SignControl builds it, without a signature: the {domain, types,
// primaryType, message} object a wallet's eth_signTypedData_v4 signs (m.From
// is the account that will sign; it must not be zero). The permit is that
// object with a "signature" member added. The message is checked as Verify
// would check it (but not its expiry or signer).
func ControlTypedData(chainID *big.Int, contract common.Address, m ControlMsg, v2 bool) ([]byte, error) {
	return controlTypedData(chainID, contract, m, controlKind(v2))
}

// ControlTypedDataV3 is ControlTypedData for a ControlPermitV3 (see
// SignControlV3): what a wallet signs to wake with exactly one request.
func ControlTypedDataV3(chainID *big.Int, contract common.Address, m ControlMsg) ([]byte, error) {
	return controlTypedData(chainID, contract, m, KindControlV3)
}

func controlTypedData(chainID *big.Int, contract common.Address, m ControlMsg, kind Kind) ([]byte, error) {
	if m.From == (common.Address{}) {
		return nil, errors.New("permit: ControlTypedData needs the signing account in m.From")
	}
	fields, msg, err := controlMessage(contract, m, kind)
	if err != nil {
		return nil, err
	}
	env, _, err := envelope(kind, fields, ControlDomainName, ControlDomainVersion, chainID, &contract, msg)
	if err != nil {
		return nil, err
	}
	return json.Marshal(env)
}

// controlMessage is the type and message of a control permit of kind
// signed by m.From.
func controlMessage(contract common.Address, m ControlMsg, kind Kind) ([]field, object, error) {
	if err := notNil("ControlMsg", map[string]*big.Int{"SessionID": m.SessionID, "Expiry": m.Expiry}); err != nil {
		return nil, nil, err
	}
	if contract == (common.Address{}) {
		return nil, nil, errors.New("permit: a control permit needs the control-domain contract address (xgr_getCoreAddrs precompile)")
	}
	if kind != KindControlV3 && (m.Pid != "" || m.PayloadHash != (common.Hash{})) {
		return nil, nil, fmt.Errorf("permit: a %s cannot sign a pid or payload hash; sign a ControlPermitV3", kind)
	}
	from, runner := m.From, m.Runner
	if runner == (common.Address{}) {
		runner = from
	}
	fields := variants[kind][0]
	msg := object{{"from", lowerHex(from)}}
	if kind == KindControl {
		if runner != from {
			return nil, nil, fmt.Errorf("permit: a ControlPermit's runner is its signer %s; to act for runner %s sign a ControlPermitV2 (v2 = true) or ControlPermitV3", from.Hex(), runner.Hex())
		}
	} else {
		msg = append(msg, member{"runner", lowerHex(runner)})
	}
	msg = append(msg,
		member{"sessionId", m.SessionID.String()},
		member{"action", string(m.Action)},
		member{"stepId", m.StepID},
	)
	if kind == KindControlV3 {
		msg = append(msg, member{"pid", m.Pid}, member{"payloadHash", hexutil.Encode(m.PayloadHash[:])})
	}
	msg = append(msg, member{"expiry", m.Expiry.String()})
	return fields, msg, nil
}

// SignXdala signs an xdalaPermit in the pinned domain (XdalaDomainName,
// XdalaDomainVersion, chainID) with key and returns the envelope JSON.
func SignXdala(key *ecdsa.PrivateKey, chainID *big.Int, m XdalaMsg) ([]byte, error) {
	from, err := signerOf(key, m.From)
	if err != nil {
		return nil, err
	}
	if err := notNil("XdalaMsg", map[string]*big.Int{"Expiry": m.Expiry}); err != nil {
		return nil, err
	}
	msg := object{{"from", lowerHex(from)}, {"expiry", m.Expiry.String()}}
	return signEnvelope(key, KindXdala, xdalaFields, XdalaDomainName, XdalaDomainVersion, chainID, nil, msg)
}

func signerOf(key *ecdsa.PrivateKey, from common.Address) (common.Address, error) {
	if key == nil {
		return common.Address{}, errors.New("permit: no signing key")
	}
	addr := crypto.PubkeyToAddress(key.PublicKey)
	if from != (common.Address{}) && from != addr {
		return common.Address{}, fmt.Errorf("permit: message from is %s but the key is %s's: leave From zero or set it to the key's address", from.Hex(), addr.Hex())
	}
	return addr, nil
}

func notNil(what string, fields map[string]*big.Int) error {
	for _, name := range []string{"SessionID", "MaxTotalGas", "Expiry"} {
		if v, ok := fields[name]; ok && v == nil {
			return fmt.Errorf("permit: %s.%s is nil", what, name)
		}
	}
	return nil
}

// envelope builds the envelope without a signature and runs it through
// the verifier's parser, so that the digest it returns is the digest Verify
// will compute and invalid input is refused with Verify's errors.
func envelope(kind Kind, fields []field, name, version string, chainID *big.Int, contract *common.Address, msg object) (object, [32]byte, error) {
	if chainID == nil || chainID.Sign() <= 0 {
		return nil, [32]byte{}, fmt.Errorf("permit: chain id must be positive, got %v", chainID)
	}
	dom := object{{"name", name}, {"version", version}, {"chainId", chainIDJSON(chainID)}}
	dtypes := domainFields
	want := Expect{ChainID: chainID}
	if contract != nil {
		dom = append(dom, member{"verifyingContract", lowerHex(*contract)})
		dtypes = domainFieldsContract
		want.ControlContract = *contract
	}
	env := object{
		{"domain", dom},
		{"types", object{{string(kind), fields}, {"EIP712Domain", dtypes}}},
		{"primaryType", string(kind)},
		{"message", msg},
	}
	raw, err := json.Marshal(env)
	if err != nil {
		return nil, [32]byte{}, err
	}
	c, perr := newChecker(want, false)
	if perr != nil {
		return nil, [32]byte{}, perr
	}
	p, perr := c.parse(raw, false)
	if perr != nil {
		return nil, [32]byte{}, perr
	}
	digest, perr := c.digest(p)
	if perr != nil {
		return nil, [32]byte{}, perr
	}
	return env, digest, nil
}

// signEnvelope builds the envelope (see envelope), signs its digest and
// adds the signature with v = 27 or 28.
func signEnvelope(key *ecdsa.PrivateKey, kind Kind, fields []field, name, version string, chainID *big.Int, contract *common.Address, msg object) ([]byte, error) {
	env, digest, err := envelope(kind, fields, name, version, chainID, contract, msg)
	if err != nil {
		return nil, err
	}
	sig, err := crypto.Sign(digest[:], key)
	if err != nil {
		return nil, fmt.Errorf("permit: signing: %w", err)
	}
	sig[crypto.RecoveryIDOffset] += 27
	env = append(env, member{"signature", hexutil.Encode(sig)})
	return json.Marshal(env)
}

// chainIDJSON writes a chain id as ethers.js v6 getPayload does (the
// payload its JsonRpcSigner sends to eth_signTypedData_v4): a hex quantity
// string. (Its "safe integer → number" branch never fires: it tests a bigint.)
func chainIDJSON(id *big.Int) any { return hexutil.EncodeBig(id) }

func lowerHex(a common.Address) string { return strings.ToLower(a.Hex()) }

// object is a JSON object that keeps its member order.
type object []member

type member struct {
	name  string
	value any
}

// MarshalJSON writes the members in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
