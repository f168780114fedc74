package reactor

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/execution/scripted"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/logseal"
	"github.com/xgr-sidecar/xgr/testenv"
)

// Issue 38, Medium 5: a step whose onValid execution reverts flips to its
// onInvalid branch; a branch without an execution of its own must keep
// its evidence settings (encryptLogs, logExpireDays, grants) and the
// evaluation's saves, and a flip from a sealed onValid stays sealed.

const flipAuditor = "0x00000000000000000000000000000000000000ad"

// readKeys is a key registry of generated read keys (logseal.KeySource).
type readKeys map[common.Address]*envelope.ReadKey

func (k readKeys) ReadKey(_ context.Context, a common.Address) ([]byte, error) {
	if r, ok := k[a]; ok {
		return r.Public().Bytes(), nil
	}
	return nil, nil
}

func newReadKeys(t *testing.T, addrs ...string) readKeys {
	t.Helper()
	out := readKeys{}
	for _, a := range addrs {
		k, err := envelope.GenerateReadKey()
		if err != nil {
			t.Fatal(err)
		}
		out[common.HexToAddress(a)] = k
	}
	return out
}

// evidenceCallingExec is callingExec whose step A's evaluation carries
// the onValid branch's evidence (pol).
type evidenceCallingExec struct {
	callingExec
	pol evidence.Policy
}

func (x *evidenceCallingExec) Execute(ctx context.Context, e Execution) (Result, error) {
	r, err := x.callingExec.Execute(ctx, e)
	if e.Step.ID == "A" {
		r.Evidence = &EvidenceInput{Rule: "0x0000000000000000000000000000000000000001", RuleHash: "0x" + strings.Repeat("ab", 32),
			APISaves: json.RawMessage(`{"fx":"1.08"}`), ContractSaves: json.RawMessage(`{"limit":7}`), Policy: x.pol}
	}
	return r, err
}

// evidenceFlipper renders onInvalid without an execution (own: with
// callI), with the branch's evidence pol.
func evidenceFlipper(own bool, pol evidence.Policy) Flipper {
	return FlipFunc(func(_ context.Context, e Execution, f Flip) (Result, error) {
		r := Result{Output: map[string]any{"flipped": f.Inputs["k"]}, Evidence: &EvidenceInput{Rule: "0x0000000000000000000000000000000000000001",
			RuleHash: "0x" + strings.Repeat("ab", 32), APISaves: json.RawMessage(`{"fx":"1.08"}`), ContractSaves: json.RawMessage(`{"limit":7}`), Policy: pol}}
		if own {
			c := callI
			r.Execution = &c
		}
		return r, nil
	})
}

// runFlipBundle runs execOstc with A's execution reverting (the flip's own
// succeeding) and returns A's bundle head, body and the store's Redis.
func runFlipBundle(t *testing.T, sealer evidence.Sealer, valid, invalid evidence.Policy, own bool) (*redis.Client, *evidence.Store, joinstore.Root, *evidence.Head, string) {
	t.Helper()
	s := newSim(t, execOstc, "")
	rdb := testenv.StartRedis(t).Client()
	s.store = joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	ev, err := evidence.New(rdb, evidence.Config{Grants: grant.New(rdb), DefaultDays: 30, MaxDays: 365, Sealer: sealer})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := s.store.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A", Now: s.clock, XRC729: "0x00000000000000000000000000000000000000f1"})
	if err != nil {
		t.Fatal(err)
	}
	act := &scripted.Actuator{Decide: func(_ execution.Scope, key string, _ execution.Call) scripted.Plan {
		return scripted.Plan{Revert: !strings.HasSuffix(key, FlipKeySuffix), RevertReason: "no"}
	}}
	r := &Runner{Store: s.store, Orch: s.orch, Exec: &evidenceCallingExec{pol: valid}, Worker: "test", Actuator: act, Flipper: evidenceFlipper(own, invalid),
		Bundles: ev, Now: func() time.Time { return s.clock }, Advance: func(at time.Time) { s.clock = at }}
	if err := r.Run(ctx, res.Root); err != nil {
		t.Fatal(err)
	}
	p, err := s.store.Process(ctx, res.Root, 1)
	if err != nil || p.Valid == nil || *p.Valid || p.Execution == nil {
		t.Fatalf("A did not flip: %+v %v", p, err)
	}
	h, err := ev.Head(ctx, owner, res.Root.RootPid, 1)
	if errors.Is(err, evidence.ErrNotFound) {
		return rdb, ev, res.Root, nil, ""
	}
	if err != nil {
		t.Fatal(err)
	}
	body, err := ev.Body(ctx, owner, res.Root.RootPid, 1)
	if err != nil {
		t.Fatal(err)
	}
	return rdb, ev, res.Root, h, body
}

