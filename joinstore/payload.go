package joinstore

import (
	"errors"
	"fmt"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

// MaxPayloadDepth caps how deeply a payload nests: the payload object is
// level 1, so a value may sit inside at most 31 further objects or arrays.
// It matches the deepest value an XRC-137 expression sees (32 levels), and
// keeps every reader of a payload (the executor, the console, redis-cli
// users) bounded.
const MaxPayloadDepth = 32

// ErrPayloadShape: a payload is not one JSON object, nests deeper than
// MaxPayloadDepth or repeats a member name in an object.
var ErrPayloadShape = errors.New("payload refused")

// payloadError is a refused payload: its message names the payload and
// the JSON path; errors.Is matches ErrPayloadShape, errors.As the
// *jsondoc.ShapeError (its Path).
type payloadError struct {
	msg   string
	shape error
}

func (e *payloadError) Error() string   { return e.msg }
func (e *payloadError) Unwrap() []error { return []error{ErrPayloadShape, e.shape} }

// CheckPayloadShape refuses a payload that is not exactly one JSON object,
// nests deeper than MaxPayloadDepth or repeats a member name in any of its
// objects (a JSON reader would keep one of the two, and not every reader
// the same one). what names the payload ("the start payload"); the error
// names the JSON path (payload.a.b[2]) and the cap. The payload's size is
// the Store's to check (CheckPayload).
func CheckPayloadShape(what string, p []byte) error {
	if err := jsondoc.CheckObject(p, "payload", MaxPayloadDepth); err != nil {
		return &payloadError{msg: fmt.Sprintf("%s: %v", what, err), shape: err}
	}
	return nil
}
