package solc

import (
	"context"
	"strings"
	"testing"
)

const counter = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Counter {
    uint256 public n;
    constructor(uint256 start) { n = start; }
    function inc() external { n++; }
}
contract Other {}
`

// The pinned solc-js compiles a source to the named contract's ABI and
// bytecode and says its version.
func TestCompile(t *testing.T) {
	c, err := Compile(context.Background(), "dir/Counter.sol", counter, "Counter")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.ABI.Methods["inc"]; !ok || len(c.ABI.Constructor.Inputs) != 1 {
		t.Errorf("ABI: methods %v, constructor %v", c.ABI.Methods, c.ABI.Constructor.Inputs)
	}
	if len(c.Bytecode) < 32 {
		t.Errorf("bytecode: %d bytes", len(c.Bytecode))
	}
	if !c.Pinned() {
		t.Errorf("version %q, want the pinned %s (make tools)", c.Version, Pinned)
	}
}

// A source that does not compile gives the compiler's messages; a contract
// the source lacks is named with the ones it has.
func TestCompileErrors(t *testing.T) {
	ctx := context.Background()
	_, err := Compile(ctx, "", "pragma solidity ^0.8.0; contract Broken { function f( }", "Broken")
	if err == nil || !strings.Contains(err.Error(), "the Solidity source does not compile:") || !strings.Contains(err.Error(), "ParserError") {
		t.Errorf("broken source: %v", err)
	}
	_, err = Compile(ctx, "Counter.sol", counter, "Missing")
	if err == nil || !strings.Contains(err.Error(), `the source has no contract "Missing" (contracts: Counter, Other)`) {
		t.Errorf("missing contract: %v", err)
	}
}