func TestRevertFlipKeepsOnInvalidEvidence(t *testing.T) {
	week := evidence.Policy{ExpireDays: 7, Grants: []evidence.Reader{{Address: flipAuditor, Rights: grant.Read}}}
	for _, own := range []bool{false, true} {
		name := map[bool]string{false: "onInvalid without execution", true: "onInvalid with its own execution"}[own]
		t.Run(name+"/logExpireDays, grants, saves", func(t *testing.T) {
			rdb, _, root, h, body := runFlipBundle(t, nil, evidence.Policy{}, week, own)
			if h == nil || h.Encrypted {
				t.Fatalf("bundle head %+v, want a plaintext bundle", h)
			}
			ctx := context.Background()
			ttl := rdb.PTTL(ctx, evidence.Key(owner, root.RootPid, 1)).Val()
			if ttl <= 6*24*time.Hour || ttl > 7*24*time.Hour {
				t.Fatalf("bundle TTL %s, want the onInvalid branch's 7 days", ttl)
			}
			g, err := grant.New(rdb).Get(ctx, h.RID, grant.ScopeLog, flipAuditor)
			if err != nil || !evidence.MayRead(owner, flipAuditor, h.RID, g, time.Now()) {
				t.Fatalf("the onInvalid branch's grantee cannot read the bundle: grant %+v %v", g, err)
			}
			var b evidence.Bundle
			if err := json.Unmarshal([]byte(body), &b); err != nil {
				t.Fatal(err)
			}
			if string(b.APISaves) != `{"fx":"1.08"}` || string(b.ContractSaves) != `{"limit":7}` || b.RuleHash != "0x"+strings.Repeat("ab", 32) || b.Outcome.Result != evidence.Invalid {
				t.Fatalf("bundle saves %s / %s, ruleHash %q, outcome %+v", b.APISaves, b.ContractSaves, b.RuleHash, b.Outcome)
			}
		})
		t.Run(name+"/encryptLogs", func(t *testing.T) {
			keys := newReadKeys(t, owner, flipAuditor)
			pol := week
			pol.Encrypt = true
			_, _, _, h, body := runFlipBundle(t, &logseal.Sealer{Keys: keys}, evidence.Policy{}, pol, own)
			if h == nil || !h.Encrypted || !strings.HasPrefix(body, "XGR1.") {
				t.Fatalf("bundle head %+v body %.40s, want a sealed bundle", h, body)
			}
		})
		t.Run(name+"/encryptLogs without a key registry", func(t *testing.T) {
			pol := week
			pol.Encrypt = true
			rdb, _, root, h, _ := runFlipBundle(t, nil, evidence.Policy{}, pol, own)
			if h != nil {
				t.Fatalf("bundle head %+v: an encryptLogs bundle without a sealer must be refused", h)
			}
			if n := rdb.Exists(context.Background(), evidence.Key(owner, root.RootPid, 1)).Val(); n != 0 {
				t.Fatal("a refused bundle left its key")
			}
		})
		t.Run(name+"/sealed onValid, unsealed onInvalid", func(t *testing.T) {
			keys := newReadKeys(t, owner, flipAuditor)
			rdb, _, _, h, body := runFlipBundle(t, &logseal.Sealer{Keys: keys}, evidence.Policy{Encrypt: true}, week, own)
			if h == nil || !h.Encrypted || !strings.HasPrefix(body, "XGR1.") {
				t.Fatalf("bundle head %+v body %.40s: a flip from a sealed onValid must stay sealed", h, body)
			}
			// The auditor the onInvalid branch grants opens it with its own
			// read key, and finds the evaluation's saves.
			g, err := grant.New(rdb).Get(context.Background(), h.RID, grant.ScopeLog, flipAuditor)
			if err != nil || g == nil {
				t.Fatalf("auditor grant %+v %v", g, err)
			}
			plain, err := envelope.Open(body, g.EncDEK, keys[common.HexToAddress(flipAuditor)], envelope.ScopeLog, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			var b evidence.Bundle
			if err := json.Unmarshal(plain, &b); err != nil || string(b.APISaves) != `{"fx":"1.08"}` || b.Outcome.Result != evidence.Invalid {
				t.Fatalf("opened bundle %s: %v", plain, err)
			}
		})
	}
}
