package main

import (
	"fmt"
	"os"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/rule"
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
			ruleGasCommand(),
		}...),
	}
}

// readRuleFile reads FILE as the text a rule contract is to hold
// (rule.StoredText: JSON, or an XGR1 envelope of one line), refusing other
// text unless force.
func readRuleFile(c *cli.Context, force bool) ([]byte, error) {
	if err := argsExactly(c, 1, "FILE"); err != nil {
		return nil, err
	}
	file := c.Args().First()
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, cli.Exit(err.Error(), 2)
	}
	text, err := rule.StoredText(raw, force)
	if err != nil {
		return nil, cli.Exit(fmt.Sprintf("%s: refusing %s: %v; pass --force to store it anyway", cmdName(c), file, err), 1)
	}
	return text, nil
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
	r, w, err := chain.DeployRule(n.ctx, s, raw)
	if err != nil {
		return chainFailure(err)
	}
	return writeRuleWrite(c, w.Report(r.Address, raw))
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
	r := chain.NewRule(addr, n.client)
	var w chain.RuleWrite
	if enc != nil {
		w, err = r.SetEncrypted(n.ctx, s, raw, *enc)
	} else {
		w, err = r.Update(n.ctx, s, raw)
	}
	if err != nil {
		return chainFailure(err)
	}
	return writeRuleWrite(c, w.Report(addr, raw))
}

func writeRuleWrite(c *cli.Context, rep chain.RuleWriteReport) error {
	if err := printReport(c, rep); err != nil {
		return err
	}
	if !rep.Match {
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
	v := info.View()
	if c.Bool("raw") {
		_, err = c.App.Writer.Write([]byte(info.Text))
	} else {
		err = printReport(c, v)
	}
	if err != nil {
		return err
	}
	if !v.Match() {
		return cli.Exit("rule get: the recorded hash does not match the stored text", 1)
	}
	return nil
}
