package onchain_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/execution/onchain"
	"github.com/xgr-sidecar/xgr/testenv"
)

// The previewer sends nothing: a call that would succeed is final at once
// with status 1 and its estimated gas, one that would revert with status 0
// and the decoded reason; the policy refuses what xgr run would refuse.
func TestPreviewer(t *testing.T) {
	a := testenv.StartAnvil(t)
	tg := deployTarget(t, a)
	ctx := context.Background()
	p := &onchain.Previewer{Node: a.Client, From: a.Address(2)}
	sc := execution.Scope{Owner: a.Address(2), Session: 1, Pid: "1:1"}

	if err := p.Send(ctx, sc, "o/1/1:1", tg.settle(t, 5, "prev-ok")); err != nil {
		t.Fatal(err)
	}
	o, ok, err := p.Outcome(ctx, "o/1/1:1")
	if err != nil || !ok || o.Status != 1 || o.GasUsed <= 21000 || o.TxHash != (common.Hash{}) {
		t.Fatalf("success preview: %+v ok %v err %v", o, ok, err)
	}
	if r, _ := p.Result("o/1/1:1"); !strings.HasPrefix(r.Describe(), "preview: would succeed (gas ") {
		t.Errorf("describe: %q", r.Describe())
	}
	if err := p.Send(ctx, sc, "o/1/1:2", tg.settle(t, 0, "prev-zero")); err != nil {
		t.Fatal(err)
	}
	o, ok, err = p.Outcome(ctx, "o/1/1:2")
	if err != nil || !ok || o.Status != 0 || o.RevertReason != "amount is zero" {
		t.Fatalf("revert preview: %+v ok %v err %v", o, ok, err)
	}
	if r, _ := p.Result("o/1/1:2"); r.Describe() != "preview: reverts: amount is zero" {
		t.Errorf("describe: %q", r.Describe())
	}
	if n := tg.calls(t, a, "prev-ok"); n != 0 {
		t.Errorf("a preview landed %d call(s)", n)
	}
	if _, _, err := p.Outcome(ctx, "o/1/9:9"); err == nil {
		t.Error("an outcome of a key never previewed")
	}

	p.Policy = &execution.Policy{Targets: execution.Targets(common.HexToAddress("0xaa")), MaxGasLimit: execution.DefaultMaxGasLimit}
	var refusal *execution.Refusal
	if err := p.Send(ctx, sc, "o/1/1:3", tg.settle(t, 5, "prev-refused")); !errors.As(err, &refusal) || refusal.Limit != execution.LimitTargets {
		t.Errorf("a target outside the policy: %v", err)
	}
	if err := p.Send(ctx, sc, "", tg.settle(t, 5, "x")); !errors.As(err, &refusal) {
		t.Errorf("an empty key: %v", err)
	}
}
