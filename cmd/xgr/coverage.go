package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rule"
)

// ostcCoverageCommand is `xgr ostc coverage`: the OPS panel's rule executor
// coverage for one runner.
func ostcCoverageCommand() *cli.Command {
	return &cli.Command{
		Name:  "coverage",
		Usage: "check that a runner may run a registry's orchestrations: owner or executor of the registry and of every rule contract they use",
		Description: `Reads every orchestration of the registry (or the one --ostc names), collects
the XRC-137 rule contracts their steps reference by address, and reads owner()
and getExecutorList() of the registry and of each rule contract at one block.
Each contract is reported as the OPS "Rule Executor Coverage" panel does:
"has executor" (the runner is on its executor list), "owner (implicit)" (the
runner is its owner) or "missing". A contract without getExecutorList() is
owner-only. These are the checks a session start makes (XRC-729 §4.2).

Each rule contract that holds an encrypted document (an XGR1 envelope) is
also checked as xgr run would open it: with xgr's read key (--read-key-file,
or $XGR_READ_KEY) and the data key that a live READ grant (scope 1) of
--read-key-account in the grant store (the Redis of --redis) wraps for it,
else the one the contract's own encryption header holds. Without the read
key, only the grant's presence is checked. A rule xgr cannot decrypt is
reported with the reason (no read key, no READ grant, a key that does not
open).

Exit status: 0 when the runner is covered everywhere and xgr can decrypt
every encrypted rule, 1 when a contract is missing, an encrypted rule
cannot be decrypted, or an orchestration cannot be read.

Example:
   xgr ostc coverage --registry 0x5FbD… --runner 0x7099…
   xgr ostc coverage --registry 0x5FbD… --ostc minimal_join --runner 0x7099… --json`,
		// The Redis flags name the grant store, read only when
		// --read-key-account is given and a rule is encrypted.
		Flags: append(readFlags(
			&cli.StringFlag{Name: "registry", EnvVars: []string{"XGR_REGISTRY"}, Usage: "address of the XRC-729 registry contract", Required: true},
			&cli.StringFlag{Name: "runner", Usage: "the account that would run the sessions (the SessionPermit signer, a session's owner)", Required: true},
			&cli.StringFlag{Name: "ostc", Usage: "check this orchestration id only (default: every id of the registry)"},
			jsonFlag(),
			readKeyFileFlag(),
			&cli.StringFlag{Name: "read-key-account", EnvVars: []string{"XGR_READ_KEY_ACCOUNT"}, Usage: "account xgr's read key is registered for: its READ grants (scope 1, in the grant store of --redis) open encrypted rules"},
		), redisFlags()...),
		Action: ostcCoverageAction,
	}
}

// coverageReport is the --json output of ostc coverage.
type coverageReport struct {
	RegistryAddress common.Address `json:"registryAddress"`
	Orchestrations  []string       `json:"orchestrations"`
	authority.Coverage
	// Problems are orchestrations that could not be checked (their text
	// does not parse).
	Problems []coverageProblem `json:"problems,omitempty"`
	Missing  int               `json:"missing"`
	// Encrypted are the rule contracts holding an encrypted document, with
	// whether xgr can decrypt it; Undecryptable counts those it cannot.
	Encrypted     []encryptedRule `json:"encrypted"`
	Undecryptable int             `json:"undecryptable"`
	// Unread are rule contracts whose stored document could not be read
	// (not an XRC-137 contract xgr can load): not checked for encryption.
	Unread []coverageProblem `json:"unread,omitempty"`
	OK     bool              `json:"ok"`
}

// encryptedRule is an encrypted rule contract and whether xgr can decrypt
// it (Reason says why not, or how it was judged).
type encryptedRule struct {
	Contract common.Address  `json:"contract"`
	RID      string          `json:"rid"`
	Decrypts bool            `json:"decrypts"`
	Reason   string          `json:"reason,omitempty"`
	Uses     []authority.Use `json:"uses,omitempty"`
	Checked  string          `json:"checked"`
}

type coverageProblem struct {
	OstcID string `json:"ostcId"`
	Error  string `json:"error"`
}

