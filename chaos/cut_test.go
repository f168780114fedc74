//go:build chaos

package chaos

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/session"
)

// cutEvery: every cutEvery-th start of a run is cut before its last call
// and never retried.
const cutEvery = 10

// errCut stands for the last call of a start failing (a dropped
// connection, the index shard's master failing over) with the caller gone.
var errCut = errors.New("chaos: start cut before its last call")

// cutHook fails the last call of a start: the root index write at the
// session's due time (a ZADD on a root index shard without NX, XX, GT or
// LT; the start's earlier index entry is written with NX).
type cutHook struct{}

func (cutHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (cutHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if lastStartCall(cmd.Args()) {
			cmd.SetErr(errCut)
			return errCut
		}
		return next(ctx, cmd)
	}
}

func (cutHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func lastStartCall(args []any) bool {
	if len(args) < 4 || !strings.EqualFold(fmt.Sprint(args[0]), "zadd") || !strings.HasPrefix(fmt.Sprint(args[1]), "xgr:{q:") {
		return false
	}
	for _, a := range args[2:] {
		switch strings.ToLower(fmt.Sprint(a)) {
		case "nx", "xx", "gt", "lt":
			return false
		}
	}
	return true
}

// cutStore is a store on its own client whose starts are cut before their
// last call, with a short StartGrace so that replicas find the sessions of
// cut starts within the run's settle time.
func cutStore(rdb redis.UniversalClient) *joinstore.Store {
	rdb.AddHook(cutHook{})
	return joinstore.New(rdb, joinstore.Config{StartGrace: 2 * time.Second})
}

// cutStart starts req on the cut store. ok is true when the start was cut
// as planned: its session exists or not, and no one retries it; root is
// the root pid its key names. Any other outcome (Redis down at that
// moment) returns ok false: the caller starts it the usual way, with the
// same key.
func (rn *run) cutStart(src reactor.Source, req session.Request) (root joinstore.Root, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err := session.Starter{Store: rn.cut, Source: src}.Start(ctx, req)
	if !errors.Is(err, errCut) {
		return joinstore.Root{}, false
	}
	n, err := rn.rdb.HGet(ctx, "xgr:{own:"+rn.owner+"}:idem", req.Key).Int64()
	if err != nil {
		return joinstore.Root{}, false
	}
	rn.cuts.Add(1)
	return joinstore.Root{Owner: rn.owner, RootPid: n}, true
}
