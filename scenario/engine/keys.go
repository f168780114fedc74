package engine

import (
	"crypto/ecdsa"
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/devnet"
	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/replica"
	"github.com/xgr-sidecar/xgr/txmanager"
)

// Given is where a key given for an actor came from ("--actor").
const Given = "--actor"

// ActorKeys gives every alias a file uses a key: the given ones as they
// are, the others the development accounts in order of first use,
// skipping accounts a given key already is. It returns the keys and, by
// alias, where each came from ("--actor", "development account N"); given
// keys of aliases the file does not use are kept (harmless).
func ActorKeys(aliases []string, given map[string]*ecdsa.PrivateKey) (map[string]*ecdsa.PrivateKey, map[string]string, error) {
	dev, err := devnet.DevKeys(devnet.DevAccounts)
	if err != nil {
		return nil, nil, err
	}
	used := usedAccounts(given)
	keys, source := map[string]*ecdsa.PrivateKey{}, map[string]string{}
	next := 0
	for _, a := range aliases {
		if k, ok := given[a]; ok {
			keys[a], source[a] = k, Given
			continue
		}
		for next < len(dev) && used[chain.Address(dev[next])] {
			next++
		}
		if next >= len(dev) {
			return nil, nil, fmt.Errorf("the file uses %d actors (%s) and only %d development keys exist: give the others with --actor ALIAS=0xKEY", len(aliases), strings.Join(aliases, ", "), len(dev))
		}
		keys[a], source[a] = dev[next], fmt.Sprintf("development account %d", next)
		used[chain.Address(dev[next])] = true
		next++
	}
	for a, k := range given {
		if _, ok := keys[a]; !ok {
			keys[a], source[a] = k, Given+" (unused by the file)"
		}
	}
	return keys, source, nil
}

// ExecutorKey is the key of a run's executions when none is given: the
// last development account no actor uses (funded on anvil), and where it
// came from ("development account N").
func ExecutorKey(actors map[string]*ecdsa.PrivateKey) (*ecdsa.PrivateKey, string, error) {
	dev, err := devnet.DevKeys(devnet.DevAccounts)
	if err != nil {
		return nil, "", err
	}
	used := usedAccounts(actors)
	for i := len(dev) - 1; i >= 0; i-- {
		if !used[chain.Address(dev[i])] {
			return dev[i], fmt.Sprintf("development account %d", i), nil
		}
	}
	return nil, "", fmt.Errorf("every development account is an actor's; give the executor key in %s or --executor-keystore", execution.KeyEnv)
}

// Executions are a run's executions, sent with key: always on, to any
// target (the run deploys its own contracts), final once mined.
func Executions(key *ecdsa.PrivateKey) *replica.Executions {
	x := execution.DefaultConfig()
	x.Enabled, x.Policy.AnyTarget = true, true
	return &replica.Executions{Policy: x, Key: key, Finality: txmanager.Finality{Mode: "confirmations", Confirmations: 1}, Poll: 50 * time.Millisecond}
}

// usedAccounts are the accounts of keys.
func usedAccounts(keys map[string]*ecdsa.PrivateKey) map[common.Address]bool {
	used := map[common.Address]bool{}
	for _, k := range keys {
		used[chain.Address(k)] = true
	}
	return used
}
