package main

import (
	"fmt"
	"net"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/internal/httpserve"
	"github.com/xgr-sidecar/xgr/replica"
)

// gatewayMaxConns is the default of --rpc-max-conns.
const gatewayMaxConns = 256

// listenerFlags are the flags every HTTP listener of xgr run and xgr dev
// shares (the ops/console listener and the gateway).
func listenerFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "vhosts", EnvVars: []string{"XGR_VHOSTS"}, Usage: "host names requests to --listen and --rpc-listen may be addressed to (Host header), besides IP addresses, localhost and the listen address's own name (comma list; * for any): a guard against DNS rebinding"},
	}
}

// hostsHint tells a client whose Host was refused how an operator allows it.
const hostsHint = "an operator adds the name with --vhosts (XGR_VHOSTS)"

// listenerConfig is the hardening of the listener of a flag (httpserve's
// timeouts and caps, the --vhosts allow list). The --metrics-listen
// listener answers any Host: it serves no console and no gateway, only
// metrics and health checks, to scrapers that address it by their own
// names.
func listenerConfig(c *cli.Context, flag string) httpserve.Config {
	hc := httpserve.Config{Name: flag, Hosts: c.StringSlice("vhosts"), HostsHint: hostsHint}
	if flag == "metrics-listen" {
		hc.Hosts = []string{"*"}
	}
	return hc
}

// listenersOf are the ops listeners of the flags that name one (an empty
// one is off); --listen serves the console too when it is on,
// --metrics-listen never does.
func listenersOf(c *cli.Context, flags ...string) []replica.Listener {
	var out []replica.Listener
	for _, f := range flags {
		if addr := c.String(f); addr != "" {
			out = append(out, replica.Listener{Addr: addr, HTTP: listenerConfig(c, f), Console: f == "listen" && consoleOn(c)})
		}
	}
	return out
}

// checkPortsFree binds and releases each listen address the flags name
// (skipping empty ones), so that a taken port is reported before anything
// is started or deployed, naming the flag and its variable (exit 2).
func checkPortsFree(c *cli.Context, flags ...string) error {
	for _, name := range flags {
		addr := c.String(name)
		if addr == "" {
			continue
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return cli.Exit(fmt.Sprintf("%s: --%s %s%s: %v", cmdName(c), name, addr, envHint(c, name), err), 2)
		}
		l.Close()
	}
	return nil
}

// envHint is " (XGR_…)" for a flag of c's command that has a variable.
func envHint(c *cli.Context, name string) string {
	for _, f := range c.Command.Flags {
		for _, n := range f.Names() {
			if n != name {
				continue
			}
			if ev, ok := f.(interface{ GetEnvVars() []string }); ok && len(ev.GetEnvVars()) > 0 {
				return " (" + strings.Join(ev.GetEnvVars(), ", ") + ")"
			}
		}
	}
	return ""
}
