package main

import (
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/runconfig"
)

// configFile is the command's --config, read whole by the one parser of
// xgr run's config file (runconfig): every command that takes --config
// accepts and refuses the same files. Without --config it is the zero
// config. A mistake is a usage error naming the command.
func configFile(c *cli.Context) (*runconfig.File, error) {
	f, err := runconfig.Read(c.String("config"))
	if err != nil {
		return nil, usageError("%s: %v", cmdName(c), err)
	}
	return f, nil
}
