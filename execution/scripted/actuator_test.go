package scripted

import (
	"context"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/execution"
)

func TestActuatorPlaysItsPlan(t *testing.T) {
	ctx := context.Background()
	a := &Actuator{Decide: ByCallData, TxHash: CallHash}
	sc := execution.Scope{Session: 1, Pid: "1:1"}
	call := func(word string) execution.Call {
		return execution.Call{To: common.HexToAddress("0x01"), Data: []byte(word)}
	}
	// transient: one failed send, one failed poll, one pending poll.
	if err := a.Send(ctx, sc, "t", call("transient")); !errors.Is(err, ErrTransient) {
		t.Fatalf("first send: %v", err)
	}
	if _, _, err := a.Outcome(ctx, "t"); err == nil {
		t.Fatal("outcome of an unrecorded key")
	}
	if err := a.Send(ctx, sc, "t", call("transient")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.Outcome(ctx, "t"); !errors.Is(err, ErrTransient) {
		t.Fatalf("first poll: %v", err)
	}
	if _, ok, err := a.Outcome(ctx, "t"); ok || err != nil {
		t.Fatalf("second poll: %v %v, want pending", ok, err)
	}
	a.Hold.Store(true)
	if _, ok, _ := a.Outcome(ctx, "t"); ok {
		t.Fatal("final while held")
	}
	a.Hold.Store(false)
	o, ok, err := a.Outcome(ctx, "t")
	if !ok || err != nil || o.Status != 1 || o.TxHash != CallHash("", call("transient")) {
		t.Fatalf("final: %+v %v %v", o, ok, err)
	}
	// revert and refuse.
	a.Send(ctx, sc, "r", call("revert"))
	a.Outcome(ctx, "r")
	if o, ok, _ := a.Outcome(ctx, "r"); !ok || o.Status != 0 || o.RevertReason == "" {
		t.Fatalf("revert: %+v", o)
	}
	var refusal *execution.Refusal
	if err := a.Send(ctx, sc, "x", call("refuse")); !errors.As(err, &refusal) || refusal.Limit != "scripted.refuse" {
		t.Fatalf("refuse: %v", err)
	}
	// A key sent again with another call is a conflict; the same call is not.
	a.Send(ctx, sc, "r", call("revert"))
	if c := a.Conflicts(); len(c) != 0 {
		t.Fatalf("conflicts after the same call: %v", c)
	}
	a.Send(ctx, sc, "r", call("success"))
	if c := a.Conflicts(); len(c) != 1 {
		t.Fatalf("conflicts after another call: %v", c)
	}
	if first, n, ok := a.Sent("r"); !ok || n != 3 || string(first.Data) != "revert" {
		t.Fatalf("sent r: %+v %d %v", first, n, ok)
	}
}
