package console

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestParseQuery(t *testing.T) {
	const owner = "0x00000000000000000000000000000000000000aa"
	for _, tc := range []struct {
		query string
		want  Query
		err   string
	}{
		{"", Query{Sort: "created", Desc: true, Limit: 50}, ""},
		{"owner=0x00000000000000000000000000000000000000AA&status=live&sort=updated&order=asc&offset=5&limit=10",
			Query{Owner: owner, Status: "live", Sort: "updated", Offset: 5, Limit: 10}, ""},
		{"owner=alice", Query{}, `query owner: owner "alice": want an EVM address`},
		{"status=done", Query{}, `query status "done": want one of live, finished, killed (or none)`},
		{"sort=color", Query{}, `query sort "color": want one of created, updated, rootPid`},
		{"order=up", Query{}, `query order "up": want asc or desc`},
		{"limit=0", Query{}, `query limit "0": want a whole number from 1 to 500`},
		{"offset=-1", Query{}, `query offset "-1": want a whole number from 0 to`},
	} {
		v, _ := url.ParseQuery(tc.query)
		got, p := ParseQuery(v.Get)
		switch {
		case tc.err != "" && (p == nil || !strings.HasPrefix(p.Error, tc.err)):
			t.Errorf("%q: problem %v, want %q", tc.query, p, tc.err)
		case tc.err == "" && p != nil:
			t.Errorf("%q: %s", tc.query, p.Error)
		case tc.err == "" && !reflect.DeepEqual(got, tc.want):
			t.Errorf("%q: %+v, want %+v", tc.query, got, tc.want)
		}
	}
}

func TestPage(t *testing.T) {
	rows := []Row{
		{Owner: "0xb", RootPid: 1, Status: "finished", CreatedAt: 10, UpdatedAt: 50, Live: 0, OstcID: "b"},
		{Owner: "0xa", RootPid: 2, Status: "live", CreatedAt: 30, UpdatedAt: 31, Live: 3, OstcID: "a"},
		{Owner: "0xa", RootPid: 1, Status: "killed", CreatedAt: 20, UpdatedAt: 40, Live: 1, OstcID: "c"},
		{Owner: "0xa", RootPid: 3, Status: "live", CreatedAt: 30, UpdatedAt: 35, Live: 2, OstcID: "a"},
	}
	ids := func(rs []Row) string {
		var b strings.Builder
		for _, r := range rs {
			b.WriteString(r.Owner[2:] + string(rune('0'+r.RootPid)) + " ")
		}
		return strings.TrimSpace(b.String())
	}
	for _, tc := range []struct {
		q     Query
		want  string
		total int
	}{
		{Query{Sort: "created", Desc: true, Limit: 50}, "a3 a2 a1 b1", 4},
		{Query{Sort: "created", Limit: 50}, "b1 a1 a2 a3", 4},
		{Query{Sort: "updated", Desc: true, Limit: 2}, "b1 a1", 4},
		{Query{Sort: "updated", Desc: true, Offset: 2, Limit: 2}, "a3 a2", 4},
		{Query{Sort: "live", Limit: 50}, "b1 a1 a3 a2", 4},
		{Query{Sort: "ostcId", Limit: 50}, "a2 a3 b1 a1", 4},
		{Query{Sort: "rootPid", Limit: 50}, "a1 b1 a2 a3", 4},
		{Query{Status: "live", Sort: "created", Limit: 50}, "a2 a3", 2},
		{Query{Status: "killed", Sort: "created", Offset: 1, Limit: 50}, "", 1},
	} {
		got, total := Page(rows, tc.q)
		if ids(got) != tc.want || total != tc.total {
			t.Errorf("%+v: %q of %d, want %q of %d", tc.q, ids(got), total, tc.want, tc.total)
		}
	}
}
