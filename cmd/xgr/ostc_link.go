package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/rulesource"
)

func ostcLinkCommand() *cli.Command {
	return &cli.Command{
		Name:      "link",
		Usage:     "bind an orchestration's rule placeholders (${addr:ALIAS}, <NAME>) to deployed XRC-137 contracts",
		ArgsUsage: "FILE",
		Description: `Writes FILE with every step whose rule is a placeholder bound to its
contract's address — what xgr dev does before it registers the examples —
and prints the new text's hash, the one a registry records and a
SessionPermit signs. Bindings come from the addresses: section of --config
(the file xgr run reads) and from --bind NAME=0x… (which wins). Everything
else in the text is kept as written.

Exit status: 0 when every placeholder is bound; 1 when some are not (they
are listed; nothing is written); 2 on usage errors.

Example:
   xgr ostc link flow.json --bind Iterationstep-Addr=0xCf7E… --output flow.linked.json
   xgr ostc put IterationOfPi flow.linked.json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "config", Aliases: []string{"c"}, EnvVars: []string{"XGR_CONFIG"}, Usage: "YAML config whose addresses: section binds the placeholders"},
			&cli.StringSliceFlag{Name: "bind", Usage: "NAME=0x… binds ${addr:NAME} or <NAME> (repeatable)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the linked text here (default: stdout)"},
			jsonFlag(),
		},
		Action: ostcLinkAction,
	}
}

func ostcLinkAction(c *cli.Context) error {
	file, err := oneFile(c, "ostc link")
	if err != nil {
		return err
	}
	o, err := loadOSTC(file)
	if err != nil {
		return err
	}
	cfg, err := configFile(c)
	if err != nil {
		return err
	}
	addrs := rulesource.Addresses{}
	for name, a := range cfg.Addresses {
		addrs[name] = a
	}
	for _, b := range c.StringSlice("bind") {
		name, v, ok := strings.Cut(b, "=")
		if !ok || name == "" || !common.IsHexAddress(v) || len(strings.TrimPrefix(v, "0x")) != 40 {
			return cli.Exit(fmt.Sprintf("ostc link: --bind %q: want NAME=0x and 40 hex digits", b), 2)
		}
		addrs[name] = common.HexToAddress(v)
	}
	l, unbound, err := addrs.LinkText(o)
	switch {
	case len(unbound) > 0:
		return cli.Exit(fmt.Sprintf("ostc link: %s: %d placeholder(s) not bound, nothing written: %s (bind them with --bind NAME=0x… or the addresses: section of --config)",
			file, len(unbound), strings.Join(unbound, ", ")), 1)
	case err != nil:
		return cli.Exit("ostc link: "+err.Error(), 1)
	}
	out := c.String("output")
	if out != "" {
		if err := os.WriteFile(out, l.Text, 0o644); err != nil {
			return cli.Exit("ostc link: "+err.Error(), 1)
		}
	}
	if c.Bool("json") {
		return json.NewEncoder(c.App.Writer).Encode(map[string]any{"id": o.ID, "hash": l.Hash.Hex(), "linked": l.Steps, "output": out})
	}
	if out == "" {
		_, err := c.App.Writer.Write(l.Text)
		return err
	}
	steps := slices.Sorted(maps.Keys(l.Steps))
	fmt.Fprintf(c.App.Writer, "%s: linked %d step(s) of %s; hash %s\n", out, len(steps), o.ID, l.Hash.Hex())
	for _, s := range steps {
		fmt.Fprintf(c.App.Writer, "  %-12s %s\n", s, l.Steps[s])
	}
	return nil
}
