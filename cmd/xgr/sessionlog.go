package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/session"
)

// sessionLogCommand is `xgr session log`: a step's log bundle, from Redis.
func sessionLogCommand() *cli.Command {
	return &cli.Command{
		Name:      "log",
		Usage:     "show the log bundle a step left: payload, saves, outcome, receipt",
		ArgsUsage: "ROOTPID PID",
		Description: `Reads the log bundle of process PID ("7:3" or the iteration "3") of the
session from Redis, as an operator with access to it (the gateway's
xgr_getStepLog serves owners and grantees). A bundle lives for its branch's
logExpireDays (default 30 days) after the step, also after the session's
records expired. An encrypted bundle (encryptLogs) is shown as its XGR1
envelope and RID. See docs/runtime.md#evidence-and-its-lifetime.

Example:
   xgr session log --owner 0xabc… 7 3 --json`,
		Flags:  append(append(redisFlags(), ownerFlag()), jsonFlag()),
		Action: sessionLogAction,
	}
}

func sessionLogAction(c *cli.Context) error {
	root, rest, err := rootArg(c)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usageError("%s: name the ROOTPID and one PID", cmdName(c))
	}
	its, err := session.ParseIters(root, rest)
	if err != nil {
		return usageError("%s: %v", cmdName(c), err)
	}
	rdb, _, err := openRedis(c)
	if err != nil {
		return err
	}
	defer rdb.Close()
	st, err := evidence.New(rdb, evidence.Config{Grants: grant.New(rdb)})
	if err != nil {
		return err
	}
	out, err := st.Log(c.Context, root.Owner, root.RootPid, its[0])
	if errors.Is(err, evidence.ErrNotFound) {
		return cli.Exit(fmt.Sprintf("%s: process %d:%d of %s: %v", cmdName(c), root.RootPid, its[0], root.Owner, err), 1)
	} else if err != nil {
		return cli.Exit(fmt.Sprintf("%s: %v", cmdName(c), err), 1)
	}
	if c.Bool("json") {
		return json.NewEncoder(c.App.Writer).Encode(out)
	}
	_, err = fmt.Fprint(c.App.Writer, out.Text())
	return err
}
