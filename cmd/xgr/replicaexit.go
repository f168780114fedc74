package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/replica"
)

// replicaExit is an error of package replica in the command's words: the
// flag behind the part of the replica that failed, exit 2 for a
// configuration that cannot work and 1 for anything else. Other errors
// (nil included) pass through.
func replicaExit(c *cli.Context, err error) error {
	var re *replica.Error
	if !errors.As(err, &re) {
		return err
	}
	code := exitFailed
	if re.Usage {
		code = exitUsage
	}
	what := ""
	switch re.Part {
	case replica.PartBackend:
		what = "--rpc-backend " + re.Name + ": "
	case replica.PartTracing:
		what = "--otlp-endpoint: "
	case replica.PartEvidence:
		what = "--log-expire-days, --log-max-days: "
	case replica.PartChecks:
		what = "--require-aof: "
	case replica.PartSchema:
		what = "redis schema: "
	case replica.PartExecutions:
		what = "executions: "
	case replica.PartIndex:
		what = "indexer: "
	case replica.PartListener:
		what = fmt.Sprintf("--%s %s: ", re.Name, re.Addr)
	case replica.PartDrain:
		return cli.Exit(fmt.Sprintf("%s: stopped without draining: %v; other replicas take its sessions over when its leases expire (--root-lease, and --proc-lease for executions in flight)", cmdName(c), re.Err), code)
	}
	return cli.Exit(cmdName(c)+": "+what+re.Err.Error(), code)
}
