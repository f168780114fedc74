package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/internal/chain"
	"github.com/xgr-sidecar/xgr/internal/toolbin"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/ruleexec"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/scenario"
)

// scenarioEngine is the scenario.Engine of "xgr scenario run": contracts
// go to the chain, sessions run on xgr's session manager over Redis, steps
// are evaluated by the XRC-137 executor reading the rules from the chain.
type scenarioEngine struct {
	env      *scenarioEnv
	store    *joinstore.Store
	source   reactor.Source
	manager  *reactor.Manager
	recorder *scenarioRecorder
	senders  map[string]*chain.Sender
}

func newScenarioEngine(ctx context.Context, env *scenarioEnv, keys map[string]*ecdsa.PrivateKey, api *rule.HTTPCaller) (*scenarioEngine, error) {
	store := joinstore.New(env.rdb, storeConfig())
	if err := store.Preload(ctx); err != nil {
		return nil, fmt.Errorf("redis: %w", err)
	}
	e := &scenarioEngine{env: env, store: store, recorder: &scenarioRecorder{}, senders: map[string]*chain.Sender{}}
	for alias, k := range keys {
		s, err := chain.NewSender(ctx, env.client, k, 1)
		if err != nil {
			return nil, err
		}
		s.Poll = 20 * time.Millisecond
		e.senders[alias] = s
	}
	e.source = newCacheSource(env)
	exec := &ruleexec.Executor{
		Rules:   &rulesource.Loader{Chain: rulesource.NewChain(env.client)},
		API:     api,
		Reads:   &chain.Reads{Default: env.client},
		Log:     slog.Default(),
		Observe: e.recorder.observe,
	}
	e.manager = &reactor.Manager{Store: store, Source: e.source, Exec: recordingExecutor{exec, e.recorder}, Replica: "xgr-scenario",
		Poll: 20 * time.Millisecond, Log: slog.Default()}
	return e, nil
}

func (e *scenarioEngine) sender(alias string) (*chain.Sender, error) {
	if s, ok := e.senders[alias]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("actor %q has no key (actors: %s)", alias, strings.Join(sortedKeys(e.senders), ", "))
}

// Deploy implements scenario.Engine.
func (e *scenarioEngine) Deploy(ctx context.Context, p *scenario.Plan) (*scenario.Deployment, error) {
	owner, err := e.sender(p.OwnerAlias)
	if err != nil {
		return nil, fmt.Errorf("deploy %s: owner: %w", p.Key, err)
	}
	d := &scenario.Deployment{Plan: p.Key, OstcID: p.OstcID, OldHash: p.OldHash, Rules: map[string]string{}, Setup: map[string]string{}}
	for _, s := range p.Setup {
		addr, note, err := e.setupContract(ctx, p, s, owner)
		if err != nil {
			return nil, fmt.Errorf("deploy %s: setup contract %q (%s): %w", p.Key, s.Key, s.Path, err)
		}
		d.Setup[s.Key] = addr
		if note != "" {
			d.Notes = append(d.Notes, note)
		}
	}
	stepRule := map[string]string{}
	for _, r := range p.Rules {
		text, err := scenario.SubstituteAddrs(r.Text, d.Setup)
		if err != nil {
			return nil, fmt.Errorf("deploy %s: rule %s: %w", p.Key, r.Alias, err)
		}
		if _, perr := rule.Parse(text); perr != nil {
			d.Notes = append(d.Notes, fmt.Sprintf("rule %s (%s) is deployed as written, but xgr's evaluator refuses it, so its step will abort: %s", r.Alias, r.Path, firstLine(perr.Error())))
		}
		c, _, err := chain.DeployRule(ctx, owner, text)
		if err != nil {
			return nil, fmt.Errorf("deploy %s: XRC-137 %s: %w", p.Key, r.Alias, err)
		}
		d.Rules[r.Alias] = strings.ToLower(c.Address.Hex())
	}
	for step, i := range p.OSTC.StepRule {
		stepRule[step] = d.Rules[p.Rules[i].Alias]
	}
	reg, _, err := chain.DeployRegistry(ctx, owner, chain.RegistryInit{})
	if err != nil {
		return nil, fmt.Errorf("deploy %s: XRC-729 registry: %w", p.Key, err)
	}
	d.Registry = strings.ToLower(reg.Address.Hex())
	text, err := scenario.RewriteOSTC(p.OSTC.Raw, stepRule, d.Registry)
	if err != nil {
		return nil, fmt.Errorf("deploy %s: rewrite the orchestration: %w", p.Key, err)
	}
	w, err := reg.Put(ctx, owner, p.OstcID, text)
	if err != nil {
		return nil, fmt.Errorf("deploy %s: setOSTC %q: %w", p.Key, p.OstcID, err)
	}
	if local := registry.Hash(text); w.Hash != local {
		return nil, fmt.Errorf("deploy %s: the registry recorded hash %s for %q, but the text hashes to %s", p.Key, w.Hash.Hex(), p.OstcID, local.Hex())
	}
	d.Hash = w.Hash.Hex()
	return d, nil
}

