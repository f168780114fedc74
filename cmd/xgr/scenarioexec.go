package main

import (
	"crypto/ecdsa"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/replica"
	"github.com/xgr-sidecar/xgr/scenario/engine"
)

// scenarioExecutor is the executor of a scenario run's executions
// (engine.Executions): its key is XGR_EXECUTOR_KEY or --executor-keystore
// with --password-file when given, else the last development account no
// actor uses. It returns the executor and where its key came from.
func scenarioExecutor(c *cli.Context, actors map[string]*ecdsa.PrivateKey) (*replica.Executions, string, error) {
	if c.String("executor-keystore") == "" && os.Getenv(execution.KeyEnv) == "" {
		key, source, err := engine.ExecutorKey(actors)
		if err != nil {
			return nil, "", cli.Exit("scenario run: executions: "+err.Error(), 2)
		}
		return engine.Executions(key), source, nil
	}
	key, err := execution.LoadKey(c.String("executor-keystore"), c.String("password-file"), os.Getenv)
	if err != nil {
		return nil, "", cli.Exit("scenario run: executions: "+err.Error(), 2)
	}
	source := execution.KeyEnv
	if c.String("executor-keystore") != "" {
		source = "--executor-keystore"
	}
	return engine.Executions(key), source, nil
}

// executorLine is the report's line about the executor.
func executorLine(executor, source string) string {
	return fmt.Sprintf("executor %s (%s): steps' executions are sent, to any target, final once mined", executor, source)
}
