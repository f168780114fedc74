// Package solc compiles Solidity sources with the pinned solc-js (the one
// scripts/install-tools.sh installs into .tools/) through its standard-JSON
// interface, with the settings of the repository's own contracts: the
// compiler driver of "xgr scenario run" for a plan's setup contracts.
package solc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/internal/toolbin"
)

// Pinned is the solc-js version scripts/install-tools.sh installs.
const Pinned = "0.8.30"

// Contract is one compiled contract.
type Contract struct {
	ABI      abi.ABI
	Bytecode []byte
	// Version is what the compiler says of itself (solc-js --version),
	// e.g. "0.8.30+commit.73712a01.Emscripten.clang".
	Version string
}

// Pinned reports whether the contract was compiled with the Pinned
// version.
func (c *Contract) Pinned() bool { return strings.HasPrefix(c.Version, Pinned+"+") }

// Compile compiles one source file (fileName, base name only; "" names it
// after the contract) with solc-js (toolbin "solcjs": $XGR_SOLCJS_BIN,
// .tools/bin, PATH), evmVersion cancun and the optimizer on with 200 runs,
// and returns the named contract. A source that does not compile is an
// error listing the compiler's error messages; a source without the
// contract names the contracts it has.
func Compile(ctx context.Context, fileName, code, contract string) (*Contract, error) {
	parsed, bytecode, err := compileStandardJSON(ctx, fileName, code, contract)
	if err != nil {
		return nil, err
	}
	bin, _ := toolbin.Find("solcjs")
	v, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("solc-js --version: %w", err)
	}
	return &Contract{ABI: parsed, Bytecode: bytecode, Version: strings.TrimSpace(string(v))}, nil
}

func compileStandardJSON(ctx context.Context, fileName, code, contract string) (abi.ABI, []byte, error) {
	bin, err := toolbin.Find("solcjs")
	if err != nil {
		return abi.ABI{}, nil, err
	}
	if fileName == "" {
		fileName = contract + ".sol"
	}
	fileName = filepath.Base(fileName)
	input, _ := json.Marshal(map[string]any{
		"language": "Solidity",
		"sources":  map[string]any{fileName: map[string]string{"content": code}},
		"settings": map[string]any{
			"evmVersion":      "cancun",
			"optimizer":       map[string]any{"enabled": true, "runs": 200},
			"outputSelection": map[string]any{"*": map[string]any{"*": []string{"abi", "evm.bytecode.object"}}},
		},
	})
	cmd := exec.CommandContext(ctx, bin, "--standard-json")
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return abi.ABI{}, nil, fmt.Errorf("solc-js (%s): %v: %s", bin, err, strings.TrimSpace(stderr.String()))
	}
	out := stdout.Bytes()
	if i := bytes.IndexByte(out, '{'); i > 0 { // solc-js may print a notice first
		out = out[i:]
	}
	var res struct {
		Errors []struct {
			Severity         string `json:"severity"`
			FormattedMessage string `json:"formattedMessage"`
		} `json:"errors"`
		Contracts map[string]map[string]struct {
			ABI json.RawMessage `json:"abi"`
			EVM struct {
				Bytecode struct {
					Object string `json:"object"`
				} `json:"bytecode"`
			} `json:"evm"`
		} `json:"contracts"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return abi.ABI{}, nil, fmt.Errorf("solc-js output: %v", err)
	}
	var msgs []string
	for _, e := range res.Errors {
		if e.Severity == "error" {
			msgs = append(msgs, strings.TrimSpace(e.FormattedMessage))
		}
	}
	if len(msgs) > 0 {
		return abi.ABI{}, nil, fmt.Errorf("the Solidity source does not compile:\n%s", strings.Join(msgs, "\n"))
	}
	var names []string
	for _, byName := range res.Contracts {
		for name, c := range byName {
			names = append(names, name)
			if name != contract {
				continue
			}
			parsed, err := abi.JSON(bytes.NewReader(c.ABI))
			if err != nil {
				return abi.ABI{}, nil, err
			}
			return parsed, common.FromHex(c.EVM.Bytecode.Object), nil
		}
	}
	sort.Strings(names)
	return abi.ABI{}, nil, fmt.Errorf("the source has no contract %q (contracts: %s)", contract, strings.Join(names, ", "))
}
