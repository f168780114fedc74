package redisconn_test

import (
	"context"
	"errors"
	"testing"

	"github.com/xgr-sidecar/xgr/redisconn"
	"github.com/xgr-sidecar/xgr/testenv"
)

// CheckSchema records the first schema, raises it for a build that shares
// Redis with the recorded one (or on the operator's word), lets an older
// build the recorded one shares with coexist, and refuses the others
// without writing.
func TestCheckSchema(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	ctx := context.Background()
	check := func(v, c int, upgrade bool) (redisconn.SchemaVerdict, error) {
		verdict, _, err := redisconn.CheckSchema(ctx, rdb, redisconn.Schema{Version: v, CompatibleSince: c}, upgrade, "test")
		return verdict, err
	}
	recorded := func() string { return rdb.HGet(ctx, redisconn.SchemaKey, "version").Val() }
	steps := []struct {
		v, c    int
		upgrade bool
		want    redisconn.SchemaVerdict
		refused string // "older" or "newer"
		after   string
	}{
		{2, 1, false, redisconn.SchemaSet, "", "2"},
		{2, 1, false, redisconn.SchemaSame, "", "2"},
		{1, 1, false, redisconn.SchemaCoexist, "", "2"},
		{3, 2, false, redisconn.SchemaRaised, "", "3"},
		{1, 1, false, "", "newer", "3"},
		{5, 4, false, "", "older", "3"},
		{5, 4, true, redisconn.SchemaRaised, "", "5"},
		{3, 2, false, "", "newer", "5"},
	}
	for i, s := range steps {
		got, err := check(s.v, s.c, s.upgrade)
		var se *redisconn.SchemaError
		switch {
		case s.refused != "" && (!errors.As(err, &se) || se.Newer != (s.refused == "newer")):
			t.Errorf("step %d (schema %d since %d): %v, want a refusal (%s)", i, s.v, s.c, err, s.refused)
		case s.refused == "" && (err != nil || got != s.want):
			t.Errorf("step %d (schema %d since %d): %q %v, want %q", i, s.v, s.c, got, err, s.want)
		}
		if r := recorded(); r != s.after {
			t.Errorf("step %d: recorded schema %s, want %s", i, r, s.after)
		}
	}
	if _, err := redisconn.BuildSchema(); err != nil {
		t.Errorf("this build's schema: %v", err)
	}
}
