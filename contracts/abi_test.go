package contracts_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/contracts/metareader"
	"github.com/xgr-sidecar/xgr/contracts/xrc137"
	"github.com/xgr-sidecar/xgr/contracts/xrc563"
	"github.com/xgr-sidecar/xgr/contracts/xrc729"
)

// The public interfaces, written out literally from the XRC-729, XRC-137
// and XRC-563 standards (contracts/XRC729/XRC-729.sol,
// contracts/XRC137/XRC-137.sol, contracts/XRC563/XRC-563.sol and the
// standard documents of xgr-network/XGR). Selectors
// and topics are computed from these strings, never from our ABI, so a
// contract deployed by anyone else decodes with our bindings.
//
// Functions: "name(inputs) mutability -> (outputs)".
// Events: "Name(type [indexed], ...)".
var standards = map[string]struct {
	abi         string
	constructor string
	functions   []string
	events      []string
}{
	"XRC729": {
		abi:         xrc729.XRC729MetaData.ABI,
		constructor: "(string[],string[],address[])",
		functions: []string{
			"setOSTC(string,string) nonpayable -> ()",
			"deleteOSTC(string) nonpayable -> ()",
			"getOSTC(string) view -> (string)",
			"getOSTCMeta(string) view -> (bytes32,uint256,uint64)",
			"hasOSTC(string) view -> (bool)",
			"getAllOSTC() view -> (string[])",
			"nameXRC() view -> (string)",
			"getNameXRC() view -> (string)",
			"schemaVersion() view -> (string)",
			"owner() view -> (address)",
			"transferOwnership(address) nonpayable -> ()",
			"addExecutor(address) nonpayable -> ()",
			"removeExecutor(address) nonpayable -> ()",
			"getExecutorList() view -> (address[])",
			"isExecutor(address) view -> (bool)",
		},
		events: []string{
			"OSTCSet(string indexed)",
			"OSTCDeleted(string indexed)",
			"OSTCUpdated(address indexed,address indexed,bytes32 indexed,bytes32,string,uint256,uint64)",
			"OSTCDeletedIndexed(address indexed,address indexed,bytes32 indexed,bytes32,string,uint256)",
			"XRC729Deployed(address indexed,address indexed,bytes32 indexed,string,string)",
			"OwnershipTransferred(address indexed,address indexed)",
			"ExecutorAdded(address indexed)",
			"ExecutorRemoved(address indexed)",
		},
	},
	"XRC137": {
		abi:         xrc137.XRC137MetaData.ABI,
		constructor: "(string)",
		functions: []string{
			"ruleJson() view -> (string)",
			"nameXRC() view -> (string)",
			"schemaVersion() view -> (string)",
			"ruleHash() view -> (bytes32)",
			"ruleVersion() view -> (uint256)",
			"encrypted() view -> (bytes32,string,bytes)",
			"owner() view -> (address)",
			"getRule() view -> (string)",
			"getNameXRC() view -> (string)",
			"isEncrypted() view -> (bool)",
			"getRuleHash() view -> (bytes32)",
			"getRuleVersion() view -> (uint256)",
			"updateRule(string) nonpayable -> ()",
			"setRuleAndEncrypted(string,bytes32,string,bytes) nonpayable -> ()",
			"transferOwnership(address) nonpayable -> ()",
			"addExecutor(address) nonpayable -> ()",
			"removeExecutor(address) nonpayable -> ()",
			"getExecutorList() view -> (address[])",
			"isExecutor(address) view -> (bool)",
		},
		events: []string{
			"RuleUpdated(string)",
			"EncryptedSet(bytes32,string)",
			"EncryptedCleared()",
			"ExecutorAdded(address indexed)",
			"ExecutorRemoved(address indexed)",
			"XRC137Deployed(address indexed,address indexed,bytes32 indexed,uint256,string,string,bool)",
			"XRC137Updated(address indexed,address indexed,bytes32 indexed,uint256,bool)",
		},
	},
	// The read-key part of XRC-563 (contracts/XRC563/XRC-563.sol and
	// docs/xgr_encryptionGrants.md §6): grants moved off chain in version 2.
	"XRC563": {
		abi:         xrc563.XRC563MetaData.ABI,
		constructor: "()",
		functions: []string{
			"registerReadKey(bytes) nonpayable -> ()",
			"getReadKey(address) view -> (bytes)",
			"clearReadKey() nonpayable -> ()",
		},
		events: []string{
			"ReadKeyRegistered(address indexed,bytes)",
			"ReadKeyCleared(address indexed)",
		},
	},
}

