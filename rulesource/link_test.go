package rulesource_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rulesource"
)

// LinkText writes every bound placeholder's address into the text and
// keeps the rest; with a placeholder unbound it writes nothing.
func TestLinkText(t *testing.T) {
	o, err := registry.Parse([]byte(`{"id": "flow", "structure": {
  "A1": {"rule": "${addr:FEED}", "onValid": {"spawns": ["B1"], "waitSec": 1.50}},
  "B1": {"rule": "<Quorum-Addr>"},
  "C1": {"rule": "0x00000000000000000000000000000000000000dd"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	feed, quorum := common.HexToAddress("0xaa"), common.HexToAddress("0xcc")
	l, unbound, err := rulesource.Addresses{"FEED": feed}.LinkText(o)
	if err != nil || !reflect.DeepEqual(unbound, []string{"<Quorum-Addr>"}) || l.Text != nil {
		t.Fatalf("one unbound: %+v, %v, %v", l, unbound, err)
	}
	l, unbound, err = rulesource.Addresses{"FEED": feed, "Quorum-Addr": quorum}.LinkText(o)
	if err != nil || unbound != nil {
		t.Fatalf("all bound: %v, %v", unbound, err)
	}
	if !reflect.DeepEqual(l.Steps, map[string]string{"A1": feed.Hex(), "B1": quorum.Hex()}) {
		t.Errorf("steps %v", l.Steps)
	}
	linked, err := registry.Parse(l.Text)
	if err != nil || linked.Step("A1").Rule != feed.Hex() || linked.Step("C1").Rule != "0x00000000000000000000000000000000000000dd" || linked.Hash != l.Hash {
		t.Fatalf("linked text %s: %v", l.Text, err)
	}
	if !strings.Contains(string(l.Text), `"waitSec": 1.50`) {
		t.Errorf("numbers must be kept as written:\n%s", l.Text)
	}
}
