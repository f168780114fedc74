package session_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/session"
	"github.com/xgr-sidecar/xgr/testenv"
)

// List pages an owner's sessions and filters them by outcome; Inspect
// reads one and refuses it under another start key; the start step
// defaults to the document's first.
func TestListAndInspect(t *testing.T) {
	ctx := context.Background()
	src, orchs := orchestrations(t, `{"id": "one", "structure": {"A1": {"rule": "<r>"}, "B1": {"rule": "<r>"}}}`)
	o := orchs[0]
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	starter := session.Starter{Store: store, Source: src}
	var roots []joinstore.Root
	for _, key := range []string{"k1", "k2", "k3"} {
		res, err := starter.Start(ctx, session.Request{Owner: owner, Registry: "file", OstcID: o.ID, Step: o.StartStep(""), Key: key})
		if err != nil {
			t.Fatal(err)
		}
		roots = append(roots, res.Root)
	}
	rows, err := session.List(ctx, store, session.ListRequest{Owner: owner, Limit: 2})
	if err != nil || len(rows) != 2 || rows[0].RootPid != roots[2].RootPid || rows[0].StartStep != "A1" {
		t.Fatalf("newest two: %v %+v", err, rows)
	}
	rows, err = session.List(ctx, store, session.ListRequest{Owner: owner, Asc: true, Offset: 1})
	if err != nil || len(rows) != 2 || rows[0].RootPid != roots[1].RootPid {
		t.Fatalf("oldest first past one: %v %+v", err, rows)
	}
	rows, err = session.List(ctx, store, session.ListRequest{Owner: owner, Outcome: joinstore.OutcomeOK})
	if err != nil || len(rows) != 0 {
		t.Fatalf("no session finished: %v %+v", err, rows)
	}
	var ie *session.IndexError
	if _, err := session.List(ctx, store, session.ListRequest{Owner: "bob"}); !errors.As(err, &ie) {
		t.Fatalf("a bad owner: %v, want an *IndexError", err)
	}

	v, err := session.Inspect(ctx, store, roots[0], "k1")
	if err != nil || len(v.Processes) != 1 || v.Session.StartKey != "k1" {
		t.Fatalf("inspect: %v %+v", err, v)
	}
	var b strings.Builder
	v.WriteText(&b)
	if !strings.Contains(b.String(), "start key k1") || !strings.Contains(b.String(), "└─ "+roots[0].Pid(1)+" A1 ") {
		t.Fatalf("text:\n%s", b.String())
	}
	var nt *session.NotThisStartError
	if _, err := session.Inspect(ctx, store, roots[0], "k2"); !errors.As(err, &nt) || nt.Have != "k1" || !strings.Contains(err.Error(), "not this start") {
		t.Fatalf("another key: %v", err)
	}
}