// Well-known values computed elsewhere, so the test's own hashing is checked
// too: the ERC-20/Ownable selectors and topic everyone knows.
func TestKeccakFixedPoints(t *testing.T) {
	if got := selector("transferOwnership(address)"); got != "f2fde38b" {
		t.Fatalf("selector(transferOwnership(address)) = %s, want f2fde38b", got)
	}
	if got := topic("OwnershipTransferred(address,address)"); got != "8be0079c531659141344cd1fd0a4f28419497f9722a3daafe3b4186f6b6457e0" {
		t.Fatalf("topic(OwnershipTransferred) = %s", got)
	}
}

var funcRe = regexp.MustCompile(`^(\w+)\(([^)]*)\) (view|pure|nonpayable|payable) -> \(([^)]*)\)$`)
var eventRe = regexp.MustCompile(`^(\w+)\(([^)]*)\)$`)

func TestABIMatchesThePublicStandards(t *testing.T) {
	for name, std := range standards {
		t.Run(name, func(t *testing.T) {
			parsed, err := abi.JSON(strings.NewReader(std.abi))
			if err != nil {
				t.Fatal(err)
			}
			if got := "(" + typeList(parsed.Constructor.Inputs) + ")"; got != std.constructor {
				t.Errorf("constructor%s, standard has constructor%s", got, std.constructor)
			}

			wantFuncs := map[string]bool{}
			for _, sig := range std.functions {
				m := funcRe.FindStringSubmatch(sig)
				if m == nil {
					t.Fatalf("bad signature in test: %q", sig)
				}
				fname, inputs, mut, outputs := m[1], m[2], m[3], m[4]
				wantFuncs[fname] = true
				canonical := fname + "(" + inputs + ")"
				want := selector(canonical)
				var got *abi.Method
				for _, meth := range parsed.Methods {
					if hexOf(meth.ID) == want {
						meth := meth
						got = &meth
					}
				}
				if got == nil {
					t.Errorf("%s: no function with selector 0x%s (%s) in our ABI", name, want, canonical)
					continue
				}
				if got.Sig != canonical {
					t.Errorf("selector 0x%s: our ABI calls it %s, standard %s", want, got.Sig, canonical)
				}
				if got.StateMutability != mut {
					t.Errorf("%s: state mutability %s, standard %s", canonical, got.StateMutability, mut)
				}
				if o := typeList(got.Outputs); o != outputs {
					t.Errorf("%s: returns (%s), standard (%s)", canonical, o, outputs)
				}
			}
			for fname := range parsed.Methods {
				if !wantFuncs[fname] {
					t.Errorf("our ABI has function %s, which the standard does not", fname)
				}
			}

			wantEvents := map[string]bool{}
			for _, sig := range std.events {
				m := eventRe.FindStringSubmatch(sig)
				if m == nil {
					t.Fatalf("bad event signature in test: %q", sig)
				}
				ename := m[1]
				wantEvents[ename] = true
				var types []string
				var indexed []bool
				if m[2] != "" {
					for _, p := range strings.Split(m[2], ",") {
						typ, idx := strings.CutSuffix(p, " indexed")
						types = append(types, typ)
						indexed = append(indexed, idx)
					}
				}
				canonical := ename + "(" + strings.Join(types, ",") + ")"
				want := topic(canonical)
				var got *abi.Event
				for _, ev := range parsed.Events {
					if hexOf(ev.ID[:]) == want {
						ev := ev
						got = &ev
					}
				}
				if got == nil {
					t.Errorf("%s: no event with topic0 0x%s (%s) in our ABI", name, want, canonical)
					continue
				}
				if got.Anonymous {
					t.Errorf("event %s is anonymous", canonical)
				}
				var gotIdx []bool
				for _, in := range got.Inputs {
					gotIdx = append(gotIdx, in.Indexed)
				}
				if !slices.Equal(gotIdx, indexed) {
					t.Errorf("event %s: indexed flags %v, standard %v", canonical, gotIdx, indexed)
				}
			}
			for ename := range parsed.Events {
				if !wantEvents[ename] {
					t.Errorf("our ABI has event %s, which the standard does not", ename)
				}
			}
		})
	}
}

