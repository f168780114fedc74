package testenv

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// DeployLegacyRule deploys a contracts/testdata/LegacyRule.sol holding text
// from development key i: a rule contract with owner() but no executor
// allowlist (no getExecutorList()), as deployments made before the executor
// extension. It fails the test unless the deployment is mined successfully.
func DeployLegacyRule(t testing.TB, c Chain, i int, text string) common.Address {
	t.Helper()
	parsed, code := testdataArtifact(t, "LegacyRule")
	input, err := parsed.Pack("", text)
	if err != nil {
		t.Fatalf("testenv: LegacyRule constructor: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deployTimeout)
	defer cancel()
	r, err := Sender(t, c, i).Deploy(ctx, "deploy LegacyRule", code, input)
	if err != nil {
		t.Fatalf("testenv: deploy LegacyRule: %v", err)
	}
	return r.ContractAddress
}