// Start implements scenario.Engine.
func (e *scenarioEngine) Start(ctx context.Context, req scenario.StartRequest) (scenario.SessionRef, error) {
	payload, err := json.Marshal(req.Payload)
	if err != nil {
		return scenario.SessionRef{}, fmt.Errorf("start payload: %w", err)
	}
	res, err := reactor.Start(ctx, e.store, e.source, reactor.StartRequest{
		Owner: req.Owner, XRC729: req.Deployment.Registry, OstcID: req.Deployment.OstcID, OstcHash: req.Deployment.Hash,
		Step: req.Step, Payload: payload,
	}, time.Now())
	if err != nil {
		return scenario.SessionRef{}, err
	}
	return scenario.SessionRef{Owner: res.Root.Owner, ID: res.Root.RootPid}, nil
}

// Observe implements scenario.Engine.
func (e *scenarioEngine) Observe(ctx context.Context, s scenario.SessionRef) (*scenario.Observed, error) {
	root := joinstore.Root{Owner: s.Owner, RootPid: s.ID}
	meta, err := e.store.Session(ctx, root)
	if err != nil {
		return nil, err
	}
	procs, err := e.store.Processes(ctx, root)
	if err != nil {
		return nil, err
	}
	steps, err := e.store.History(ctx, root)
	if err != nil {
		return nil, err
	}
	hist := make([]scenario.HistoryEntry, 0, len(steps))
	for _, h := range steps {
		if h.Commit() { // wake events are not commits
			hist = append(hist, scenario.HistoryEntry{Pid: h.Pid})
		}
	}
	return scenario.ObservedFrom(meta, procs, hist, e.recorder.of(s.Owner, s.ID)), nil
}

// setupContract provides a setup contract's address: a fixed one, one
// deployed before (deployIfMissing, when it holds code), or a fresh
// deployment of its Solidity source compiled with the pinned solc-js.
func (e *scenarioEngine) setupContract(ctx context.Context, p *scenario.Plan, s *scenario.SetupContract, owner *chain.Sender) (addr, note string, err error) {
	if s.Mode == "fixed" {
		return strings.ToLower(s.Address), "", nil
	}
	if s.Address != "" && !s.Always {
		code, err := e.env.client.CodeAt(ctx, common.HexToAddress(s.Address), nil)
		if err == nil && len(code) > 0 {
			return strings.ToLower(s.Address), fmt.Sprintf("setup contract %q: reused %s (deployIfMissing; it holds code)", s.Key, s.Address), nil
		}
	}
	sender := owner
	if s.By != "" && s.By != "owner" {
		if sender, err = e.sender(s.By); err != nil {
			return "", "", err
		}
	}
	parsed, bytecode, version, err := compileSolidity(ctx, s.FileName, s.Source, s.ContractName)
	if err != nil {
		return "", "", err
	}
	if !strings.HasPrefix(version, pinnedSolc+"+") {
		note = fmt.Sprintf("setup contract %q was compiled with solc-js %s, not the pinned %s (make tools)", s.Key, version, pinnedSolc)
	}
	args, err := constructorArgs(parsed, s.ConstructorArgs)
	if err != nil {
		return "", "", err
	}
	r, err := sender.Deploy(ctx, "deploy "+s.ContractName, bytecode, args)
	if err != nil {
		return "", "", err
	}
	return strings.ToLower(r.ContractAddress.Hex()), note, nil
}

