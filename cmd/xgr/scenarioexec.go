package main

import (
	"crypto/ecdsa"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/devnet"
	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/replica"
	"github.com/xgr-sidecar/xgr/txmanager"
)

// scenarioExecutor is the executor of a scenario run's executions:
// always on, any target (the run deploys its own contracts), final once
// mined. The executor key is XGR_EXECUTOR_KEY or --executor-keystore with
// --password-file when given, else the last development account no actor
// uses (funded on anvil). It returns the executor and where its key came
// from.
func scenarioExecutor(c *cli.Context, actors map[string]*ecdsa.PrivateKey) (*replica.Executions, string, error) {
	var key *ecdsa.PrivateKey
	source := "XGR_EXECUTOR_KEY"
	if c.String("executor-keystore") != "" || os.Getenv(execution.KeyEnv) != "" {
		k, err := execution.LoadKey(c.String("executor-keystore"), c.String("password-file"), os.Getenv)
		if err != nil {
			return nil, "", cli.Exit("scenario run: executions: "+err.Error(), 2)
		}
		if c.String("executor-keystore") != "" {
			source = "--executor-keystore"
		}
		key = k
	} else {
		dev, err := devnet.DevKeys(devnet.DevAccounts)
		if err != nil {
			return nil, "", err
		}
		used := map[string]bool{}
		for _, k := range actors {
			used[chain.Address(k).Hex()] = true
		}
		for i := len(dev) - 1; i >= 0 && key == nil; i-- {
			if !used[chain.Address(dev[i]).Hex()] {
				key, source = dev[i], fmt.Sprintf("development account %d", i)
			}
		}
		if key == nil {
			return nil, "", cli.Exit(fmt.Sprintf("scenario run: executions: every development account is an actor's; give the executor key in %s or --executor-keystore", execution.KeyEnv), 2)
		}
	}
	x := execution.DefaultConfig()
	x.Enabled, x.Policy.AnyTarget = true, true
	return &replica.Executions{Policy: x, Key: key, Finality: txmanager.Finality{Mode: "confirmations", Confirmations: 1}, Poll: 50 * time.Millisecond}, source, nil
}

// executorLine is the report's line about the executor.
func executorLine(executor, source string) string {
	return fmt.Sprintf("executor %s (%s): steps' executions are sent, to any target, final once mined", executor, source)
}
