package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
	"github.com/xgr-sidecar/xgr/joinstore"
)

// syntaxDepth only bounds the recursion of the syntax check of a payload
// file; the payload's own depth cap (joinstore.MaxPayloadDepth) is
// checked after it, by path.
const syntaxDepth = 1 << 12

// readPayloadObject reads the JSON object of a --payload file, checked
// before anything is written: broken JSON is reported as FILE:LINE:COL,
// a value that is not a payload object (not an object, too deep, a
// repeated member name) by its path in the payload.
func readPayloadObject(file string) ([]byte, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if _, err := jsondoc.Parse(raw, syntaxDepth); err != nil {
		var se *jsondoc.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s:%d:%d: broken JSON: %s", file, se.Line, se.Col, se.Msg)
		}
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if err := joinstore.CheckPayloadShape(file, raw); err != nil {
		return nil, err
	}
	return raw, nil
}
