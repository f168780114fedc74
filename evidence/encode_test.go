package evidence

import (
	"encoding/json"
	"testing"
)

// FuzzEncode: a bundle with any payload and output either is refused by
// Check, or encodes to valid JSON within the cap (or is refused by Encode),
// and what it encodes decodes back with the same identity.
func FuzzEncode(f *testing.F) {
	for _, s := range [][2]string{{`{}`, `{}`}, {`{"a":1}`, `{"b":[1,2,3]}`}, {`{"n":123456789012345678901234567890}`, `{"s":"` + string(make([]byte, 300)) + `"}`},
		{`{"x":"\u00e9"}`, ``}, {`[1]`, `{}`}, {`{"a":`, `{}`}} {
		f.Add([]byte(s[0]), []byte(s[1]), uint16(300))
	}
	f.Fuzz(func(t *testing.T, payload, output []byte, max uint16) {
		b := orderBundle(1)
		b.Payload, b.Outcome.Output = payload, output
		if b.Check() != nil {
			return
		}
		out, _, err := Encode(b, int(max)+64)
		if err != nil {
			return
		}
		if len(out) > int(max)+64 || !json.Valid(out) {
			t.Fatalf("%d bytes (cap %d), valid %v", len(out), int(max)+64, json.Valid(out))
		}
		var back Bundle
		if err := json.Unmarshal(out, &back); err != nil || back.Pid != b.Pid || back.Owner != b.Owner || back.V != Version {
			t.Fatalf("decoded %+v %v", back, err)
		}
	})
}
