package grant

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var (
	now     = time.Unix(1_800_000_000, 0)
	rid     = RID{1, 2, 3}
	owner   = "0x00000000000000000000000000000000000000aa"
	manager = "0x00000000000000000000000000000000000000bb"
	reader  = "0x00000000000000000000000000000000000000cc"
	other   = "0x00000000000000000000000000000000000000dd"
)

func g(who string, rights uint8, exp time.Duration, isOwner bool) *Grant {
	return &Grant{RID: rid, Scope: ScopeRule, Grantee: who, Rights: rights, ExpireAt: now.Add(exp), IsOwner: isOwner, Owner: owner}
}

func TestMayRead(t *testing.T) {
	for name, tc := range map[string]struct {
		g     *Grant
		who   string
		scope uint8
		rid   RID
		want  bool
	}{
		"read":                  {g(reader, Read, time.Hour, false), reader, ScopeRule, rid, true},
		"read+write+manage":     {g(reader, All, time.Hour, false), reader, ScopeRule, rid, true},
		"owner":                 {g(owner, RightWrite, time.Hour, true), owner, ScopeRule, rid, true},
		"none (revoked)":        {nil, reader, ScopeRule, rid, false},
		"expired":               {g(reader, Read, -time.Second, false), reader, ScopeRule, rid, false},
		"expires now":           {g(reader, Read, 0, false), reader, ScopeRule, rid, false},
		"write and manage only": {g(reader, RightWrite|Manage, time.Hour, false), reader, ScopeRule, rid, false},
		"rights 0":              {g(reader, 0, time.Hour, false), reader, ScopeRule, rid, false},
		"wrong scope":           {g(reader, Read, time.Hour, false), reader, ScopeLog, rid, false},
		"another rid":           {g(reader, Read, time.Hour, false), reader, ScopeRule, RID{9}, false},
		"someone else's grant":  {g(reader, Read, time.Hour, false), other, ScopeRule, rid, false},
		"expired owner":         {g(owner, All, -time.Second, true), owner, ScopeRule, rid, false},
	} {
		if got := MayRead(tc.g, tc.who, tc.rid, tc.scope, now); got != tc.want {
			t.Errorf("%s: MayRead = %v, want %v", name, got, tc.want)
		}
	}
	if MayManage(g(reader, Read|RightWrite, time.Hour, false), reader, rid, ScopeRule, now) {
		t.Error("a grant without MANAGE manages")
	}
	if !MayManage(g(manager, Manage, time.Hour, false), manager, rid, ScopeRule, now) || !MayManage(g(owner, Read, time.Hour, true), owner, rid, ScopeRule, now) {
		t.Error("MANAGE or the owner grant does not manage")
	}
	if MayManage(g(manager, Manage, -time.Second, false), manager, rid, ScopeRule, now) {
		t.Error("an expired MANAGE grant manages")
	}
}

