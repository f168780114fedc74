package main

import (
	"io"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// leafCommands lists every command that does something, by its path
// ("session start").
func leafCommands() map[string]*cli.Command {
	out := map[string]*cli.Command{}
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Name == "help" {
				continue
			}
			path := strings.TrimSpace(prefix + " " + c.Name)
			if len(c.Subcommands) > 0 {
				walk(path, c.Subcommands)
				continue
			}
			out[path] = c
		}
	}
	walk("", newApp(io.Discard, io.Discard).Commands)
	return out
}

// notResults are the commands that print no result to take as JSON: long
// runs that log, and a drawing whose format is chosen with --format.
var notResults = map[string]string{
	"run":        "a service: it logs (--log-format json)",
	"dev":        "a demo: it prints a live timeline and logs",
	"ostc graph": "prints a drawing; --format chooses dot or mermaid",
	"health":     "a probe for container healthchecks: its exit status is the answer",
}

// Every command that prints a result takes --json.
func TestResultCommandsTakeJSON(t *testing.T) {
	for path, c := range leafCommands() {
		if _, skip := notResults[path]; skip {
			continue
		}
		if !hasFlag(c.Flags, "json") {
			t.Errorf("xgr %s has no --json", path)
		}
	}
}

// A usage mistake exits 2 with the command's name, for every command; the
// same for an unknown command, also through help.
func TestUsageMistakesExit2(t *testing.T) {
	for path := range leafCommands() {
		args := append(strings.Fields(path), "--no-such-flag")
		_, stderr, code := runBinary(t, nil, args...)
		if code != 2 || !strings.Contains(stderr, "xgr: "+path+": flag provided but not defined: -no-such-flag (see xgr "+path+" --help)") {
			t.Errorf("xgr %s: exit %d, want 2 with the command named:\n%s", strings.Join(args, " "), code, stderr)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"nope"}, `unknown command "nope" for "xgr"; commands: ostc, registry, rule, keys, simulate, session, owner, meter, run, index, dev, scenario, rpc, grants, executions, bench, health, version`},
		{[]string{"help", "nope"}, `unknown command "nope" for "xgr"`},
		{[]string{"session", "nope"}, `unknown command "nope" for "xgr session"; commands: start, list, show, kill, pause, resume, wake, log`},
		{[]string{"help", "session", "nope"}, `unknown command "nope" for "xgr session"`},
		{[]string{"session", "list"}, "session list: --owner is required (or $XGR_OWNER)"},
		{[]string{"--nope", "version"}, "xgr: flag provided but not defined: -nope (see xgr --help)"},
		{[]string{"session", "--nope", "list"}, "xgr: session: flag provided but not defined: -nope (see xgr session --help)"},
		{[]string{"ostc", "hash", "/nonexistent.json"}, "no such file"},
		{[]string{"ostc", "validate", "/nonexistent.json"}, "1 of 1 file(s) could not be read"},
		{[]string{"rule", "validate", "/nonexistent.json"}, "1 of 1 file(s) could not be read"},
		{[]string{"rule", "eval", "/nonexistent.json"}, "no such file"},
		{[]string{"simulate", "/nonexistent.json"}, "no such file"},
		{[]string{"sesion", "list"}, `unknown command "sesion" for "xgr" (did you mean "session"?); commands:`},
		{[]string{"session", "lsit"}, `unknown command "lsit" for "xgr session" (did you mean "list"?)`},
		{[]string{"session", "list", "--limt", "3"}, "session list: flag provided but not defined: -limt (did you mean --limit?) (see xgr session list --help)"},
		{[]string{"--log-levl", "info", "version"}, "flag provided but not defined: -log-levl (did you mean --log-level?)"},
		{[]string{"--log-level", "loud", "version"}, `--log-level "loud": use debug, info, warn or error`},
		{[]string{"version", "--log-format", "xml"}, `--log-format "xml": use text or json`},
	} {
		_, stderr, code := runBinary(t, nil, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("xgr %v: exit %d, want 2 with %q:\n%s", tc.args, code, tc.want, stderr)
		}
	}
}

// help CMD shows what CMD --help shows: the subcommands of a group.
func TestHelpShowsSubcommands(t *testing.T) {
	for _, args := range [][]string{{"help", "session"}, {"session", "--help"}, {"session", "help"}} {
		out, _, code := runBinary(t, nil, args...)
		if code != 0 || !strings.Contains(out, "COMMANDS:") || !strings.Contains(out, "wake") {
			t.Errorf("xgr %v: exit %d:\n%s", args, code, out)
		}
	}
	out, _, code := runBinary(t, nil, "help", "session", "wake")
	if code != 0 || !strings.Contains(out, "xgr session wake - make waiting processes due now") || !strings.Contains(out, "--json") {
		t.Errorf("xgr help session wake: exit %d:\n%s", code, out)
	}
	out, _, _ = runBinary(t, nil, "simulate", "--help")
	if !strings.Contains(out, "unset: each step waits its own waitSec") || !strings.Contains(out, "--step value, --start value") {
		t.Errorf("simulate --help: --wait-override's default or --step:\n%s", out)
	}
}

// Global flags may follow the command.
func TestGlobalFlagsAfterTheCommand(t *testing.T) {
	out, stderr, code := runBinary(t, nil, "version", "--json", "--log-level", "debug", "--log-format=json")
	if code != 0 || !strings.Contains(out, `"version":"dev"`) {
		t.Errorf("exit %d: %s %s", code, out, stderr)
	}
}

// Help has no lines of blanks and no empty flag groups, for every command.
func TestHelpHasNoStrayLines(t *testing.T) {
	paths := []string{""}
	for path := range leafCommands() {
		paths = append(paths, path)
	}
	for _, path := range paths {
		out, _, code := runBinary(t, nil, append(strings.Fields(path), "--help")...)
		if code != 0 {
			t.Errorf("xgr %s --help: exit %d", path, code)
			continue
		}
		for i, line := range strings.Split(out, "\n") {
			if line != "" && strings.TrimSpace(line) == "" {
				t.Errorf("xgr %s --help: line %d holds only blanks:\n%s", path, i+1, out)
				break
			}
		}
		if strings.Contains(out, "MISC") {
			t.Errorf("xgr %s --help: an empty MISC group:\n%s", path, out)
		}
	}
}
