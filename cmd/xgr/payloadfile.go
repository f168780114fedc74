package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
	"github.com/xgr-sidecar/xgr/joinstore"
)

// readPayloadObject reads the JSON object of a --payload file, checked
// before anything is written: a value that is not a payload object (not
// an object, nested deeper than joinstore.MaxPayloadDepth, a repeated
// member name) is reported by its path in the payload, broken JSON as
// FILE:LINE:COL.
func readPayloadObject(file string) ([]byte, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	shape := joinstore.CheckPayloadShape(file, raw)
	if shape == nil {
		return raw, nil
	}
	// The shape check stops at the first problem, a syntax error included
	// (by byte offset); the parse locates that one by line and column.
	var se *jsondoc.SyntaxError
	if _, err := jsondoc.Parse(raw, joinstore.MaxPayloadDepth+1); errors.As(err, &se) && !strings.Contains(se.Msg, "nesting") {
		return nil, fmt.Errorf("%s:%d:%d: broken JSON: %s", file, se.Line, se.Col, se.Msg)
	}
	return nil, shape
}
