package rpc_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/rpc"
	"github.com/xgr-sidecar/xgr/testenv"
)

// TestGrantPermitGateway (issue 38, Medium 3): an xdalaPermit given for a
// read must not write grants. A dApp or proxy that relays the owner's
// xgr_getStepLog permit cannot use it with xgr_manageGrants to grant
// itself READ|MANAGE on the owner's bundle: by default the gateway takes
// only a GrantPermit, which signs the RID, the scope and the entries. A
// GrantPermit used with other entries, another RID or another scope is
// refused too; each refusal writes nothing. The rightful request works end
// to end, also resent in another spelling. Real redis-server.
func TestGrantPermitGateway(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	g := newEvidenceGateway(t, rdb)
	ctx := context.Background()
	ownerKey, auditorKey, relayKey := g.keys[0], g.keys[1], g.keys[2]
	own, aud, rel := lower(addr(ownerKey)), lower(addr(auditorKey)), lower(addr(relayKey))
	st1 := g.putBundle(t, own, 1)
	st2 := g.putBundle(t, own, 2)
	exp := uint64(time.Now().Add(time.Hour).Unix())

	// The owner gives the relay a read permit (what a dApp asks for to
	// show a step's log).
	readPermit, err := g.client.XdalaPermit(ctx, ownerKey)
	if err != nil {
		t.Fatal(err)
	}
	var viaRelay *rpc.StepLog
	if viaRelay, err = g.client.StepLogWith(ctx, readPermit, own, "9", "1"); err != nil || viaRelay.RID != st1.RID.String() {
		t.Fatalf("the relayed read: %+v %v", viaRelay, err)
	}
	steal := rpc.ManageGrantsRequest{RID: st1.RID.String(), Scope: json.RawMessage(`2`), Owner: own,
		Entries: []rpc.GrantEntry{{Grantee: rel, Rights: grant.Read | grant.Manage, ExpireAt: exp}}}

	t.Run("a relayed read permit writes no grant", func(t *testing.T) {
		before := countKeys(t, rdb)
		req := steal
		req.Permit = readPermit
		_, err := g.client.ManageGrantsWith(ctx, req)
		refused(t, err, rpc.CodePermit, "unbound-permit")
		for _, want := range []string{"GrantPermit", "--rpc-allow-unbound-grant-permits"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("the refusal does not name %s: %v", want, err)
			}
		}
		if after := countKeys(t, rdb); after != before {
			t.Fatalf("a refused change wrote keys (%d -> %d)", before, after)
		}
		if _, err := g.client.StepLog(ctx, relayKey, own, "9", "1"); err == nil {
			t.Fatal("the relay reads the owner's bundle")
		}
	})

	// The owner signs a GrantPermit for the auditor's READ on bundle 1; the
	// relay that carries it tries it with other entries, on bundle 2 and
	// in scope 1.
	good := rpc.ManageGrantsRequest{RID: st1.RID.String(), Scope: json.RawMessage(`2`), Owner: own, SessionID: json.RawMessage(`9`),
		Entries: []rpc.GrantEntry{{Grantee: aud, Rights: grant.Read, ExpireAt: exp}}}
	bound, err := g.client.GrantPermit(ctx, ownerKey, good)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		edit func(r *rpc.ManageGrantsRequest)
		path string
	}{
		"the relay as grantee": {func(r *rpc.ManageGrantsRequest) { r.Entries = steal.Entries }, "permit.message.entriesHash"},
		"the relay added": {func(r *rpc.ManageGrantsRequest) {
			r.Entries = append(append([]rpc.GrantEntry{}, good.Entries...), steal.Entries[0])
		}, "permit.message.entriesHash"},
		"more rights": {func(r *rpc.ManageGrantsRequest) {
			r.Entries = []rpc.GrantEntry{{Grantee: aud, Rights: grant.All, ExpireAt: exp}}
		}, "permit.message.entriesHash"},
		"a later expiry": {func(r *rpc.ManageGrantsRequest) {
			r.Entries = []rpc.GrantEntry{{Grantee: aud, Rights: grant.Read, ExpireAt: exp + 1}}
		}, "permit.message.entriesHash"},
		"another session ref": {func(r *rpc.ManageGrantsRequest) { r.SessionID = json.RawMessage(`10`) }, "permit.message.entriesHash"},
		"another RID":         {func(r *rpc.ManageGrantsRequest) { r.RID = st2.RID.String() }, "permit.message.rid"},
		"another scope":       {func(r *rpc.ManageGrantsRequest) { r.Scope = json.RawMessage(`1`) }, "permit.message.scope"},
	} {
		t.Run("bound permit refused: "+name, func(t *testing.T) {
			before := countKeys(t, rdb)
			req := good
			tc.edit(&req)
			req.Permit = bound
			_, err := g.client.ManageGrantsWith(ctx, req)
			refused(t, err, rpc.CodePermit, "request-mismatch")
			if !strings.Contains(err.Error(), tc.path) {
				t.Errorf("the refusal does not name %s: %v", tc.path, err)
			}
			if after := countKeys(t, rdb); after != before {
				t.Fatalf("a refused change wrote keys (%d -> %d)", before, after)
			}
		})
	}

	t.Run("the bound permit works end to end", func(t *testing.T) {
		// Sent in another spelling: checksummed addresses, the scope and
		// the session id as strings.
		req := good
		req.Owner, req.Scope, req.SessionID = addr(ownerKey).Hex(), json.RawMessage(`"2"`), json.RawMessage(`"9"`)
		req.Entries = []rpc.GrantEntry{{Grantee: addr(auditorKey).Hex(), Rights: grant.Read, ExpireAt: exp}}
		req.Permit = bound
		res, err := g.client.ManageGrantsWith(ctx, req)
		if err != nil || res.Upserted != 1 {
			t.Fatalf("the rightful change: %+v %v", res, err)
		}
		if _, err := g.client.StepLog(ctx, auditorKey, own, "9", "1"); err != nil {
			t.Fatalf("the granted auditor: %v", err)
		}
		// The client signs GrantPermits itself: a revoke.
		res, err = g.client.ManageGrants(ctx, ownerKey, rpc.ManageGrantsRequest{RID: st1.RID.String(), Scope: json.RawMessage(`2`), Owner: own,
			Entries: []rpc.GrantEntry{{Grantee: aud}}})
		if err != nil || res.Revoked != 1 {
			t.Fatalf("revoke: %+v %v", res, err)
		}
		// The relay that carried the permit sends it again to restore the
		// grant the owner revoked: a GrantPermit changes grants once.
		before := countKeys(t, rdb)
		_, err = g.client.ManageGrantsWith(ctx, req)
		refused(t, err, rpc.CodeConflict, "permit-used")
		if after := countKeys(t, rdb); after != before {
			t.Fatalf("a replayed permit wrote keys (%d -> %d)", before, after)
		}
		if _, err := g.client.StepLog(ctx, auditorKey, own, "9", "1"); err == nil {
			t.Fatal("the replayed permit gave the revoked auditor its grant back")
		}
	})

	t.Run("no permit", func(t *testing.T) {
		_, err := g.client.ManageGrantsWith(ctx, good)
		refused(t, err, rpc.CodeInvalidParams, "invalid-params")
		if !strings.Contains(err.Error(), "GrantPermit") {
			t.Errorf("the refusal does not name the GrantPermit: %v", err)
		}
	})
}