// The committed artifacts record the pinned compiler and settings and carry
// the same ABI as the bindings (make contracts-check keeps them in step; this
// catches a hand-edited file between checks).
func TestArtifactsRecordPinnedBuild(t *testing.T) {
	bindings := map[string]string{
		"XRC729":     standards["XRC729"].abi,
		"XRC137":     standards["XRC137"].abi,
		"MetaReader": metareader.MetaReaderMetaData.ABI,
	}
	for _, name := range []string{"XRC729", "XRC137", "MetaReader"} {
		raw, err := os.ReadFile(filepath.Join("build", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var art struct {
			SourceName string `json:"sourceName"`
			Compiler   struct {
				Version string `json:"version"`
			} `json:"compiler"`
			Settings struct {
				EVMVersion string `json:"evmVersion"`
				Optimizer  struct {
					Enabled bool `json:"enabled"`
					Runs    int  `json:"runs"`
				} `json:"optimizer"`
				Metadata struct {
					BytecodeHash string `json:"bytecodeHash"`
				} `json:"metadata"`
			} `json:"settings"`
			ABI      json.RawMessage `json:"abi"`
			Bytecode string          `json:"bytecode"`
		}
		if err := json.Unmarshal(raw, &art); err != nil {
			t.Fatalf("%s.json: %v", name, err)
		}
		s := art.Settings
		if !strings.HasPrefix(art.Compiler.Version, "0.8.30+") || s.EVMVersion != "cancun" || !s.Optimizer.Enabled || s.Optimizer.Runs != 200 || s.Metadata.BytecodeHash != "none" {
			t.Errorf("%s.json: compiler %s, settings %+v; want 0.8.30, cancun, optimizer 200 runs, bytecodeHash none", name, art.Compiler.Version, s)
		}
		if art.SourceName != "contracts/"+name+".sol" {
			t.Errorf("%s.json: sourceName %q, want a repository-relative path", name, art.SourceName)
		}
		binding := bindings[name]
		var a, b any
		if err := json.Unmarshal(art.ABI, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(binding), &b); err != nil {
			t.Fatal(err)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		// abigen drops the spaces of the ABI text ("struct X" -> "structX").
		if strings.ReplaceAll(string(ja), " ", "") != strings.ReplaceAll(string(jb), " ", "") {
			t.Errorf("%s: build/%s.json ABI differs from the binding's: run make contracts bindings", name, name)
		}
	}
	if xrc729.XRC729MetaData.Bin == "" || xrc137.XRC137MetaData.Bin == "" || metareader.MetaReaderMetaData.Bin == "" {
		t.Fatal("bindings carry no bytecode")
	}
}

func typeList(args abi.Arguments) string {
	var ts []string
	for _, a := range args {
		ts = append(ts, a.Type.String())
	}
	return strings.Join(ts, ",")
}

func selector(sig string) string { return hexOf(crypto.Keccak256([]byte(sig))[:4]) }

func topic(sig string) string { return hexOf(crypto.Keccak256([]byte(sig))) }

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}
