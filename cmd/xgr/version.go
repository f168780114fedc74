package main

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/internal/build"
)

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the xgr version, source revision and Go version",
		Flags: []cli.Flag{jsonFlag()},
		Action: func(c *cli.Context) error {
			b := build.Read()
			if c.Bool("json") {
				return json.NewEncoder(c.App.Writer).Encode(b)
			}
			rev := b.Revision
			if rev == "" {
				rev = "unknown"
			} else if b.Modified {
				rev += "+modified"
			}
			_, err := fmt.Fprintf(c.App.Writer, "xgr %s (revision %s, %s)\n", b.Version, rev, b.Go)
			return err
		},
	}
}
