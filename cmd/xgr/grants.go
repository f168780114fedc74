package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/rpc"
	"github.com/xgr-sidecar/xgr/rpc/client"
)

// grantsCommand is `xgr grants list|set|revoke`: the gateway's grant
// methods, signed with a permit of $XGR_PRIVATE_KEY or --keystore (list:
// an xdalaPermit; set and revoke: a GrantPermit bound to the change).
func grantsCommand() *cli.Command {
	flags := func(extra ...cli.Flag) []cli.Flag {
		return append([]cli.Flag{
			&cli.StringFlag{Name: "endpoint", Value: "http://127.0.0.1:8645", EnvVars: []string{"XGR_RPC_ENDPOINT"}, Usage: "the xgr JSON-RPC gateway (http or ws)"},
			&cli.DurationFlag{Name: "timeout", Value: 30 * time.Second, Usage: "give up after this long"},
			&cli.DurationFlag{Name: "expiry", Value: 5 * time.Minute, Usage: "how long the signed permit is valid"},
			keystoreFlag(), passwordFileFlag(), jsonFlag(),
		}, extra...)
	}
	scope := &cli.UintFlag{Name: "scope", Value: 2, Usage: "1 (rules) or 2 (log bundles)"}
	unbound := &cli.BoolFlag{Name: "unbound-permit", Usage: "sign an xdalaPermit instead of the bound GrantPermit (for gateways that predate it, or run with --rpc-allow-unbound-grant-permits)"}
	// A rule RID (scope 1) is owned by the owner() of the rule contract
	// whose encryption header holds it: the change names that contract.
	rule := &cli.StringFlag{Name: "rule", Usage: "with --scope 1: the rule contract whose encryption header holds RID (its owner() owns the RID)"}
	return &cli.Command{
		Name:  "grants",
		Usage: "list, set and revoke grants on encrypted rules and log bundles (xgr_listGrants, xgr_manageGrants)",
		Description: `Each verb signs a permit with the key of $` + chain.PrivateKeyEnv + ` or --keystore FILE
--password-file FILE and calls the gateway: list an xdalaPermit, set and
revoke a GrantPermit that signs the RID, the scope and the entries, so that
it writes exactly this change (--unbound-permit: an xdalaPermit). A bundle's RID is in the output of
"xgr session log" and of xgr_getStepLog. The session owner holds the owner
grant of its bundles and may grant READ (1), WRITE (2) and MANAGE (4);
a grantee with MANAGE grants onward within its own rights and expiry.
See docs/rpc.md#grants-and-log-bundles.`,
		Subcommands: []*cli.Command{
			{
				Name:  "list",
				Usage: "list your grants (with --rid and --scope as the RID's owner or manager: all of its grants)",
				Flags: flags(
					&cli.UintFlag{Name: "scope", Usage: "only scope 1 (rules) or 2 (logs)"},
					&cli.StringFlag{Name: "rid", Usage: "only this RID (0x and 64 hex digits)"},
					&cli.StringFlag{Name: "ref-addr", Usage: "only grants referencing this rule contract"},
					&cli.Int64Flag{Name: "valid-at", Usage: "only grants live at this unix time"},
					&cli.IntFlag{Name: "limit", Usage: "page size (default 100, at most 500)"},
					&cli.Int64Flag{Name: "cursor", Usage: "the nextCursor of the previous page"},
				),
				Action: grantsListAction,
			},
			{
				Name:      "set",
				Usage:     "grant GRANTEE rights on RID (xgr_manageGrants)",
				ArgsUsage: "RID GRANTEE",
				Flags: flags(scope, rule, unbound,
					&cli.UintFlag{Name: "rights", Value: 1, Usage: "bitmask: 1 read, 2 write, 4 manage"},
					&cli.DurationFlag{Name: "for", Value: 30 * 24 * time.Hour, Usage: "the grant expires after this long"},
					&cli.StringFlag{Name: "enc-dek", Usage: "the data key wrapped for the grantee (XGRK2… or 0x hex; empty for a plaintext bundle)"},
					&cli.BoolFlag{Name: "owner", Usage: "mark your own entry as the RID's owner (a rule RID's: the rule contract's owner only)"},
				),
				Action: grantsSetAction,
			},
			{
				Name:      "revoke",
				Usage:     "revoke GRANTEE's grant on RID (rights 0)",
				ArgsUsage: "RID GRANTEE",
				Flags:     flags(scope, rule, unbound),
				Action:    grantsRevokeAction,
			},
		},
	}
}