func ostcCoverageAction(c *cli.Context) error {
	if err := argsExactly(c, 0, ""); err != nil {
		return err
	}
	runner := common.HexToAddress(c.String("runner"))
	n, g, err := openRegistry(c)
	if err != nil {
		return err
	}
	defer n.Close()
	ids := []string{c.String("ostc")}
	if ids[0] == "" {
		if ids, err = g.IDs(n.ctx); err != nil {
			return chainFailure(err)
		}
	}
	rep := coverageReport{RegistryAddress: g.Address, Orchestrations: ids}
	var orchs []*registry.Orchestration
	for _, id := range ids {
		text, err := g.Get(n.ctx, id)
		if err != nil {
			return chainFailure(err)
		}
		o, err := registry.Parse(text)
		if err != nil {
			rep.Problems = append(rep.Problems, coverageProblem{OstcID: id, Error: err.Error()})
			continue
		}
		orchs = append(orchs, o)
	}
	cov, err := authority.NewChecker(authority.NewChainReader(n.client)).Check(n.ctx, runner, authority.PlanFor(&g.Address, orchs...))
	if err != nil {
		return chainFailure(err)
	}
	rep.Coverage = cov
	rep.Missing = len(cov.Missing())
	if err := checkDecryption(c, n, &rep); err != nil {
		return err
	}
	rep.OK = rep.Missing == 0 && len(rep.Problems) == 0 && rep.Undecryptable == 0
	if c.Bool(jsonFlag().Name) {
		err = json.NewEncoder(c.App.Writer).Encode(rep)
	} else {
		err = writeCoverage(c, rep)
	}
	if err != nil {
		return err
	}
	switch {
	case rep.Missing > 0 && rep.Undecryptable > 0:
		return cli.Exit(fmt.Sprintf("ostc coverage: runner %s is missing on %d of %d contracts, and xgr cannot decrypt %d encrypted rule(s)", runner.Hex(), rep.Missing, len(cov.Rules)+1, rep.Undecryptable), 1)
	case rep.Missing > 0:
		return cli.Exit(fmt.Sprintf("ostc coverage: runner %s is missing on %d of %d contracts", runner.Hex(), rep.Missing, len(cov.Rules)+1), 1)
	case rep.Undecryptable > 0:
		return cli.Exit(fmt.Sprintf("ostc coverage: xgr cannot decrypt %d of %d encrypted rule(s)", rep.Undecryptable, len(rep.Encrypted)), 1)
	case len(rep.Problems) > 0:
		return cli.Exit(fmt.Sprintf("ostc coverage: %d orchestration(s) could not be checked", len(rep.Problems)), 1)
	}
	return nil
}

