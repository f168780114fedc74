package joinstore

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestExecutionLifecycle: a running process enters executing under its
// lease (begin_exec: fenced, idempotent per key, one flip), keeps it across
// renewals, is taken over after its holder stopped (resume_exec: the same
// key and record, a fresh token, the old one void), and commits from
// executing with its outcome recorded — on a single server and a cluster.
func TestExecutionLifecycle(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := newStore(rdb), context.Background()
		st := start(t, s, StartRequest{MaxTotalGas: 500000})
		root := st.Root
		meta, err := s.SessionMeta(ctx, root)
		if err != nil || meta.MaxTotalGas != "500000" {
			t.Fatalf("meta maxTotalGas = %q, %v", meta.MaxTotalGas, err)
		}
		c := claimAll(t, s, root, t0, 2)[0]
		rec := json.RawMessage(`{"valid":true,"output":{"x":1}}`)
		key := owner + "/1/1:1"

		stale := c
		stale.Token++
		if _, err := s.BeginExec(ctx, stale, t0, key, rec, false, false); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("begin with a stale token: %v, want ErrLeaseLost", err)
		}
		if p, _ := s.Process(ctx, root, 1); p.Status != StatusRunning || p.Execution != nil {
			t.Fatalf("a refused begin changed the process: %+v", p)
		}
		if r, err := s.BeginExec(ctx, c, t0, key, rec, false, false); err != nil || r != Begun {
			t.Fatalf("begin: %v %v", r, err)
		}
		if r, err := s.BeginExec(ctx, c, t0, key, rec, false, false); err != nil || r != AlreadyBegun {
			t.Fatalf("begin again: %v %v, want already", r, err)
		}
		if _, err := s.BeginExec(ctx, c, t0, key+"/x", rec, false, false); !errors.Is(err, ErrBadExec) {
			t.Fatalf("begin under another key: %v, want ErrBadExec", err)
		}
		p, err := s.Process(ctx, root, 1)
		if err != nil || p.Status != StatusExecuting || !p.Status.Live() || p.Execution == nil || p.Execution.Key != key || string(p.Execution.Record) != string(rec) {
			t.Fatalf("executing process: %+v %v", p, err)
		}
		if _, err := s.Renew(ctx, c, t0.Add(time.Second), 30*time.Second); err != nil {
			t.Fatalf("renew an executing lease: %v", err)
		}
		// A holder's release leaves it executing.
		if r, err := s.Release(ctx, c, t0.Add(time.Second), t0); err != nil || r != Executing {
			t.Fatalf("release of an executing process: %v %v", r, err)
		}

		// Its holder stops: after the lease expired a recovery takes it over.
		late := t0.Add(2 * time.Minute)
		res, resumed, err := s.RecoverResume(ctx, root, late, Resume{Lease: 30 * time.Second, Worker: "w2", Steps: table(2)})
		if err != nil || res[1] != Executing || len(resumed) != 1 {
			t.Fatalf("recover: %v %v %v", res, resumed, err)
		}
		rc := resumed[0]
		if rc.Token == c.Token || rc.Exec == nil || rc.Exec.Key != key || string(rc.Exec.Record) != string(rec) ||
			rc.FirstChild != c.FirstChild || rc.ResumeStep != c.ResumeStep || rc.Reserve != 2 {
			t.Fatalf("resumed claim %+v, first claim %+v", rc, c)
		}
		if p, _ := s.Process(ctx, root, 1); p.Status != StatusExecuting || p.Lease == nil || p.Lease.Holder != "w2" {
			t.Fatalf("taken over: %+v", p)
		}
		if _, err := s.Commit(ctx, c, late, Commit{Status: "done", Worker: "w1"}); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("the old holder's commit: %v, want ErrLeaseLost", err)
		}
		if _, ok, _ := s.ResumeExec(ctx, c, late, time.Minute, "w3", table(2)); ok {
			t.Fatal("a second take-over with the old token succeeded")
		}

		// The flip, once.
		irec := json.RawMessage(`{"valid":false,"flipped":true}`)
		if r, err := s.BeginExec(ctx, rc, late, key+"/i", irec, true, false); err != nil || r != Flipped {
			t.Fatalf("flip: %v %v", r, err)
		}
		if _, err := s.BeginExec(ctx, rc, late, key+"/j", irec, true, false); !errors.Is(err, ErrBadExec) {
			t.Fatalf("second flip: %v, want ErrBadExec", err)
		}
		outcome := json.RawMessage(`{"key":"k","outcome":{"txHash":"0x01","status":1}}`)
		valid := false
		child := Child{Iter: rc.FirstChild, ResumeStep: "B1", JoinGroupID: "0"}
		cr, err := s.Commit(ctx, rc, late, Commit{Status: "done", Valid: &valid, Worker: "w2", Payload: json.RawMessage(`{"a":1}`), ExecOutcome: outcome, Children: []Child{child}})
		if err != nil || cr.Killed || cr.Live != 1 {
			t.Fatalf("commit from executing: %+v %v", cr, err)
		}
		p, err = s.Process(ctx, root, 1)
		if err != nil || p.Status != StatusDone || p.Execution == nil || !p.Execution.Flipped || p.Execution.Key != key+"/i" || string(p.Execution.Outcome) != string(outcome) || p.Execution.TxHash != "0x01" {
			t.Fatalf("committed: %+v %v", p.Execution, err)
		}
		b, _ := json.Marshal(p)
		var shown struct {
			Status    string `json:"status"`
			Execution struct {
				Key     string          `json:"key"`
				TxHash  string          `json:"txHash"`
				Outcome json.RawMessage `json:"outcome"`
			} `json:"execution"`
		}
		if json.Unmarshal(b, &shown); shown.Status != "done" || shown.Execution.Key != key+"/i" || shown.Execution.TxHash != "0x01" || string(shown.Execution.Outcome) != string(outcome) {
			t.Fatalf("process JSON: %s", b)
		}
	})
}

