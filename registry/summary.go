package registry

import (
	"errors"
	"fmt"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

// Summarize parses an orchestration document and says what it holds (id,
// steps, hash), as `xgr ostc validate` reports it; a rejected document is
// Parse's error.
func Summarize(raw []byte) (jsondoc.Summary, error) {
	o, err := Parse(raw)
	if err != nil {
		return jsondoc.Summary{}, err
	}
	return jsondoc.Summary{
		Text:     fmt.Sprintf("id %s, %d steps, hash %s", o.ID, len(o.Steps), o.Hash.Hex()),
		Fields:   map[string]any{"id": o.ID, "steps": len(o.Steps), "hash": o.Hash.Hex()},
		Warnings: o.Warnings,
	}, nil
}

// CheckStored judges raw as the document to store under id in a registry
// (setOSTC): the problems that refuse it (it does not parse or validate,
// or its "id" is not id) or, when there are none, Parse's warnings.
func CheckStored(raw []byte, id string) (problems, warnings []Problem) {
	o, err := Parse(raw)
	var ve *ValidationError
	switch {
	case errors.As(err, &ve):
		return ve.Problems, nil
	case err != nil:
		return []Problem{{Code: "parse", Message: err.Error()}}, nil
	case o.ID != id:
		return []Problem{{Path: "id", Code: "id", Message: fmt.Sprintf("document id %q differs from the registry ID %q", o.ID, id)}}, nil
	}
	return nil, o.Warnings
}