// writeCoverage prints one row per contract, as the OPS panel's table.
func writeCoverage(c *cli.Context, rep coverageReport) error {
	w := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "runner %s, registry %s, %d orchestration(s)\n", rep.Runner.Hex(), rep.RegistryAddress.Hex(), len(rep.Orchestrations))
	fmt.Fprintln(w, "KIND\tCONTRACT\tOWNER\tSTATUS\tUSED BY")
	row := func(r authority.Row) {
		owner := "no owner()"
		if r.Owner != nil {
			owner = r.Owner.Hex()
		}
		if !r.ExecutorList {
			owner += " (owner-only)"
		}
		uses := make([]string, len(r.Uses))
		for i, u := range r.Uses {
			uses[i] = u.OstcID + ": " + strings.Join(u.Steps, ", ")
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", r.Kind, r.Contract.Hex(), owner, r.Status.Label(), strings.Join(uses, "; "))
	}
	if rep.Registry != nil {
		row(*rep.Registry)
	}
	for _, r := range rep.Rules {
		row(r)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for _, u := range rep.Unresolved {
		fmt.Fprintf(c.App.Writer, "not checked: %s step %s: rule %q names no contract address\n", u.OstcID, u.Step, u.Rule)
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(c.App.Writer, "not checked: %s: %s\n", p.OstcID, p.Error)
	}
	for _, e := range rep.Encrypted {
		verdict := "xgr decrypts it"
		if !e.Decrypts {
			verdict = "xgr CANNOT decrypt it"
		}
		fmt.Fprintf(c.App.Writer, "encrypted rule %s (rid %s): %s: %s\n", e.Contract.Hex(), e.RID, verdict, e.Reason)
	}
	for _, u := range rep.Unread {
		fmt.Fprintf(c.App.Writer, "not checked for encryption: rule %s: %s\n", u.OstcID, u.Error)
	}
	if len(rep.Encrypted) > 0 {
		fmt.Fprintf(c.App.Writer, "%d encrypted rule(s): %d xgr cannot decrypt\n", len(rep.Encrypted), rep.Undecryptable)
	}
	counts := map[authority.Status]int{}
	for _, r := range rep.Rules {
		counts[r.Status]++
	}
	_, err := fmt.Fprintf(c.App.Writer, "%d rule contract(s): %d has executor, %d owner (implicit), %d missing; registry: %s\n",
		len(rep.Rules), counts[authority.StatusExecutor], counts[authority.StatusOwner], counts[authority.StatusMissing], rep.Registry.Status.Label())
	return err
}

// checkDecryption reads each rule contract's stored document and, for an
// encrypted one, judges whether xgr can open it as xgr run would
// (ruleOpener: xgr's read key, its grant, then the contract's header);
// without the read key, whether --read-key-account holds a
// live READ grant on its RID. Nothing opened is kept or printed.
func checkDecryption(c *cli.Context, n *node, rep *coverageReport) error {
	rep.Encrypted = []encryptedRule{}
	key, hasKey, err := engineReadKey(c)
	if err != nil {
		return err
	}
	var account string
	if a := c.String("read-key-account"); a != "" {
		if account, err = grant.NormalizeAddress(a); err != nil {
			return cli.Exit(fmt.Sprintf("%s: --read-key-account: %v", cmdName(c), err), 2)
		}
	}
	// grants is opened at the first encrypted rule, when there is an
	// account to look grants up for (ruleGrant reads it only then).
	var grants *grant.Store
	closeRedis := func() {}
	defer func() { closeRedis() }()
	openGrants := func() error {
		if grants != nil || account == "" {
			return nil
		}
		rdb, _, err := openRedis(c)
		if err != nil {
			return err
		}
		closeRedis = func() { rdb.Close() }
		grants = grant.New(rdb)
		return nil
	}
	for _, r := range rep.Rules {
		st, err := chain.NewRule(r.Contract, n.client).Stored(n.ctx)
		if err != nil {
			rep.Unread = append(rep.Unread, coverageProblem{OstcID: r.Contract.Hex(), Error: err.Error()})
			continue
		}
		if !st.Encrypted && !envelope.IsSealed([]byte(st.Text)) {
			continue
		}
		e := encryptedRule{Contract: r.Contract, Uses: r.Uses}
		sealed, perr := envelope.ParseSealed(st.Text, envelope.MaxRuleBytes)
		if perr != nil {
			e.Reason, e.Checked = "its envelope is unusable: "+perr.Error(), "envelope"
			rep.Encrypted = append(rep.Encrypted, e)
			rep.Undecryptable++
			continue
		}
		e.RID = grant.RID(sealed.RID).String()
		if err := openGrants(); err != nil {
			return err
		}
		switch {
		case hasKey:
			o := ruleOpener(key, grants, account, n.client, time.Now)
			plain, err := o.OpenRule(n.ctx, r.Contract, st.Text)
			clear(plain)
			e.Checked = "opened with xgr's read key"
			if err != nil {
				if errors.Is(err, rule.ErrUnavailable) {
					return chainFailure(err)
				}
				e.Reason = err.Error()
			} else {
				e.Decrypts, e.Reason = true, "opens with xgr's read key"
			}
		case account != "":
			e.Checked = "grant only (no read key given: not opened)"
			g, err := grants.Get(n.ctx, grant.RID(sealed.RID), grant.ScopeRule, account)
			if err != nil {
				return cli.Exit(fmt.Sprintf("%s: grant store: %v", cmdName(c), err), 1)
			}
			if grant.MayRead(g, account, grant.RID(sealed.RID), grant.ScopeRule, time.Now()) && g.EncDEK != "" {
				e.Decrypts, e.Reason = true, fmt.Sprintf("%s holds a live READ grant with a wrapped key (not opened: give xgr's read key to check that it opens)", account)
			} else {
				e.Reason = fmt.Sprintf("%s holds no live READ grant (scope 1) on its RID", account)
			}
		default:
			e.Checked = "none"
			e.Reason = fmt.Sprintf("xgr has no read key (--read-key-file, $%s) and no --read-key-account: xgr run refuses encrypted rules", envelope.ReadKeyEnv)
		}
		if !e.Decrypts {
			rep.Undecryptable++
		}
		rep.Encrypted = append(rep.Encrypted, e)
	}
	return nil
}
