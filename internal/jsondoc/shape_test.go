package jsondoc

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckObject(t *testing.T) {
	deep := func(n int) string { return `{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}` }
	for _, ok := range []string{`{}`, ` {"a": 1, "b": [1, {"c": null}], "d": {"a": 1}} `, deep(4),
		`{"a": {"x": 1}, "b": {"x": 2}}`, `{"k": "\u00e9", "l": [[], {}], "m": true}`} {
		if err := CheckObject([]byte(ok), "payload", 4); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, c := range []struct{ in, want string }{
		{deep(5), "payload.a[0][0][0]: nested deeper than 4 levels (at most 4 are allowed)"},
		{`{"x": [0, 1, {"y": {"z": {}}}]}`, "payload.x[2].y.z: nested deeper than 4 levels"},
		{`{"__wakeUp": ["0xabc"], "__wakeUp": []}`, "payload.__wakeUp: duplicate member name"},
		{`{"a": [{"b": 1, "c": 2, "b": 3}]}`, "payload.a[0].b: duplicate member name"},
		{`{"a b": {"x": 1, "x": 1}}`, `payload["a b"].x: duplicate member name`},
		{`[]`, "payload: want a JSON object, not an array"},
		{`"x"`, "payload: want a JSON object, not a string"},
		{``, "payload: empty: want a JSON object"},
		{`{"a": 1} {}`, "payload: unexpected data after the object"},
		{`{"a": }`, "payload: not JSON"},
		{`{"a": 1`, "payload: not JSON: unexpected end of input"},
	} {
		err := CheckObject([]byte(c.in), "payload", 4)
		var se *ShapeError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.in, err, c.want)
		}
	}
	// Depth is refused at the cap, not after reading the rest.
	huge := `{"a":` + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + `}`
	if err := CheckObject([]byte(huge), "payload", 32); err == nil || !strings.Contains(err.Error(), "nested deeper than 32 levels") {
		t.Errorf("9000 levels: %v", err)
	}
}
