package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
)

// healthCommand is xgr health: a replica's /healthz (or /readyz) asked
// over HTTP, for container healthchecks in an image without a shell.
func healthCommand() *cli.Command {
	return &cli.Command{
		Name:  "health",
		Usage: "exit 0 when a replica's /healthz answers 200 in time, else 1 with the reason (a container healthcheck)",
		Description: `Asks a running replica's ops listener: --url names the endpoint, else
--listen the replica's listen address (the same --listen / XGR_LISTEN as
xgr run; a wildcard host such as 0.0.0.0 is asked on 127.0.0.1). /healthz
answers 200 while Redis acknowledges a write in time; --ready asks /readyz.
Exit 0 with "ok" and the answer, else 1 with the status or error and the
answer's first line; a bad flag is 2.

   xgr health --listen 127.0.0.1:9464
   xgr health --url http://127.0.0.1:9464/healthz --timeout 2s`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "url", Usage: "the endpoint to ask, e.g. http://127.0.0.1:9464/healthz (default: from --listen)"},
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:9464", EnvVars: []string{"XGR_LISTEN"}, Usage: "the replica's --listen address"},
			&cli.BoolFlag{Name: "ready", Usage: "ask /readyz (ready to take work) instead of /healthz"},
			&cli.DurationFlag{Name: "timeout", Value: 3 * time.Second, Usage: "fail when the answer takes longer"},
		},
		Action: healthAction,
	}
}

// healthURL is the endpoint xgr health asks: rawURL when given (http or
// https with a host), else path on the listen address, a wildcard or
// empty host replaced by 127.0.0.1.
func healthURL(rawURL, listen, path string) (string, error) {
	if rawURL != "" {
		u, err := url.Parse(rawURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", fmt.Errorf("--url %q: want http://HOST:PORT/PATH", rawURL)
		}
		return rawURL, nil
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil || port == "" {
		return "", fmt.Errorf("--listen %q: want HOST:PORT, the replica's --listen", listen)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + path, nil
}

func healthAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("health: unexpected argument %q (the replica is named by --url or --listen)", c.Args().First())
	}
	if c.Duration("timeout") <= 0 {
		return usageError("health: --timeout %s: want a positive duration", c.Duration("timeout"))
	}
	path := "/healthz"
	if c.Bool("ready") {
		path = "/readyz"
	}
	u, err := healthURL(c.String("url"), c.String("listen"), path)
	if err != nil {
		return usageError("health: %v", err)
	}
	ctx, cancel := context.WithTimeout(c.Context, c.Duration("timeout"))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return usageError("health: %v", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return cli.Exit(fmt.Sprintf("health: %s: no answer within %s", u, c.Duration("timeout")), exitFailed)
		}
		return cli.Exit(fmt.Sprintf("health: %s: %v", u, err), exitFailed)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	first, _, _ := strings.Cut(strings.TrimSpace(string(body)), "\n")
	if resp.StatusCode != http.StatusOK {
		return cli.Exit(fmt.Sprintf("health: %s: %s: %s", u, resp.Status, first), exitFailed)
	}
	fmt.Fprintf(c.App.Writer, "ok: %s: %s\n", u, first)
	return nil
}