// TestExecutionAndKill: a step killed before it executes sends nothing
// (begin_exec answers killed, nothing changes); one killed while it
// executes stays executing until its commit, which records the outcome
// aborted and creates nothing.
func TestExecutionAndKill(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := newStore(rdb), context.Background()
		a := start(t, s, StartRequest{}).Root
		ca := claimAll(t, s, a, t0, 1)[0]
		if _, err := s.KillSession(ctx, a, t0, "operator"); err != nil {
			t.Fatal(err)
		}
		if r, err := s.BeginExec(ctx, ca, t0, "k/a", json.RawMessage(`{}`), false, false); err != nil || r != BeginKilled {
			t.Fatalf("begin in a killed session: %v %v", r, err)
		}
		if p, _ := s.Process(ctx, a, 1); p.Status != StatusRunning || p.Execution != nil {
			t.Fatalf("killed begin changed the process: %+v", p)
		}

		b := start(t, s, StartRequest{}).Root
		cb := claimAll(t, s, b, t0, 1)[0]
		if r, err := s.BeginExec(ctx, cb, t0, "k/b", json.RawMessage(`{}`), false, false); err != nil || r != Begun {
			t.Fatalf("begin: %v %v", r, err)
		}
		if _, err := s.KillSession(ctx, b, t0, "operator"); err != nil {
			t.Fatal(err)
		}
		kr, err := s.Kill(ctx, b, t0, 1)
		if err != nil || kr.Results[1] != "killing" {
			t.Fatalf("kill of an executing process: %+v %v", kr, err)
		}
		if p, _ := s.Process(ctx, b, 1); p.Status != StatusExecuting {
			t.Fatalf("killed executing process: %+v", p)
		}
		outcome := json.RawMessage(`{"status":1}`)
		cr, err := s.Commit(ctx, cb, t0, Commit{Status: "done", Worker: "w1", ExecOutcome: outcome,
			Children: []Child{{Iter: cb.FirstChild, ResumeStep: "B1", JoinGroupID: "0"}}})
		if err != nil || !cr.Killed || cr.Live != 0 {
			t.Fatalf("commit of a killed executing process: %+v %v", cr, err)
		}
		p, _ := s.Process(ctx, b, 1)
		if p.Status != StatusAborted || p.Execution == nil || string(p.Execution.Outcome) != string(outcome) {
			t.Fatalf("killed executing process after its commit: %+v %+v", p, p.Execution)
		}
		if _, err := s.Process(ctx, b, cb.FirstChild); !errors.Is(err, ErrNotFound) {
			t.Fatalf("a killed executing process spawned: %v", err)
		}
	})
}

// TestSealedExecution: a sealed step's process is marked sealed when it
// begins executing (views show Redacted: no payload, record or outcome),
// and its commit drops the execution record and keeps it marked; an
// unsealed one keeps its record. On a single server and a cluster.
func TestSealedExecution(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := newStore(rdb), context.Background()
		for _, sealed := range []bool{true, false} {
			root := start(t, s, StartRequest{Payload: json.RawMessage(`{"ssn":"planted"}`)}).Root
			c := claimAll(t, s, root, t0, 2)[0]
			rec := json.RawMessage(`{"call":{"to":"planted"}}`)
			if r, err := s.BeginExec(ctx, c, t0, owner+"/x", rec, false, sealed); err != nil || r != Begun {
				t.Fatalf("begin: %v %v", r, err)
			}
			p, err := s.Process(ctx, root, 1)
			if err != nil || p.Sealed != sealed || string(p.Execution.Record) != string(rec) {
				t.Fatalf("sealed %v: executing process %+v %v", sealed, p, err)
			}
			v, _ := json.Marshal(p)
			if r := p.Redacted(); sealed && (string(r.ResumePlain) != `"sealed"` || string(r.Execution.Record) != `"sealed"` || strings.Contains(string(v), "planted")) {
				t.Fatalf("a sealed process's view: %+v %s", r, v)
			}
			if _, err := s.Commit(ctx, c, t0, Commit{Status: "done", Worker: "w", Payload: json.RawMessage(`{"ssn":"planted"}`),
				ExecOutcome: json.RawMessage(`{"key":"k"}`), Sealed: sealed}); err != nil {
				t.Fatal(err)
			}
			p, err = s.Process(ctx, root, 1)
			if err != nil || p.Sealed != sealed || p.Execution == nil || (p.Execution.Record == nil) != sealed || string(p.Execution.Outcome) != `{"key":"k"}` {
				t.Fatalf("sealed %v: committed process %+v %v", sealed, p, err)
			}
		}
	})
}
