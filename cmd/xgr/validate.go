package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

// checked is what a document validator says about one file.
type checked struct {
	// Summary completes the "FILE: ok: …" line.
	Summary string
	// Fields are added to the file's --json report.
	Fields   map[string]any
	Errors   []jsondoc.Problem
	Warnings []jsondoc.Problem
}

// checkWith adapts a parser that returns *jsondoc.Invalid on rejection.
func checkWith(parse func(raw []byte) (summary string, fields map[string]any, warnings []jsondoc.Problem, err error)) func([]byte) checked {
	return func(raw []byte) checked {
		summary, fields, warnings, err := parse(raw)
		var inv *jsondoc.Invalid
		switch {
		case err == nil:
			return checked{Summary: summary, Fields: fields, Warnings: warnings}
		case errors.As(err, &inv):
			return checked{Errors: inv.Problems, Warnings: inv.Warnings}
		default:
			return checked{Errors: []jsondoc.Problem{{Code: "parse", Message: err.Error()}}}
		}
	}
}

// validateFiles checks every file, prints every problem compiler-style
// (FILE:LINE:COL: severity: PATH: message) and a summary line per file, or
// one JSON report per file, and fails with exit status 1 when any file is
// invalid (or, under strict, has warnings), 2 when a file cannot be read
// (a usage error: the command was not given a document).
func validateFiles(w io.Writer, files []string, asJSON, strict bool, check func([]byte) checked) error {
	reports := make([]map[string]any, 0, len(files))
	failed, unreadable := 0, 0
	for _, file := range files {
		var c checked
		if raw, err := os.ReadFile(file); err != nil {
			c.Errors = []jsondoc.Problem{{Code: "read", Message: err.Error()}}
			unreadable++
		} else {
			c = check(raw)
		}
		ok := len(c.Errors) == 0 && !(strict && len(c.Warnings) > 0)
		if !ok {
			failed++
		}
		if asJSON {
			r := map[string]any{"file": file, "ok": ok, "errors": nonNil(c.Errors), "warnings": nonNil(c.Warnings)}
			for k, v := range c.Fields {
				r[k] = v
			}
			reports = append(reports, r)
			continue
		}
		for _, p := range c.Errors {
			fmt.Fprintln(w, located(file, "error", p))
		}
		for _, p := range c.Warnings {
			fmt.Fprintln(w, located(file, "warning", p))
		}
		switch {
		case len(c.Errors) > 0:
			fmt.Fprintf(w, "%s: INVALID (%d errors, %d warnings)\n", file, len(c.Errors), len(c.Warnings))
		case !ok:
			fmt.Fprintf(w, "%s: INVALID under --strict (%d warnings)\n", file, len(c.Warnings))
		default:
			fmt.Fprintf(w, "%s: ok: %s, %d warnings\n", file, c.Summary, len(c.Warnings))
		}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(reports); err != nil {
			return err
		}
	}
	switch {
	case unreadable > 0:
		return cli.Exit(fmt.Sprintf("%d of %d file(s) could not be read", unreadable, len(files)), 2)
	case failed > 0:
		return cli.Exit("", 1)
	}
	return nil
}

func nonNil(ps []jsondoc.Problem) []jsondoc.Problem {
	if ps == nil {
		return []jsondoc.Problem{}
	}
	return ps
}

// located formats a problem the way compilers do, so editors can jump to it.
func located(file, severity string, p jsondoc.Problem) string {
	loc := file
	if p.Line > 0 {
		loc = fmt.Sprintf("%s:%d:%d", file, p.Line, p.Col)
	}
	if p.Path != "" {
		return fmt.Sprintf("%s: %s: %s: %s", loc, severity, p.Path, p.Message)
	}
	return fmt.Sprintf("%s: %s: %s", loc, severity, p.Message)
}
