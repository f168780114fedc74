package main

import (
	"fmt"
	"net"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/replica"
)

// consoleFlags are the operator console's flags (xgr run, xgr dev).
func consoleFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "ui", Value: true, EnvVars: []string{"XGR_UI"}, Usage: "serve the operator console under /ui on --listen (--ui=false or --no-ui: off)"},
		&cli.BoolFlag{Name: "no-ui", Usage: "do not serve the operator console (as --ui=false)"},
		&cli.BoolFlag{Name: "ui-actions", EnvVars: []string{"XGR_UI_ACTIONS"}, Usage: "let the console kill and wake directly, as an operator, without permits (only on a loopback --listen)"},
		&cli.BoolFlag{Name: "ui-public", EnvVars: []string{"XGR_UI_PUBLIC"}, Usage: "serve the console on a --listen address that is not loopback (it has no authentication: put an authenticating proxy in front)"},
	}
}

// consoleOn reports whether the console is served.
func consoleOn(c *cli.Context) bool {
	return c.Bool("ui") && !c.Bool("no-ui") && c.String("listen") != ""
}

// checkConsoleFlags refuses (exit 2) to serve the console on an address
// that is not loopback unless --ui-public says an authenticating proxy is
// in front: it shows every owner's sessions and payloads to whoever
// reaches it. It refuses --ui-actions unless the console is served on a
// loopback address, whatever --ui-public says: direct actions need no
// permit, so only whoever can reach the host's loopback may use them.
func checkConsoleFlags(c *cli.Context) error {
	name := cmdName(c)
	if c.Bool("ui-actions") {
		if !consoleOn(c) {
			return cli.Exit(fmt.Sprintf("%s: --ui-actions needs the console: --ui (the default) and a --listen address", name), 2)
		}
		if !loopback(c.String("listen")) {
			return cli.Exit(fmt.Sprintf("%s: --ui-actions: --listen %q is not a loopback address; direct actions need no permit, so they are served on 127.0.0.1, ::1 or localhost only", name, c.String("listen")), 2)
		}
	}
	if consoleOn(c) && !loopback(c.String("listen")) && !c.Bool("ui-public") {
		return cli.Exit(fmt.Sprintf("%s: --listen %q is not a loopback address, and the console under /ui shows every owner's sessions, payloads and live events to whoever reaches it, without authentication: keep --listen on 127.0.0.1, turn the console off with --no-ui, or put an authenticating proxy in front and pass --ui-public (see docs/operating.md, Listeners and what they expose)", name, c.String("listen")), 2)
	}
	return nil
}

// loopback reports whether a listen address binds the loopback interface
// only.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// consoleOf is the console of the flags (nil when it is off): direct
// actions with --ui-actions.
func consoleOf(c *cli.Context) *replica.Console {
	if !consoleOn(c) {
		return nil
	}
	return &replica.Console{DirectActions: c.Bool("ui-actions")}
}
