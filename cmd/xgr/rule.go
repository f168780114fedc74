package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/registry"
)

func ruleCommand() *cli.Command {
	return &cli.Command{
		Name:  "rule",
		Usage: "validate and evaluate XRC-137 rule documents; deploy, read and update rule contracts",
		Subcommands: append(append(ruleDocCommands(), ruleCryptCommands()...), []*cli.Command{
			{
				Name:      "deploy",
				Usage:     "deploy a new XRC-137 contract holding FILE as a plain rule",
				ArgsUsage: "FILE",
				Description: `FILE must be JSON unless --force. Prints the contract address, the
transaction, its block and gas, the rule version (1) and the hash the contract
recorded next to keccak256 of FILE.

Example:
   xgr rule deploy rules/step.json`,
				Flags:  writeFlags(forceFlag(), jsonFlag()),
				Action: ruleDeployAction,
			},
			{
				Name:  "get",
				Usage: "show a rule contract: owner, version, hash, encryption header, executors",
				Description: `Reads every value at one block. --raw prints only the stored rule text,
byte for byte; --json prints everything as one object.

Exit status: 1 when the recorded hash does not match the stored text.`,
				Flags: readFlags(ruleAddressFlag(), jsonFlag(),
					&cli.BoolFlag{Name: "raw", Usage: "print only the rule text, exactly as stored"}),
				Action: ruleGetAction,
			},
			{
				Name:      "update",
				Usage:     "replace the rule text of a contract with FILE (updateRule)",
				ArgsUsage: "FILE",
				Description: `Plain JSON clears any encryption header; FILE must be JSON unless it is an
"XGR1." envelope or --force is given. An envelope is one line: one line
break at the end of FILE (an editor's) is not stored, another is refused.
With --rid (and --suite, --encdek) the text and its encryption header are
written together (setRuleAndEncrypted).

Example:
   xgr rule update --address 0xe7f1… rules/step-v2.json`,
				Flags: writeFlags(ruleAddressFlag(), forceFlag(), jsonFlag(),
					&cli.StringFlag{Name: "rid", Usage: "encryption header: rule id (32 bytes hex); switches to setRuleAndEncrypted"},
					&cli.StringFlag{Name: "suite", Usage: "encryption header: cipher suite, e.g. AES-256-GCM-1"},
					&cli.StringFlag{Name: "encdek", Usage: "encryption header: encrypted data key (hex)"},
				),
				Action: ruleUpdateAction,
			},
		}...),
	}
}

// envelopePrefix starts an encrypted XRC-137 rule.
const envelopePrefix = "XGR1."

// readRuleFile reads FILE and refuses text that is neither JSON nor an
// envelope, unless force. An envelope is one line: the single line break
// (\n or \r\n) an editor or a shell leaves at its end is dropped (the
// engine refuses an envelope holding one), and an envelope with another
// line break is refused unless force. JSON is kept byte for byte.
func readRuleFile(c *cli.Context, force bool) ([]byte, error) {
	if err := argsExactly(c, 1, "FILE"); err != nil {
		return nil, err
	}
	file := c.Args().First()
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, cli.Exit(err.Error(), 2)
	}
	if bytes.HasPrefix(raw, []byte(envelopePrefix)) {
		raw = trimOneLineBreak(raw)
		if i := bytes.IndexAny(raw, "\r\n"); i >= 0 && !force {
			return nil, cli.Exit(fmt.Sprintf("%s: refusing %s: an XGR1 envelope is one line, but it holds a line break at byte %d (only one at its very end is dropped); pass --force to store it anyway", cmdName(c), file, i), 1)
		}
	}
	if !force && !bytes.HasPrefix(raw, []byte(envelopePrefix)) {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, cli.Exit(fmt.Sprintf("%s: refusing %s: not valid JSON (%v); pass --force to store it anyway", cmdName(c), file, err), 1)
		}
	}
	return raw, nil
}

// trimOneLineBreak drops one trailing "\n" or "\r\n".
func trimOneLineBreak(b []byte) []byte {
	if t, ok := bytes.CutSuffix(b, []byte("\r\n")); ok {
		return t
	}
	t, _ := bytes.CutSuffix(b, []byte("\n"))
	return t
}

func ruleDeployAction(c *cli.Context) error {
	raw, err := readRuleFile(c, c.Bool(forceFlag().Name))
	if err != nil {
		return err
	}
	n, s, err := dialSender(c)
	if err != nil {
		return err
	}
	defer n.Close()
	rule, w, err := chain.DeployRule(n.ctx, s, raw)
	if err != nil {
		return chainFailure(err)
	}
	return writeRuleWrite(c, rule.Address, w, raw)
}

