package jsondoc

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Problem is one finding about a document: where it is and what is wrong.
type Problem struct {
	// Path is the JSON path of the offending value (structure.A1.rule);
	// empty for the whole document.
	Path string `json:"path"`
	// Line and Col locate the value in the document (1-based; 0 when unknown).
	Line int `json:"line"`
	Col  int `json:"col"`
	// Code is a stable machine-readable name of the rule that was broken.
	Code string `json:"code"`
	// Message says what was found and what is allowed.
	Message string `json:"message"`
}

func (p Problem) String() string {
	var b strings.Builder
	if p.Line > 0 {
		fmt.Fprintf(&b, "%d:%d: ", p.Line, p.Col)
	}
	if p.Path != "" {
		b.WriteString(p.Path)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// CodeSyntax is the code of a problem that stopped parsing.
const CodeSyntax = "syntax"

// Invalid is the error of a rejected document: every problem found, not just
// the first, and the warnings.
type Invalid struct {
	// Subject names the kind of document ("orchestration", "rule document").
	Subject  string
	Problems []Problem
	Warnings []Problem
}

func (e *Invalid) Error() string {
	if len(e.Problems) == 1 {
		return "invalid " + e.Subject + ": " + e.Problems[0].String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "invalid %s: %d problems", e.Subject, len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}

// Report collects the problems and warnings of one document and locates
// them by line and column.
type Report struct {
	raw      []byte
	lines    []int // offsets of '\n', built on first use
	Problems []Problem
	Warnings []Problem
}

// NewReport starts a report on raw.
func NewReport(raw []byte) *Report { return &Report{raw: raw} }

// Pos converts a byte offset into a 1-based line and column.
func (r *Report) Pos(off int) (line, col int) {
	if r.lines == nil {
		r.lines = make([]int, 0, 64)
		for i, c := range r.raw {
			if c == '\n' {
				r.lines = append(r.lines, i)
			}
		}
	}
	n := sort.SearchInts(r.lines, off) // newlines before off
	start := 0
	if n > 0 {
		start = r.lines[n-1] + 1
	}
	return n + 1, off - start + 1
}

func (r *Report) add(list *[]Problem, off int, path Path, code, format string, args ...any) {
	p := Problem{Path: string(path), Code: code, Message: fmt.Sprintf(format, args...)}
	if off >= 0 {
		p.Line, p.Col = r.Pos(off)
	}
	*list = append(*list, p)
}

// Errorf records a problem at byte offset off (-1: no position).
func (r *Report) Errorf(off int, path Path, code, format string, args ...any) {
	r.add(&r.Problems, off, path, code, format, args...)
}

// Warnf records a warning at byte offset off (-1: no position).
func (r *Report) Warnf(off int, path Path, code, format string, args ...any) {
	r.add(&r.Warnings, off, path, code, format, args...)
}

// Syntax records the error of Parse as a problem (broken JSON).
func (r *Report) Syntax(err error) {
	var se *SyntaxError
	if errors.As(err, &se) {
		r.Problems = append(r.Problems, Problem{Line: se.Line, Col: se.Col, Code: CodeSyntax, Message: "broken JSON: " + se.Msg})
		return
	}
	r.Problems = append(r.Problems, Problem{Code: CodeSyntax, Message: err.Error()})
}

// Unique records a problem for each repeated member name of an object.
func (r *Report) Unique(v *Value, code string) {
	for i := 1; i < len(v.Members); i++ {
		for j := 0; j < i; j++ {
			if v.Members[i].Name == v.Members[j].Name {
				line, col := r.Pos(v.Members[j].NameOff)
				r.Errorf(v.Members[i].NameOff, v.Members[i].Value.Path(), code,
					"member %q appears twice in this object (first at %d:%d); JSON readers disagree on which one wins", v.Members[i].Name, line, col)
				break
			}
		}
	}
}

// Err returns the *Invalid error when problems were found, else nil.
func (r *Report) Err(subject string) error {
	if len(r.Problems) == 0 {
		return nil
	}
	return &Invalid{Subject: subject, Problems: r.Problems, Warnings: r.Warnings}
}

// Report is header followed by every problem on its own indented line,
// located in file (Problem.Located, severity "error").
func (e *Invalid) Report(header, file string) string {
	lines := []string{header}
	for _, p := range e.Problems {
		lines = append(lines, "  "+p.Located(file, "error"))
	}
	return strings.Join(lines, "\n")
}
