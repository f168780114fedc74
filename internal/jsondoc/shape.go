package jsondoc

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// ShapeError is a JSON object refused by CheckObject: where (a path under
// the root name the caller gave) and what.
type ShapeError struct {
	Path Path
	Msg  string
}

func (e *ShapeError) Error() string { return e.Path.String() + ": " + e.Msg }

// CheckObject checks, without building a tree, that raw is exactly one
// JSON object nested at most maxDepth levels deep (the object itself is
// level 1) in which no object repeats a member name. Problems are
// *ShapeError naming the path of the offending value under root (e.g.
// payload.a.b[3]) and the cap.
func CheckObject(raw []byte, root Path, maxDepth int) error {
	type frame struct {
		obj      bool
		path     Path
		name     string // the member being read (objects)
		wantName bool   // the next token is a name or '}' (objects)
		n        int    // items read (arrays)
	}
	dec := jsontext.NewDecoder(bytes.NewReader(raw)) // duplicate names are refused by default
	var stack []frame
	done := func() { // a value ended: the enclosing container moves on
		if len(stack) == 0 {
			return
		}
		if top := &stack[len(stack)-1]; top.obj {
			top.wantName = true
		} else {
			top.n++
		}
	}
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			if err == io.EOF && len(stack) == 0 {
				return &ShapeError{Path: root, Msg: "empty: want a JSON object"}
			}
			var se *jsontext.SyntacticError
			if errors.As(err, &se) && errors.Is(se.Err, jsontext.ErrDuplicateName) && len(stack) > 0 {
				at := stack[len(stack)-1].path.Key(se.JSONPointer.LastToken())
				return &ShapeError{Path: at, Msg: "duplicate member name: each name may appear once in an object"}
			}
			return &ShapeError{Path: root, Msg: "not JSON: " + jsonReason(err)}
		}
		kind := tok.Kind()
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.obj && top.wantName && kind == '"' {
				top.name, top.wantName = tok.String(), false
				continue
			}
		}
		switch kind {
		case '}', ']':
			stack = stack[:len(stack)-1]
			done()
			if len(stack) == 0 {
				if _, err := dec.ReadToken(); err != io.EOF {
					return &ShapeError{Path: root, Msg: "unexpected data after the object"}
				}
				return nil
			}
			continue
		}
		at := root
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			if top.obj {
				at = top.path.Key(top.name)
			} else {
				at = top.path.Index(top.n)
			}
		} else if kind != '{' {
			return &ShapeError{Path: root, Msg: fmt.Sprintf("want a JSON object, not %s", kindWord(kind))}
		}
		switch kind {
		case '{', '[':
			if len(stack) >= maxDepth {
				return &ShapeError{Path: at, Msg: fmt.Sprintf("nested deeper than %d levels (at most %d are allowed)", maxDepth, maxDepth)}
			}
			stack = append(stack, frame{obj: kind == '{', path: at, wantName: kind == '{'})
		default:
			done()
		}
	}
}

func kindWord(k jsontext.Kind) string {
	switch k {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "that"
}

// jsonReason is a decoder error without the package's prefix.
func jsonReason(err error) string {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "unexpected end of input"
	}
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v (at byte %d)", se.Err, se.ByteOffset)
	}
	return err.Error()
}
