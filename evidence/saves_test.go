package evidence

import (
	"math/big"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/rule"
)

const doc = `{
  "payload": {"User": {"type": "address"}},
  "contractReads": [{"to": "0x1111111111111111111111111111111111111111", "function": "tokenOf(address)",
    "args": [{"type": "address", "value": "[User]"}],
    "saveAs": {"0": {"key": "TokenId", "type": "uint256"}}}],
  "apiCalls": [{"name": "meta", "method": "GET", "urlTemplate": "https://api.example.net/token/[TokenId]", "contentType": "json",
    "extractMap": {"Name": {"type": "string", "expr": "resp.name"}}}],
  "rules": ["[Name] == \"seven\""],
  "onValid": {"logExpireDays": 14, "encryptLogs": true,
    "grants": [{"address": "0x00000000000000000000000000000000000000BB", "rights": 1, "expireDays": 3}]},
  "onInvalid": {"grants": [{"address": "[Auditor]", "rights": 1}]}
}`

func TestSavesAndPolicy(t *testing.T) {
	d, err := rule.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	api, contract := Saves(d, map[string]any{"Name": "seven", "TokenId": tok, "Other": 1})
	if string(api) != `{"Name":"seven"}` || string(contract) != `{"TokenId":123456789012345678901234567890}` {
		t.Fatalf("saves: %s %s", api, contract)
	}
	if a, c := Saves(d, nil); a != nil || c != nil {
		t.Fatalf("no saves: %s %s", a, c)
	}
	p, err := PolicyOf(rule.NotPerformed{Grants: d.OnValid.Grants, LogExpireDays: d.OnValid.LogExpireDays, EncryptLogs: d.OnValid.EncryptLogs})
	if err != nil || p.ExpireDays != 14 || !p.Encrypt || len(p.Grants) != 1 || p.Grants[0] != (Reader{Address: auditor, Rights: 1, ExpireDays: 3}) {
		t.Fatalf("policy: %+v %v", p, err)
	}
	if _, err := PolicyOf(rule.NotPerformed{Grants: d.OnInvalid.Grants}); err == nil || !strings.Contains(err.Error(), "grants[0].address") {
		t.Fatalf("a computed grantee: %v", err)
	}
}