// grantsCall calls the gateway (rpcCall) with the signer's key; its
// permits expire after --expiry.
func grantsCall(c *cli.Context, f func(ctx context.Context, cl *client.Client, key *ecdsa.PrivateKey) error) error {
	key, err := rpcKey(c)
	if err != nil {
		return err
	}
	return rpcCall(c, func(ctx context.Context, cl *client.Client) error {
		cl.Expiry = c.Duration("expiry")
		return f(ctx, cl, key)
	})
}

func grantsListAction(c *cli.Context) error {
	filters := map[string]any{}
	if v := c.Uint("scope"); v != 0 {
		filters["scope"] = v
	}
	for flag, member := range map[string]string{"rid": "rid", "ref-addr": "refAddr"} {
		if v := c.String(flag); v != "" {
			filters[member] = v
		}
	}
	for flag, member := range map[string]string{"valid-at": "validAt", "cursor": "cursor"} {
		if v := c.Int64(flag); v != 0 {
			filters[member] = v
		}
	}
	if v := c.Int("limit"); v != 0 {
		filters["limit"] = v
	}
	raw, _ := json.Marshal(filters)
	if _, err := grant.ParseFilter(raw); err != nil {
		return usageError("%s: %v", cmdName(c), err)
	}
	return grantsCall(c, func(ctx context.Context, cl *client.Client, key *ecdsa.PrivateKey) error {
		return printGrants(ctx, c, cl, key, filters)
	})
}

func printGrants(ctx context.Context, c *cli.Context, cl *client.Client, key *ecdsa.PrivateKey, filters map[string]any) error {
	page, err := cl.ListGrants(ctx, key, filters)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return json.NewEncoder(c.App.Writer).Encode(page)
	}
	return page.WriteText(c.App.Writer)
}

// grantArgs reads RID GRANTEE and --scope.
func grantArgs(c *cli.Context) (rid, grantee string, scope json.RawMessage, err error) {
	args := c.Args().Slice()
	if len(args) != 2 {
		return "", "", nil, usageError("%s: name the RID and the GRANTEE", cmdName(c))
	}
	r, err := grant.ParseRID(args[0])
	if err != nil {
		return "", "", nil, usageError("%s: RID: %v", cmdName(c), err)
	}
	g, err := grant.NormalizeAddress(args[1])
	if err != nil {
		return "", "", nil, usageError("%s: GRANTEE: %v", cmdName(c), err)
	}
	if s := c.Uint("scope"); s != 1 && s != 2 {
		return "", "", nil, usageError("%s: --scope %d: want 1 (rules) or 2 (logs)", cmdName(c), s)
	}
	return r.String(), g, json.RawMessage(fmt.Sprint(c.Uint("scope"))), nil
}

func grantsSetAction(c *cli.Context) error {
	rid, grantee, scope, err := grantArgs(c)
	if err != nil {
		return err
	}
	rights := c.Uint("rights")
	if rights == 0 || rights > 7 {
		return usageError("%s: --rights %d: want 1..7 (1 read, 2 write, 4 manage; revoke with xgr grants revoke)", cmdName(c), rights)
	}
	if d := c.Duration("for"); d <= 0 || d > grant.MaxLifetime {
		return usageError("%s: --for %s: want more than 0 and at most %s", cmdName(c), d, grant.MaxLifetime)
	}
	if err := grant.CheckEncDEK(c.String("enc-dek")); err != nil {
		return usageError("%s: --enc-dek: %v", cmdName(c), err)
	}
	entry := rpc.GrantEntry{Grantee: grantee, Rights: uint8(rights), ExpireAt: uint64(time.Now().Add(c.Duration("for")).Unix()),
		EncDEK: c.String("enc-dek"), IsOwner: c.Bool("owner")}
	return manageGrant(c, rid, scope, entry, fmt.Sprintf("granted %d to %s on %s", rights, grantee, rid))
}

func grantsRevokeAction(c *cli.Context) error {
	rid, grantee, scope, err := grantArgs(c)
	if err != nil {
		return err
	}
	return manageGrant(c, rid, scope, rpc.GrantEntry{Grantee: grantee}, fmt.Sprintf("revoked %s's grant on %s", grantee, rid))
}

func manageGrant(c *cli.Context, rid string, scope json.RawMessage, e rpc.GrantEntry, text string) error {
	return grantsCall(c, func(ctx context.Context, cl *client.Client, key *ecdsa.PrivateKey) error {
		from := strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex())
		res, err := cl.ManageGrants(ctx, key, rpc.ManageGrantsRequest{RID: rid, Scope: scope, Owner: from, RefAddr: c.String("rule"), Entries: []rpc.GrantEntry{e}})
		if err != nil {
			return err
		}
		return rpcPrint(c, res, text)
	})
}
