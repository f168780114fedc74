package rule

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/xgr-sidecar/xgr/envelope"
)

// StoredText is the text an XRC-137 contract is to hold, made from a
// file's bytes: a JSON rule document, kept byte for byte, or an XGR1
// envelope. An envelope is one line: the single line break (\n or \r\n)
// an editor or a shell leaves at its end is dropped (the engine refuses an
// envelope holding one). Unless force, an envelope with another line
// break, and text that is neither JSON nor an envelope, are refused with
// an error that says which.
func StoredText(raw []byte, force bool) ([]byte, error) {
	prefix := []byte(envelope.SealedPrefix)
	if bytes.HasPrefix(raw, prefix) {
		raw = trimOneLineBreak(raw)
		if i := bytes.IndexAny(raw, "\r\n"); i >= 0 && !force {
			return nil, fmt.Errorf("an XGR1 envelope is one line, but it holds a line break at byte %d (only one at its very end is dropped)", i)
		}
		return raw, nil
	}
	if !force {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("not valid JSON (%v)", err)
		}
	}
	return raw, nil
}

// trimOneLineBreak drops one trailing "\n" or "\r\n".
func trimOneLineBreak(b []byte) []byte {
	if t, ok := bytes.CutSuffix(b, []byte("\r\n")); ok {
		return t
	}
	t, _ := bytes.CutSuffix(b, []byte("\n"))
	return t
}
