package indexer

import (
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

const goodConfig = `
registries: ["0x5FbDB2315678afecb367f032d93F642f64180aa3"]
confirmations: 3
triggers:
  - name: order-placed
    contract: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"
    event: "OrderPlaced(address indexed owner, uint256 amount, string ref)"
    orchestration: {registry: "0x5FbDB2315678afecb367f032d93F642f64180aa3", id: OrderFlow}
    start: A1
    owner: {arg: owner}
    payload:
      Amount: {arg: amount}
      Ref: {arg: ref}
      Block: {log: blockNumber}
      Source: chain
`

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig("xgr.yaml", []byte(goodConfig))
	if err != nil {
		t.Fatal(err)
	}
	tr := c.Triggers[0]
	if c.Confirmations != 3 || c.Window != 128 || len(c.Registries) != 1 || tr.Start != "A1" || tr.OstcID != "OrderFlow" {
		t.Fatalf("config %+v", c)
	}
	if tr.Event.ID != crypto.Keccak256Hash([]byte("OrderPlaced(address,uint256,string)")) {
		t.Errorf("topic0 %s", tr.Event.ID.Hex())
	}
	if len(tr.Payload) != 4 || tr.Payload[0].Key != "Amount" || tr.Payload[3].Value.Literal != "chain" || tr.Payload[2].Value.Log != "blockNumber" {
		t.Errorf("payload %+v", tr.Payload)
	}
}

func TestConfigListsEveryProblem(t *testing.T) {
	bad := `
registries: ["0x123"]
confirm: 3
triggers:
  - name: t
    contract: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"
    event: "OrderPlaced(address indexed owner, uint256 amount, string indexed ref)"
    orchestration: {registry: "0x5FbDB2315678afecb367f032d93F642f64180aa3"}
    start: A1
    owner: {arg: amount}
    payload:
      Ref: {arg: ref}
      Nope: {arg: missing}
      When: {log: timestamp}
      _x: 1
  - name: t
`
	_, err := ParseConfig("xgr.yaml", []byte(bad))
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("want a ConfigError, got %v", err)
	}
	for _, want := range []string{
		`xgr.yaml:2:14: registries[0]: expected a 0x address`,
		`xgr.yaml:3:1: confirm: unknown setting "confirm"`,
		`triggers[0].orchestration: needs registry and id`,
		`triggers[0].owner: owner argument "amount" is uint256; it must be an address`,
		`triggers[0].payload.Ref.arg: indexed string argument "ref" is only a hash in the log`,
		`triggers[0].payload.Nope.arg: the event has no argument "missing"`,
		`triggers[0].payload.When.log: log field "timestamp" is not one of`,
		`triggers[0].payload._x: payload keys starting with _ are reserved`,
		`triggers[1].name: trigger name "t" is used twice`,
		`triggers[1].contract: missing "contract"`,
	} {
		if !strings.Contains(ce.Error(), want) {
			t.Errorf("missing %q in:\n%s", want, ce.Error())
		}
	}
}

func TestParseEvent(t *testing.T) {
	ev, err := ParseEvent("Transfer(address indexed from, address indexed to, uint256 value)")
	if err != nil || ev.ID != crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)")) || !ev.Inputs[0].Indexed || ev.Inputs[2].Indexed {
		t.Fatalf("%+v %v", ev, err)
	}
	for _, bad := range []string{"Transfer", "(uint256 a)", "T(uint257 a)", "T(uint256)", "T(uint256 a, uint256 a)", "T((uint256,bool) t)",
		"T(uint8 indexed a, uint8 indexed b, uint8 indexed c, uint8 indexed d)"} {
		if _, err := ParseEvent(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	_ = common.Hash{}
}
