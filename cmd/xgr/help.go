package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// Help output: every flag on one line with its default and variable, its
// usage on the next, and no categories. urfave/cli's own layout prints a
// line of blanks before every flag and puts --help alone under an empty
// "MISC" group.
func init() {
	for _, t := range []*string{&cli.AppHelpTemplate, &cli.CommandHelpTemplate, &cli.SubcommandHelpTemplate} {
		*t = strings.Replace(*t, `{{template "visibleFlagCategoryTemplate" .}}{{else if .VisibleFlags}}`, `{{template "visibleFlagTemplate" .}}{{else if .VisibleFlags}}`, 1)
		*t = strings.Replace(*t, `{{if .VisibleFlagCategories}}`, `{{if .VisibleFlags}}`, 1)
	}
	cli.FlagStringer = flagHelp
}

// flagHelp is one flag's help: "--name VALUE (default: D) [$ENV]" and the
// usage indented below it.
func flagHelp(f cli.Flag) string {
	df, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return strings.Join(f.Names(), ", ")
	}
	var names []string
	for _, n := range f.Names() {
		if len(n) == 1 {
			n = "-" + n
		} else {
			n = "--" + n
		}
		if df.TakesValue() {
			n += " value"
		}
		names = append(names, n)
	}
	head := strings.Join(names, ", ")
	if bf, isBool := f.(*cli.BoolFlag); !isBool || !bf.DisableDefaultText {
		if d := df.GetDefaultText(); d != "" && d != "false" && d != `""` {
			head += fmt.Sprintf(" (default: %s)", d)
		}
	}
	if env := df.GetEnvVars(); len(env) > 0 {
		head += " [$" + strings.Join(env, ", $") + "]"
	}
	if u := df.GetUsage(); u != "" {
		return head + "\n      " + u
	}
	return head
}
