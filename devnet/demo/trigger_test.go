package demo

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// A flow name is a value, whatever it holds: it cannot add keys or break
// the document.
func TestTriggerConfigQuotesValues(t *testing.T) {
	reg, orders := common.HexToAddress("0x01"), common.HexToAddress("0x02")
	for _, flow := range []string{"Order_v1", `x", discover: true, y: "`, "a\nb: c", "#not a comment"} {
		cfg, err := TriggerConfig(reg, orders, flow, "A1")
		if err != nil {
			t.Fatalf("flow %q: %v", flow, err)
		}
		if cfg.Discover || len(cfg.Triggers) != 1 || cfg.Triggers[0].OstcID != flow || cfg.Triggers[0].Start != "A1" ||
			cfg.Triggers[0].Contract != orders || cfg.Registries[0] != reg {
			t.Fatalf("flow %q: %+v", flow, cfg)
		}
	}
}