func ruleUpdateAction(c *cli.Context) error {
	raw, err := readRuleFile(c, c.Bool(forceFlag().Name))
	if err != nil {
		return err
	}
	addr, err := addressFlag(c, ruleAddressFlag().Name)
	if err != nil {
		return err
	}
	var enc *chain.Encryption
	if rid := c.String("rid"); rid != "" {
		ridBytes, err := hexutil.Decode(rid)
		if err != nil || len(ridBytes) != 32 {
			return cli.Exit(fmt.Sprintf("--rid %q: want 32 bytes as 0x-prefixed hex", rid), 2)
		}
		var dek []byte
		if d := c.String("encdek"); d != "" {
			if dek, err = hexutil.Decode(d); err != nil {
				return cli.Exit(fmt.Sprintf("--encdek: want 0x-prefixed hex: %v", err), 2)
			}
		}
		enc = &chain.Encryption{RID: common.BytesToHash(ridBytes), Suite: c.String("suite"), EncDEK: dek}
	} else if c.IsSet("suite") || c.IsSet("encdek") {
		return cli.Exit("--suite and --encdek need --rid", 2)
	}
	n, s, err := dialSender(c)
	if err != nil {
		return err
	}
	defer n.Close()
	rule := chain.NewRule(addr, n.client)
	var w chain.RuleWrite
	if enc != nil {
		w, err = rule.SetEncrypted(n.ctx, s, raw, *enc)
	} else {
		w, err = rule.Update(n.ctx, s, raw)
	}
	if err != nil {
		return chainFailure(err)
	}
	return writeRuleWrite(c, addr, w, raw)
}

func writeRuleWrite(c *cli.Context, addr common.Address, w chain.RuleWrite, raw []byte) error {
	local := registry.Hash(raw)
	var err error
	if c.Bool(jsonFlag().Name) {
		err = json.NewEncoder(c.App.Writer).Encode(struct {
			Rule common.Address `json:"rule"`
			chain.TxSummary
			Version   uint64      `json:"version"`
			Encrypted bool        `json:"encrypted"`
			Hash      common.Hash `json:"hash"`
			LocalHash common.Hash `json:"localHash"`
			Match     bool        `json:"match"`
		}{addr, chain.Summarize(w.Receipt), w.Version, w.Encrypted, w.Hash, local, w.Hash == local})
	} else {
		fields := append([]chain.Field{{Name: "rule", Value: addr.Hex()}}, chain.Summarize(w.Receipt).Fields()...)
		fields = append(fields,
			chain.Field{Name: "version", Value: fmt.Sprint(w.Version)},
			chain.Field{Name: "encrypted", Value: fmt.Sprint(w.Encrypted)})
		fields = append(fields, chain.HashFields(w.Hash, local, "local")...)
		err = chain.WriteFields(c.App.Writer, fields)
	}
	if err != nil {
		return err
	}
	if w.Hash != local {
		return cli.Exit(cmdName(c)+": the contract recorded a different hash than the file's", 1)
	}
	return nil
}

func ruleGetAction(c *cli.Context) error {
	if err := argsExactly(c, 0, ""); err != nil {
		return err
	}
	addr, err := addressFlag(c, ruleAddressFlag().Name)
	if err != nil {
		return err
	}
	n, err := dial(c)
	if err != nil {
		return err
	}
	defer n.Close()
	info, err := chain.NewRule(addr, n.client).Info(n.ctx)
	if err != nil {
		return chainFailure(err)
	}
	local := registry.Hash([]byte(info.Text))
	switch {
	case c.Bool("raw"):
		_, err = c.App.Writer.Write([]byte(info.Text))
	case c.Bool(jsonFlag().Name):
		err = json.NewEncoder(c.App.Writer).Encode(struct {
			chain.RuleInfo
			TextHash common.Hash `json:"textHash"`
		}{info, local})
	default:
		execs := []string{"none"}
		if len(info.Executors) > 0 {
			execs = execs[:0]
		}
		for _, e := range info.Executors {
			execs = append(execs, e.Hex())
		}
		fields := []chain.Field{
			{Name: "rule", Value: info.Address.Hex()},
			{Name: "block", Value: fmt.Sprint(info.Block)},
			{Name: "owner", Value: info.Owner.Hex()},
			{Name: "name", Value: info.Name + " (" + info.SchemaVersion + ")"},
			{Name: "version", Value: fmt.Sprint(info.Version)},
		}
		fields = append(fields, chain.HashFields(info.Hash, local, "local, of stored text")...)
		fields = append(fields, chain.Field{Name: "encrypted", Value: fmt.Sprint(info.Encrypted)})
		if info.Encrypted {
			fields = append(fields,
				chain.Field{Name: "  rid", Value: info.Encryption.RID.Hex()},
				chain.Field{Name: "  suite", Value: info.Encryption.Suite},
				chain.Field{Name: "  encDEK", Value: hexutil.Encode(info.Encryption.EncDEK)})
		}
		fields = append(fields,
			chain.Field{Name: "executors", Value: strings.Join(execs, " ")},
			chain.Field{Name: "bytes", Value: fmt.Sprint(len(info.Text))})
		err = chain.WriteFields(c.App.Writer, fields)
	}
	if err != nil {
		return err
	}
	if info.Hash != local {
		return cli.Exit("rule get: the recorded hash does not match the stored text", 1)
	}
	return nil
}