// TestUnboundGrantPermitSetting: --rpc-allow-unbound-grant-permits lets
// xgr_manageGrants take an xdalaPermit again (the client's Unbound signs
// one); --rpc-require-bound-permits overrides it.
func TestUnboundGrantPermitSetting(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	ctx := context.Background()
	for _, tc := range []struct {
		name                string
		allow, requireBound bool
		accepted            bool
	}{
		{"allowed", true, false, true},
		{"allowed but all bound required", true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newEvidenceGatewayCfg(t, rdb, nil, nil, func(c *rpc.Config) {
				c.AllowUnboundGrantPermits, c.RequireBoundPermits = tc.allow, tc.requireBound
			})
			own, aud := lower(addr(g.keys[0])), lower(addr(g.keys[1]))
			st := g.putBundle(t, own, int64(len(tc.name)))
			g.client.Unbound = true
			res, err := g.client.ManageGrants(ctx, g.keys[0], rpc.ManageGrantsRequest{RID: st.RID.String(), Scope: json.RawMessage(`2`), Owner: own,
				Entries: []rpc.GrantEntry{{Grantee: aud, Rights: grant.Read, ExpireAt: uint64(time.Now().Add(time.Hour).Unix())}}})
			if !tc.accepted {
				refused(t, err, rpc.CodePermit, "unbound-permit")
				if !strings.Contains(err.Error(), "--rpc-require-bound-permits") {
					t.Errorf("the refusal does not name the setting: %v", err)
				}
				return
			}
			if err != nil || res.Upserted != 1 {
				t.Fatalf("%+v %v", res, err)
			}
		})
	}
}
