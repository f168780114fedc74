package main

import (
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// guideOf names the guide that documents each command: every flag of the
// command (its long name, written --name) and every environment variable
// that sets one must appear there, so the flag tables cannot drift from
// the code. A command missing from this map fails the test too.
var guideOf = map[string]string{
	"xgr":                   "docs/operating.md", // the global flags
	"xgr version":           "docs/operating.md",
	"xgr run":               "docs/operating.md",
	"xgr dev":               "docs/operating.md",
	"xgr index status":      "docs/operating.md",
	"xgr index triggers":    "docs/operating.md",
	"xgr session start":     "docs/operating.md",
	"xgr session list":      "docs/operating.md",
	"xgr session show":      "docs/operating.md",
	"xgr session kill":      "docs/operating.md",
	"xgr session pause":     "docs/operating.md",
	"xgr session resume":    "docs/operating.md",
	"xgr session wake":      "docs/operating.md",
	"xgr session log":       "docs/operating.md",
	"xgr owner":             "docs/operating.md",
	"xgr meter":             "docs/operating.md",
	"xgr grants list":       "docs/rpc.md",
	"xgr grants set":        "docs/rpc.md",
	"xgr grants revoke":     "docs/rpc.md",
	"xgr simulate":          "docs/authoring.md",
	"xgr bench":             "docs/performance.md",
	"xgr ostc validate":     "docs/authoring.md",
	"xgr ostc hash":         "docs/authoring.md",
	"xgr ostc graph":        "docs/authoring.md",
	"xgr ostc reach":        "docs/authoring.md",
	"xgr ostc link":         "docs/authoring.md",
	"xgr ostc put":          "docs/authoring.md",
	"xgr ostc get":          "docs/authoring.md",
	"xgr ostc meta":         "docs/authoring.md",
	"xgr ostc list":         "docs/authoring.md",
	"xgr ostc delete":       "docs/authoring.md",
	"xgr ostc coverage":     "docs/operating.md",
	"xgr registry deploy":   "docs/authoring.md",
	"xgr rule validate":     "docs/authoring.md",
	"xgr rule eval":         "docs/authoring.md",
	"xgr rule deploy":       "docs/authoring.md",
	"xgr rule get":          "docs/authoring.md",
	"xgr rule update":       "docs/authoring.md",
	"xgr rule encrypt":      "docs/authoring.md",
	"xgr rule decrypt":      "docs/authoring.md",
	"xgr rule gas":          "docs/authoring.md",
	"xgr keys generate":     "docs/authoring.md",
	"xgr keys show":         "docs/authoring.md",
	"xgr keys register":     "docs/authoring.md",
	"xgr keys lookup":       "docs/authoring.md",
	"xgr keys clear":        "docs/authoring.md",
	"xgr scenario run":      "docs/scenario.md",
	"xgr scenario validate": "docs/scenario.md",
	"xgr rpc start":         "docs/rpc.md",
	"xgr rpc kill":          "docs/rpc.md",
	"xgr rpc wake":          "docs/rpc.md",
	"xgr rpc list":          "docs/rpc.md",
	"xgr rpc alive":         "docs/rpc.md",
	"xgr rpc executed":      "docs/rpc.md",
	"xgr executions policy": "docs/executions.md",
	"xgr health":            "docs/runbook.md",
}

func TestGuidesDocumentEveryFlag(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	docs := map[string]string{}
	read := func(path string) string {
		if _, ok := docs[path]; !ok {
			raw, err := os.ReadFile("../../" + path)
			if err != nil {
				t.Fatal(err)
			}
			docs[path] = string(raw)
		}
		return docs[path]
	}
	check := func(name string, flags []cli.Flag) {
		guide, ok := guideOf[name]
		if !ok {
			if len(flags) > 0 {
				t.Errorf("%s: no guide documents this command's flags (add it to guideOf and to a docs/ page)", name)
			}
			return
		}
		doc := read(guide)
		for _, f := range flags {
			long := "--" + f.Names()[0]
			if !regexp.MustCompile(`(^|[^\w-])` + long + `($|[^\w-])`).MatchString(doc) {
				t.Errorf("%s: %s does not document the flag %s", name, guide, long)
			}
			if e, ok := f.(interface{ GetEnvVars() []string }); ok {
				for _, env := range e.GetEnvVars() {
					if !strings.Contains(doc, env) {
						t.Errorf("%s: %s does not document %s (the variable of --%s)", name, guide, env, f.Names()[0])
					}
				}
			}
		}
	}
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Name == "help" {
				continue
			}
			name := prefix + " " + c.Name
			if len(c.Subcommands) > 0 {
				walk(name, c.Subcommands)
				continue
			}
			check(name, c.Flags)
		}
	}
	check("xgr", app.Flags)
	walk("xgr", app.Commands)
}
