package jsondoc

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Located formats the problem the way compilers do, so that editors can
// jump to it: "FILE:LINE:COL: severity: PATH: message" (without the
// position when it is unknown, without PATH for the whole document).
func (p Problem) Located(file, severity string) string {
	loc := file
	if p.Line > 0 {
		loc = fmt.Sprintf("%s:%d:%d", file, p.Line, p.Col)
	}
	if p.Path != "" {
		return fmt.Sprintf("%s: %s: %s: %s", loc, severity, p.Path, p.Message)
	}
	return fmt.Sprintf("%s: %s: %s", loc, severity, p.Message)
}

// Summary is what a document's parser says about a document it accepted.
type Summary struct {
	// Text completes the "FILE: ok: …" line of a validation.
	Text string
	// Fields are added to the document's JSON verdict.
	Fields map[string]any
	// Warnings are the findings that do not reject the document.
	Warnings []Problem
}

// Summarizer parses one document: its Summary, or an error that rejects
// it (an *Invalid lists every problem; any other error is one problem).
type Summarizer func(raw []byte) (Summary, error)

// Verdict is what validating one document file found.
type Verdict struct {
	File    string
	Summary Summary
	// Errors reject the document; Warnings do not (unless strict).
	Errors, Warnings []Problem
	// Unreadable is set when the file could not be read (Errors says why).
	Unreadable bool
}

// CheckFile reads file and judges it with parse.
func CheckFile(file string, parse Summarizer) Verdict {
	v := Verdict{File: file}
	raw, err := os.ReadFile(file)
	if err != nil {
		v.Errors, v.Unreadable = []Problem{{Code: "read", Message: err.Error()}}, true
		return v
	}
	s, err := parse(raw)
	var inv *Invalid
	switch {
	case err == nil:
		v.Summary, v.Warnings = s, s.Warnings
	case errors.As(err, &inv):
		v.Errors, v.Warnings = inv.Problems, inv.Warnings
	default:
		v.Errors = []Problem{{Code: "parse", Message: err.Error()}}
	}
	return v
}

// OK reports whether the document passes: no errors, and under strict no
// warnings either.
func (v Verdict) OK(strict bool) bool {
	return len(v.Errors) == 0 && !(strict && len(v.Warnings) > 0)
}

// JSON is the verdict as one JSON object: file, ok, errors, warnings (never
// null) and the summary's fields.
func (v Verdict) JSON(strict bool) map[string]any {
	r := map[string]any{"file": v.File, "ok": v.OK(strict), "errors": nonNil(v.Errors), "warnings": nonNil(v.Warnings)}
	for k, x := range v.Summary.Fields {
		r[k] = x
	}
	return r
}

// WriteText prints every problem compiler-style (Located), then one
// summary line: "FILE: INVALID (…)" or "FILE: ok: <summary>, N warnings".
func (v Verdict) WriteText(w io.Writer, strict bool) {
	for _, p := range v.Errors {
		fmt.Fprintln(w, p.Located(v.File, "error"))
	}
	for _, p := range v.Warnings {
		fmt.Fprintln(w, p.Located(v.File, "warning"))
	}
	switch {
	case len(v.Errors) > 0:
		fmt.Fprintf(w, "%s: INVALID (%d errors, %d warnings)\n", v.File, len(v.Errors), len(v.Warnings))
	case !v.OK(strict):
		fmt.Fprintf(w, "%s: INVALID under --strict (%d warnings)\n", v.File, len(v.Warnings))
	default:
		fmt.Fprintf(w, "%s: ok: %s, %d warnings\n", v.File, v.Summary.Text, len(v.Warnings))
	}
}

func nonNil(ps []Problem) []Problem {
	if ps == nil {
		return []Problem{}
	}
	return ps
}
