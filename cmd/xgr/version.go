package main

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/internal/build"
	"github.com/xgr-sidecar/xgr/redisconn"
)

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the xgr version, source revision, Go version and Redis schema version",
		Flags: []cli.Flag{jsonFlag()},
		Action: func(c *cli.Context) error {
			b := build.Read()
			schema, err := redisconn.BuildSchema()
			if err != nil {
				return cli.Exit(err.Error(), 1)
			}
			if c.Bool("json") {
				return json.NewEncoder(c.App.Writer).Encode(struct {
					build.Info
					Schema          int `json:"redisSchema"`
					CompatibleSince int `json:"redisSchemaCompatibleSince"`
				}{b, schema.Version, schema.CompatibleSince})
			}
			rev := b.Revision
			if rev == "" {
				rev = "unknown"
			} else if b.Modified {
				rev += "+modified"
			}
			_, err = fmt.Fprintf(c.App.Writer, "xgr %s (revision %s, %s), redis schema %d (shares Redis with schema %d or later)\n",
				b.Version, rev, b.Go, schema.Version, schema.CompatibleSince)
			return err
		},
	}
}
