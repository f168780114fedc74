package indexer

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
)

// heads is a HeadReader with a head and, optionally, finalized and safe
// tags.
type heads struct {
	head            uint64
	finalized, safe *uint64
}

func (h heads) BlockNumber(context.Context) (uint64, error) { return h.head, nil }

func (h heads) HeaderByNumber(_ context.Context, n *big.Int) (*types.Header, error) {
	tag := map[int64]*uint64{int64(rpc.FinalizedBlockNumber): h.finalized, int64(rpc.SafeBlockNumber): h.safe}[n.Int64()]
	if tag == nil {
		return nil, errors.New("unknown block")
	}
	return &types.Header{Number: new(big.Int).SetUint64(*tag)}, nil
}

func u(n uint64) *uint64 { return &n }

func TestFinalityView(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		f        Finality
		h        heads
		final    uint64
		ok       bool
		rule     string
		fallback bool
		lag      uint64
		err      string
	}{
		{"auto with a finalized tag (anvil: head-64)", Finality{"auto", 12}, heads{head: 100, finalized: u(36)}, 36, true, "finalized block", false, 64, ""},
		{"auto without the tag counts confirmations", Finality{"auto", 12}, heads{head: 100}, 89, true, "12 confirmations", true, 11, ""},
		{"confirmations", Finality{"confirmations", 2}, heads{head: 10, finalized: u(1)}, 9, true, "2 confirmations", false, 1, ""},
		{"a chain shorter than the confirmations", Finality{"confirmations", 12}, heads{head: 5}, 0, false, "12 confirmations", false, 0, ""},
		{"safe", Finality{"safe", 0}, heads{head: 50, safe: u(40)}, 40, true, "safe block", false, 10, ""},
		{"safe on a node without it", Finality{"safe", 0}, heads{head: 50}, 0, false, "", false, 0, "the node has no safe block"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := tc.f.View(ctx, tc.h)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || v.Final != tc.final || v.OK != tc.ok || v.Rule != tc.rule || v.Fallback != tc.fallback || v.Lag() != tc.lag {
				t.Fatalf("view %+v lag %d, err %v", v, v.Lag(), err)
			}
		})
	}
	if at := (Finality{"confirmations", 3}).FinalAt(FinalView{Rule: "3 confirmations"}, 20); at != 22 {
		t.Errorf("a log of block 20 under 3 confirmations is final at head %d, want 22", at)
	}
}

// A trigger start that waits for its block to be final is not silent: the
// first pass logs the finality rule and its lag, and a pass that starts
// nothing while starts are pending says what they wait for.
func TestStarterSaysWhatTriggersWaitFor(t *testing.T) {
	r := newRig(t)
	var logs bytes.Buffer
	r.starter.Log = slog.New(slog.NewTextHandler(&logs, nil))
	now := time.Unix(1_700_000_000, 0)
	r.starter.Now = func() time.Time { return now }
	if n := r.sync(t); n != 0 {
		t.Fatalf("%d sessions started before the log's block had 3 confirmations", n)
	}
	out := logs.String()
	if !strings.Contains(out, `msg="trigger finality" finality=confirmations rule="3 confirmations"`) {
		t.Errorf("the first pass does not log the finality rule:\n%s", out)
	}
	if !strings.Contains(out, "trigger starts wait for their blocks to be final") || !strings.Contains(out, "pending=1") || !strings.Contains(out, "finalAtHead=") {
		t.Errorf("a pass that started nothing does not say what the pending start waits for:\n%s", out)
	}
	logs.Reset()
	r.sync(t)
	if strings.Contains(logs.String(), "wait for their blocks") {
		t.Errorf("the wait notice repeats within a minute:\n%s", logs.String())
	}
}
