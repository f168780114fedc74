package chain

import (
	"crypto/ecdh"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/envelope"
)

// KeyView is what `xgr keys` prints about a P-256 read key's public half:
// the file it came from, the account it is registered for, its public key
// and fingerprint, and the transaction that registered it.
type KeyView struct {
	File        string          `json:"file,omitempty"`
	Account     *common.Address `json:"account,omitempty"`
	PublicKey   string          `json:"publicKey"`
	Fingerprint string          `json:"fingerprint"`
	*TxSummary
}

// NewKeyView is the view of pub, read from file ("" for none).
func NewKeyView(file string, pub *ecdh.PublicKey) KeyView {
	return KeyView{File: file, PublicKey: envelope.PublicHex(pub), Fingerprint: envelope.Fingerprint(pub)}
}

// Fields lists the view as output lines.
func (v KeyView) Fields() []Field {
	var fields []Field
	if v.File != "" {
		fields = append(fields, Field{Name: "file", Value: v.File})
	}
	if v.Account != nil {
		fields = append(fields, Field{Name: "account", Value: v.Account.Hex()})
	}
	fields = append(fields, Field{Name: "publicKey", Value: v.PublicKey}, Field{Name: "fingerprint", Value: v.Fingerprint})
	if v.TxSummary != nil {
		fields = append(fields, v.TxSummary.Fields()...)
	}
	return fields
}
