package redisconn

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/luascript"
)

// The Redis layout's schema version of this build, and the oldest schema
// version whose replicas may share Redis with it during a rolling
// upgrade. Strings so that a build can set them (-ldflags -X, as the
// rolling-upgrade test does); CHANGELOG.md lists them per release.
var (
	SchemaVersion         = "2"
	SchemaCompatibleSince = "1"
)

// SchemaKey is the hash that records the schema of the Redis layout: the
// newest schema version a replica started with (version), the oldest one
// that may share it (compatibleSince), and that replica's build.
const SchemaKey = "xgr:schema"

// Schema is a schema version and the oldest one that may share Redis
// with it.
type Schema struct {
	Version, CompatibleSince int
}

// BuildSchema is this build's Schema (SchemaVersion,
// SchemaCompatibleSince).
func BuildSchema() (Schema, error) {
	v, err := strconv.Atoi(SchemaVersion)
	if err != nil || v < 1 {
		return Schema{}, fmt.Errorf("this build's schema version %q is not a positive integer", SchemaVersion)
	}
	c, err := strconv.Atoi(SchemaCompatibleSince)
	if err != nil || c < 1 || c > v {
		return Schema{}, fmt.Errorf("this build's compatible schema %q is not an integer from 1 to %d", SchemaCompatibleSince, v)
	}
	return Schema{v, c}, nil
}

// SchemaVerdict is what CheckSchema found.
type SchemaVerdict string

// The verdicts of CheckSchema ("older" and "newer" are refusals: an
// *SchemaError).
const (
	SchemaSet     SchemaVerdict = "set"
	SchemaSame    SchemaVerdict = "same"
	SchemaRaised  SchemaVerdict = "raised"
	SchemaCoexist SchemaVerdict = "coexist"
)

// SchemaError refuses a build whose schema cannot share Redis with the
// one recorded there.
type SchemaError struct {
	// Newer: the recorded schema is newer than this build's and does not
	// share with it (upgrade this replica); else older, and this build
	// does not share with it (stop the older replicas, then start with
	// --upgrade-schema).
	Newer        bool
	Mine, Stored Schema
	StoredBuild  string
}

func (e *SchemaError) Error() string {
	if e.Newer {
		return fmt.Sprintf("redis holds schema %d (written by xgr %s; it shares Redis with schema %d or later), and this build's schema is %d: upgrade this replica to a release of schema %d or later (CHANGELOG.md)",
			e.Stored.Version, e.StoredBuild, e.Stored.CompatibleSince, e.Mine.Version, e.Stored.CompatibleSince)
	}
	return fmt.Sprintf("redis holds schema %d (written by xgr %s), and this build (schema %d) shares Redis only with schema %d or later: stop every replica of the older release (they drain), then start this one with --upgrade-schema (CHANGELOG.md says which releases need it)",
		e.Stored.Version, e.StoredBuild, e.Mine.Version, e.Mine.CompatibleSince)
}

//go:embed lua/*.lua
var luaFS embed.FS

var scriptSchema = luascript.New("redisconn", luaFS).Load("schema")

// CheckSchema checks this build's schema (mine) against the one recorded
// in Redis and records the newer one when they may share Redis (or when
// upgrade says every older replica is stopped), in one atomic step. It
// returns what it found and the recorded schema before it; a refusal is
// an *SchemaError and writes nothing. build names this build in the
// record.
func CheckSchema(ctx context.Context, rdb redis.Scripter, mine Schema, upgrade bool, build string) (SchemaVerdict, Schema, error) {
	up := ""
	if upgrade {
		up = "1"
	}
	res, err := scriptSchema.Run(ctx, rdb, []string{SchemaKey}, mine.Version, mine.CompatibleSince, up, build).StringSlice()
	if err != nil {
		return "", Schema{}, fmt.Errorf("check the redis schema (%s): %w", SchemaKey, err)
	}
	if len(res) != 4 {
		return "", Schema{}, errors.New("check the redis schema: unexpected reply")
	}
	var stored Schema
	stored.Version, _ = strconv.Atoi(res[1])
	stored.CompatibleSince, _ = strconv.Atoi(res[2])
	switch v := SchemaVerdict(res[0]); v {
	case "older":
		return v, stored, &SchemaError{Mine: mine, Stored: stored, StoredBuild: res[3]}
	case "newer":
		return v, stored, &SchemaError{Newer: true, Mine: mine, Stored: stored, StoredBuild: res[3]}
	default:
		return v, stored, nil
	}
}
