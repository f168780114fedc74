package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// version is set at link time: -ldflags "-X main.version=v1.2.3".
var version = "dev"

type buildInfo struct {
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

func readBuildInfo() buildInfo {
	b := buildInfo{Version: version, Go: runtime.Version()}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Revision = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	return b
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the xgr version, source revision and Go version",
		Flags: []cli.Flag{jsonFlag()},
		Action: func(c *cli.Context) error {
			b := readBuildInfo()
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