// pinnedSolc is the solc-js version scripts/install-tools.sh installs.
const pinnedSolc = "0.8.30"

// compileSolidity compiles one source with the pinned solc-js (toolbin
// "solcjs": $XGR_SOLCJS_BIN, .tools/bin, PATH) through its standard-JSON
// interface, with the settings of the repository's own contracts, and
// returns the contract's ABI, its bytecode and the compiler version.
func compileSolidity(ctx context.Context, fileName, code, contract string) (abi.ABI, []byte, string, error) {
	parsed, bytecode, err := compileStandardJSON(ctx, fileName, code, contract)
	if err != nil {
		return abi.ABI{}, nil, "", err
	}
	bin, _ := toolbin.Find("solcjs")
	v, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return abi.ABI{}, nil, "", fmt.Errorf("solc-js --version: %w", err)
	}
	return parsed, bytecode, strings.TrimSpace(string(v)), nil
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

// constructorArgs packs JSON constructor arguments for elementary
// parameter types (integers, bool, address, string, bytes, bytesN).
func constructorArgs(parsed abi.ABI, args []any) ([]byte, error) {
	in := parsed.Constructor.Inputs
	if len(args) != len(in) {
		return nil, fmt.Errorf("the constructor takes %d arguments, constructorArgs has %d", len(in), len(args))
	}
	vals := make([]any, len(args))
	for i, a := range args {
		v, err := abiArg(in[i].Type, a)
		if err != nil {
			return nil, fmt.Errorf("constructorArgs[%d] (%s %s): %w", i, in[i].Type.String(), in[i].Name, err)
		}
		vals[i] = v
	}
	return parsed.Pack("", vals...)
}

func abiArg(t abi.Type, a any) (any, error) {
	text := fmt.Sprint(a)
	switch t.T {
	case abi.IntTy, abi.UintTy:
		n, ok := new(big.Int).SetString(strings.TrimSpace(text), 0)
		if !ok {
			return nil, fmt.Errorf("%v is not an integer", a)
		}
		if t.Size <= 64 { // go-ethereum wants the sized Go type
			if t.T == abi.UintTy {
				switch t.Size {
				case 8:
					return uint8(n.Uint64()), nil
				case 16:
					return uint16(n.Uint64()), nil
				case 32:
					return uint32(n.Uint64()), nil
				}
				return n.Uint64(), nil
			}
			switch t.Size {
			case 8:
				return int8(n.Int64()), nil
			case 16:
				return int16(n.Int64()), nil
			case 32:
				return int32(n.Int64()), nil
			}
			return n.Int64(), nil
		}
		return n, nil
	case abi.BoolTy:
		b, ok := a.(bool)
		if !ok {
			return nil, fmt.Errorf("%v is not true or false", a)
		}
		return b, nil
	case abi.AddressTy:
		if !common.IsHexAddress(text) {
			return nil, fmt.Errorf("%v is not an address", a)
		}
		return common.HexToAddress(text), nil
	case abi.StringTy:
		return text, nil
	case abi.BytesTy:
		return common.FromHex(text), nil
	case abi.FixedBytesTy:
		b := common.FromHex(text)
		if len(b) != t.Size {
			return nil, fmt.Errorf("%v is not %d bytes of hex", a, t.Size)
		}
		return reflectArray(t.Size, b), nil
	}
	return nil, errors.New("this parameter type is not supported in constructorArgs")
}

// reflectArray makes the [n]byte value go-ethereum packs for bytesN.
func reflectArray(n int, b []byte) any {
	arr := reflect.New(reflect.ArrayOf(n, reflect.TypeFor[byte]())).Elem()
	reflect.Copy(arr, reflect.ValueOf(b))
	return arr.Interface()
}

func firstLine(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 1 {
		return strings.TrimSpace(lines[0]) + " " + strings.TrimSpace(lines[1])
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
