package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/reactor/wakeup"
)

// payloadWhat names the start payload in messages.
const payloadWhat = "the start payload"

// allowedShape is what a payload may be.
var allowedShape = fmt.Sprintf("one JSON object, nested at most %d levels, each name once in an object", joinstore.MaxPayloadDepth)

// allowedWakeUp is what a "__wakeUp" allow list may be.
const allowedWakeUp = `{"steps": {STEP: ENTRY}, "default": ENTRY}, an ENTRY {"rpc": [0x addresses], "internal": [...] or {"allow": [...], "fromXRC137": [...]}}`

// checkPayload checks a start payload ({} when empty) as a start on store
// needs it, each check once: the size cap, the shape, the "__wakeUp" allow
// list (a session never starts with a list that would silently deny).
func checkPayload(store *joinstore.Store, raw json.RawMessage) *Error {
	if err := store.CheckPayloadSize(payloadWhat, raw); err != nil {
		return refuse(KindPayloadTooLarge, "payload", fmt.Sprintf("at most %d bytes (XGR_MAX_PAYLOAD)", store.MaxPayload()), err)
	}
	if err := joinstore.CheckPayloadShape(payloadWhat, raw); err != nil {
		path := "payload"
		var se *jsondoc.ShapeError
		if errors.As(err, &se) {
			path = se.Path.String()
		}
		return refuse(KindPayloadInvalid, path, allowedShape, err)
	}
	p, err := reactor.UnmarshalPayload(raw)
	if err != nil || p == nil {
		return refuse(KindPayloadInvalid, "payload", allowedShape, fmt.Errorf("%s: want a JSON object (%v)", payloadWhat, err))
	}
	v, ok := p[wakeup.Key]
	if !ok {
		return nil
	}
	if _, err := wakeup.Parse(v); err != nil {
		// wakeup.Parse names the path first: "__wakeUp.steps.A1.rpc[0]: …".
		at, _, _ := strings.Cut(err.Error(), ": ")
		if !strings.HasPrefix(at, wakeup.Key) {
			at = wakeup.Key
		}
		return refuse(KindPayloadInvalid, "payload."+at, allowedWakeUp, fmt.Errorf("payload.%w", err))
	}
	return nil
}
