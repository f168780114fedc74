package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

// validateFiles checks every file with parse and prints each verdict
// (problems compiler-style and a summary line, or one JSON array); exit
// status 1 when any file is invalid (or, under strict, has warnings), 2 when
// a file cannot be read (a usage error: the command was not given a
// document).
func validateFiles(w io.Writer, files []string, asJSON, strict bool, parse jsondoc.Summarizer) error {
	reports := make([]map[string]any, 0, len(files))
	failed, unreadable := 0, 0
	for _, file := range files {
		v := jsondoc.CheckFile(file, parse)
		if v.Unreadable {
			unreadable++
		}
		if !v.OK(strict) {
			failed++
		}
		if asJSON {
			reports = append(reports, v.JSON(strict))
		} else {
			v.WriteText(w, strict)
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

// located formats a problem the way compilers do (jsondoc.Problem.Located).
func located(file, severity string, p jsondoc.Problem) string { return p.Located(file, severity) }