func TestDecide(t *testing.T) {
	e := func(who string, rights uint8, exp time.Duration) Entry {
		return Entry{Grantee: who, Rights: rights, ExpireAt: now.Add(exp), EncDEK: "0x0304"}
	}
	// The rule contract of rid: its owner() is owner.
	rf := &RuleFacts{Contract: "0x00000000000000000000000000000000000000ee", Owner: owner, RID: rid}
	// A grant other wrote for itself or for someone, when it took the RID
	// first (the first-writer rule of old).
	stolen := func(who string, rights uint8, isOwner bool) *Grant {
		return &Grant{RID: rid, Scope: ScopeRule, Grantee: who, Rights: rights, ExpireAt: now.Add(3650 * 24 * time.Hour), IsOwner: isOwner, Owner: other, GrantedBy: other}
	}
	ownerView := View{Actor: g(owner, All, 48*time.Hour, true), Live: 1, Rule: rf}
	mgrView := View{Actor: g(manager, Read|Manage, 24*time.Hour, false), Live: 2, Existing: map[string]*Grant{owner: g(owner, All, 48*time.Hour, true)}, Rule: rf}
	otherRID := *rf
	otherRID.RID = RID{9}
	noOwner := *rf
	noOwner.Owner = ""
	for name, tc := range map[string]struct {
		c      Change
		v      View
		reason string // "" = allowed
		writes int
	}{
		"owner grants":              {Change{RID: rid, Scope: ScopeRule, Actor: owner, Entries: []Entry{e(reader, Read, time.Hour), e(other, All, time.Hour)}}, ownerView, "", 2},
		"owner revokes":             {Change{RID: rid, Scope: ScopeRule, Actor: owner, Entries: []Entry{e(reader, 0, 0)}}, ownerView, "", 1},
		"owner renews its own":      {Change{RID: rid, Scope: ScopeRule, Actor: owner, Entries: []Entry{{Grantee: owner, Rights: All, ExpireAt: now.Add(time.Hour), IsOwner: true}}}, View{Actor: ownerView.Actor, Live: 1, Existing: map[string]*Grant{owner: ownerView.Actor}, Rule: rf}, "", 1},
		"owner revokes its own":     {Change{RID: rid, Scope: ScopeRule, Actor: owner, Entries: []Entry{e(owner, 0, 0)}}, View{Actor: ownerView.Actor, Live: 1, Existing: map[string]*Grant{owner: ownerView.Actor}, Rule: rf}, "owner-entry", 0},
		"owner makes another owner": {Change{RID: rid, Scope: ScopeRule, Actor: owner, Entries: []Entry{{Grantee: reader, Rights: Read, ExpireAt: now.Add(time.Hour), IsOwner: true}}}, ownerView, "owner-entry", 0},
		"manager grants within":     {Change{RID: rid, Scope: ScopeRule, Actor: manager, Entries: []Entry{e(reader, Read, time.Hour)}}, mgrView, "", 1},
		"manager exceeds rights":    {Change{RID: rid, Scope: ScopeRule, Actor: manager, Entries: []Entry{e(reader, Read|RightWrite, time.Hour)}}, mgrView, "rights-exceed", 0},
		"manager exceeds expiry":    {Change{RID: rid, Scope: ScopeRule, Actor: manager, Entries: []Entry{e(reader, Read, 25*time.Hour)}}, mgrView, "expiry-exceeds", 0},
		"manager revokes the owner": {Change{RID: rid, Scope: ScopeRule, Actor: manager, Entries: []Entry{e(owner, 0, 0)}}, mgrView, "owner-entry", 0},
		"reader without MANAGE":     {Change{RID: rid, Scope: ScopeRule, Actor: reader, Entries: []Entry{e(other, Read, time.Hour)}}, View{Actor: g(reader, Read|RightWrite, time.Hour, false), Live: 2, Rule: rf}, "not-manager", 0},
		"expired manager":           {Change{RID: rid, Scope: ScopeRule, Actor: manager, Entries: []Entry{e(other, Read, time.Minute)}}, View{Actor: g(manager, All, -time.Second, false), Live: 1, Rule: rf}, "not-manager", 0},
		"stranger on a taken RID":   {Change{RID: rid, Scope: ScopeRule, Actor: other, Entries: []Entry{{Grantee: other, Rights: All, ExpireAt: now.Add(time.Hour), IsOwner: true}}}, View{Live: 1, Rule: rf}, "not-manager", 0},
		// Issue 38 High 2: a rule RID is its contract owner's, never its
		// first writer's.
		"first writer of a rule RID":           {Change{RID: rid, Scope: ScopeRule, Actor: other, Entries: []Entry{{Grantee: other, Rights: All, ExpireAt: now.Add(time.Hour), IsOwner: true}, e(reader, Read, time.Hour)}}, View{Rule: rf}, "not-manager", 0},
		"first writer, no contract named":      {Change{RID: rid, Scope: ScopeRule, Actor: other, Entries: []Entry{{Grantee: other, Rights: All, ExpireAt: now.Add(time.Hour), IsOwner: true}}}, View{}, "rule-contract-required", 0},
		"a contract holding another RID":       {Change{RID: rid, Scope: ScopeRule, Actor: other, Entries: []Entry{{Grantee: other, Rights: All, ExpireAt: now.Add(time.Hour), IsOwner: true}}}, View{Rule: &otherRID}, "rid-not-of-contract", 0},
		"a contract without owner()":           {Change{RID: rid, Scope: ScopeRule, Actor: owner, Entries: []Entry{e(reader, Read, time.Hour)}}, View{Rule: &noOwner}, "not-manager", 0},
		"contract owner's first grant":         {Change{RID: rid, Scope: ScopeRule, Actor: owner, Entries: []Entry{{Grantee: owner, Rights: All, ExpireAt: now.Add(time.Hour), IsOwner: true}, e(reader, Read, time.Hour)}}, View{Rule: rf}, "", 2},
		"contract owner without own grant":     {Change{RID: rid, Scope: ScopeRule, Actor: owner, Entries: []Entry{e(reader, Read, time.Hour)}}, View{Rule: rf}, "", 1},
		"stranger's owner grant is void":       {Change{RID: rid, Scope: ScopeRule, Actor: other, Entries: []Entry{e(manager, Read, time.Hour)}}, View{Actor: stolen(other, All, true), Live: 2, Rule: rf}, "not-manager", 0},
		"owner overwrites a stranger's grants": {Change{RID: rid, Scope: ScopeRule, Actor: owner, Entries: []Entry{{Grantee: owner, Rights: All, ExpireAt: now.Add(time.Hour), IsOwner: true}, e(reader, Read, time.Hour), e(other, 0, 0)}}, View{Actor: stolen(owner, Read, false), Live: 3, Existing: map[string]*Grant{other: stolen(other, All, true), reader: stolen(reader, Read, false)}, Rule: rf}, "", 3},
		"a manager the stranger named":         {Change{RID: rid, Scope: ScopeRule, Actor: manager, Entries: []Entry{e(reader, Read, time.Hour)}}, View{Actor: stolen(manager, Read|Manage, false), Live: 2, Rule: rf}, "not-manager", 0},
		"bootstrap without owner entry":        {Change{RID: rid, Scope: ScopeLog, Actor: other, Entries: []Entry{e(reader, Read, time.Hour)}}, View{}, "not-manager", 0},
		"bootstrap of a log RID":               {Change{RID: rid, Scope: ScopeLog, Actor: other, Entries: []Entry{{Grantee: other, Rights: All, ExpireAt: now.Add(time.Hour), IsOwner: true}}}, View{}, "not-manager", 0},
		"scope 3":                              {Change{RID: rid, Scope: 3, Actor: owner, Entries: []Entry{e(reader, Read, time.Hour)}}, ownerView, "invalid-scope", 0},
		"no entries":                           {Change{RID: rid, Scope: ScopeRule, Actor: owner}, ownerView, "invalid-entries", 0},
		"grantee twice":                        {Change{RID: rid, Scope: ScopeRule, Actor: owner, Entries: []Entry{e(reader, Read, time.Hour), e(reader, 0, 0)}}, ownerView, "invalid-entry", 0},
		"expiry past":                          {Change{RID: rid, Scope: ScopeRule, Actor: owner, Entries: []Entry{e(reader, Read, -time.Second)}}, ownerView, "invalid-entry", 0},
		"expiry too far":                       {Change{RID: rid, Scope: ScopeRule, Actor: owner, Entries: []Entry{e(reader, Read, MaxLifetime+time.Hour)}}, ownerView, "invalid-entry", 0},
		"rights 8":                             {Change{RID: rid, Scope: ScopeRule, Actor: owner, Entries: []Entry{e(reader, 8, time.Hour)}}, ownerView, "invalid-entry", 0},
		"upper-case grantee":                   {Change{RID: rid, Scope: ScopeRule, Actor: owner, Entries: []Entry{e(strings.ToUpper(reader[:3])+reader[3:], Read, time.Hour)}}, ownerView, "invalid-entry", 0},
		"bad encDEK":                           {Change{RID: rid, Scope: ScopeRule, Actor: owner, Entries: []Entry{{Grantee: reader, Rights: Read, ExpireAt: now.Add(time.Hour), EncDEK: "plain text"}}}, ownerView, "invalid-entry", 0},
	} {
		p, err := Decide(tc.c, tc.v, now)
		if tc.reason == "" {
			if err != nil {
				t.Errorf("%s: refused: %v", name, err)
			} else if len(p.Writes) != tc.writes {
				t.Errorf("%s: %d writes, want %d", name, len(p.Writes), tc.writes)
			}
			continue
		}
		var r *Refusal
		if !errors.As(err, &r) || r.Reason != tc.reason {
			t.Errorf("%s: got %v, want refusal %s", name, err, tc.reason)
		}
	}
}
