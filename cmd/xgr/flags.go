package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// interspersed reads flags written after the positional arguments, as in
// "xgr rule eval FILE --payload P.json" (urfave/cli v2 stops parsing flags
// at the first positional argument). It returns the positional arguments.
func interspersed(c *cli.Context) ([]string, error) {
	var pos []string
	args := c.Args().Slice()
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := findFlag(c.Command, name)
		if f == nil {
			return nil, fmt.Errorf("flag provided but not defined: %s", a)
		}
		name = f.Names()[0] // aliases share the value only through the primary name
		if !hasVal {
			if _, isBool := f.(*cli.BoolFlag); isBool {
				val = "true"
			} else {
				if i+1 >= len(args) {
					return nil, fmt.Errorf("flag %s needs a value", a)
				}
				i++
				val = args[i]
			}
		}
		if err := c.Set(name, val); err != nil {
			return nil, fmt.Errorf("flag %s: %v", a, err)
		}
	}
	return pos, nil
}

func findFlag(cmd *cli.Command, name string) cli.Flag {
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}
