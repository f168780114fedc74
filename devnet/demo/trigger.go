package demo

import (
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/indexer"
)

// OrderEvent is the demo's order event: the orders registry's
// OSTCUpdated, one log per order put.
const OrderEvent = "OSTCUpdated(address indexed xrc729Address, address indexed owner, bytes32 indexed ostcIdHash, bytes32 ostcHash, string id, uint256 version, uint64 updatedAt)"

// TriggerConfig is the indexer configuration of `xgr dev`: follow the
// registry, final after one confirmation, and start flow (at its step
// start) for every order the orders contract logs, owned by the order's
// sender, with the order id and block as the payload. Every value is
// written as a JSON string, so no flag value can change the document's
// shape.
func TriggerConfig(registry, orders common.Address, flow, start string) (*indexer.Config, error) {
	q := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	doc := fmt.Sprintf(`registries: [%s]
finality: confirmations
confirmations: 1
triggers:
  - name: demo-order
    contract: %s
    event: %s
    orchestration: {registry: %s, id: %s}
    start: %s
    owner: {arg: owner}
    payload: {Order: {arg: id}, Block: {log: blockNumber}}
`, q(registry.Hex()), q(orders.Hex()), q(OrderEvent), q(registry.Hex()), q(flow), q(start))
	return indexer.ParseConfig("dev", []byte(doc))
}
