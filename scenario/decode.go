package scenario

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

// codeInvalid is the problem code of everything this package rejects.
const codeInvalid = "test-suite"

// decoder walks a jsondoc tree and reports problems by JSON path. A decoder
// of JSON embedded in a string of the file (a plan's rawBundleJson) reports
// at that string, with the path and the line:column inside the embedded text.
type decoder struct {
	rep   *jsondoc.Report
	embed *embedding
}

type embedding struct {
	off  int    // offset of the string in the file
	path string // path of the string in the file
	raw  []byte // the embedded text
}

// path renders a path inside the current document as the report shows it.
func (d *decoder) path(p jsondoc.Path) string {
	if d.embed == nil {
		return string(p)
	}
	if p == "" {
		return d.embed.path
	}
	return d.embed.path + " → " + string(p)
}

// errorf records a problem at v (nil: no position) with its path.
func (d *decoder) errorf(v *jsondoc.Value, p jsondoc.Path, format string, args ...any) {
	off := -1
	if v != nil {
		off = v.Off
	}
	msg := fmt.Sprintf(format, args...)
	if d.embed != nil {
		if off >= 0 {
			line, col := jsondoc.LineCol(d.embed.raw, off)
			msg += fmt.Sprintf(" (embedded JSON %d:%d)", line, col)
		}
		off = d.embed.off
	}
	d.rep.Errorf(off, jsondoc.Path(d.path(p)), codeInvalid, "%s", msg)
}

// object reports unless v is an object.
func (d *decoder) object(v *jsondoc.Value, p jsondoc.Path, what string) bool {
	if v == nil || v.Kind != jsondoc.Object {
		d.errorf(v, p, "expected %s (a JSON object), found %s", what, kindOf(v))
		return false
	}
	d.rep.Unique(v, codeInvalid)
	return true
}

// array returns the items of the array member name of v; a missing member
// is an empty list unless required.
func (d *decoder) array(v *jsondoc.Value, p jsondoc.Path, name string, required bool, what string) []*jsondoc.Value {
	m := v.Get(name)
	if m == nil || m.Kind == jsondoc.Null {
		if required {
			d.errorf(v, p.Key(name), "missing %q: %s", name, what)
		}
		return nil
	}
	if m.Kind != jsondoc.Array {
		d.errorf(m, p.Key(name), "expected %s (a JSON array), found %s", what, m.Kind)
		return nil
	}
	if required && len(m.Items) == 0 {
		d.errorf(m, p.Key(name), "%q is empty: %s", name, what)
	}
	return m.Items
}

// str returns the string member name of v ("" when missing or null).
func (d *decoder) str(v *jsondoc.Value, p jsondoc.Path, name string, required bool) string {
	m := v.Get(name)
	if m == nil || m.Kind == jsondoc.Null {
		if required {
			d.errorf(v, p.Key(name), "missing %q (a string)", name)
		}
		return ""
	}
	if m.Kind != jsondoc.String {
		d.errorf(m, p.Key(name), "expected a string, found %s", m.Kind)
		return ""
	}
	if required && strings.TrimSpace(m.Text) == "" {
		d.errorf(m, p.Key(name), "%q is empty", name)
	}
	return m.Text
}

// integer returns the integer member name of v, or def when missing.
func (d *decoder) integer(v *jsondoc.Value, p jsondoc.Path, name string, def, min int64) int64 {
	m := v.Get(name)
	if m == nil || m.Kind == jsondoc.Null {
		return def
	}
	var n int64
	var err error
	switch m.Kind {
	case jsondoc.Number:
		n, err = strconv.ParseInt(m.Text, 10, 64)
	case jsondoc.String: // editors sometimes write numbers as text
		n, err = strconv.ParseInt(strings.TrimSpace(m.Text), 10, 64)
	default:
		err = fmt.Errorf("not a number")
	}
	if err != nil || n < min {
		d.errorf(m, p.Key(name), "expected an integer ≥ %d, found %s", min, literal(m))
		return def
	}
	return n
}

// boolean returns the boolean member name of v, or def when missing.
func (d *decoder) boolean(v *jsondoc.Value, p jsondoc.Path, name string, def bool) bool {
	m := v.Get(name)
	if m == nil || m.Kind == jsondoc.Null {
		return def
	}
	if m.Kind != jsondoc.Bool {
		d.errorf(m, p.Key(name), "expected true or false, found %s", literal(m))
		return def
	}
	return m.True
}

// objectValue returns the object member name of v as a Go map (numbers as
// json.Number); nil when missing or null.
func (d *decoder) objectValue(v *jsondoc.Value, p jsondoc.Path, name, what string) map[string]any {
	m := v.Get(name)
	if m == nil || m.Kind == jsondoc.Null {
		return nil
	}
	if !d.object(m, p.Key(name), what) {
		return nil
	}
	out, _ := goValue(m).(map[string]any)
	return out
}

// goValue converts a jsondoc value to plain Go values: objects to
// map[string]any, arrays to []any, numbers to json.Number (exact), strings,
// booleans and nil. The first of repeated member names wins (Unique reports
// repeats).
func goValue(v *jsondoc.Value) any {
	switch v.Kind {
	case jsondoc.Bool:
		return v.True
	case jsondoc.Number:
		return json.Number(v.Text)
	case jsondoc.String:
		return v.Text
	case jsondoc.Array:
		out := make([]any, len(v.Items))
		for i, it := range v.Items {
			out[i] = goValue(it)
		}
		return out
	case jsondoc.Object:
		out := make(map[string]any, len(v.Members))
		for _, m := range v.Members {
			if _, dup := out[m.Name]; !dup {
				out[m.Name] = goValue(m.Value)
			}
		}
		return out
	}
	return nil
}

func kindOf(v *jsondoc.Value) string {
	if v == nil {
		return "nothing"
	}
	return v.Kind.String()
}

// literal shows a scalar as written, or the kind of a container.
func literal(v *jsondoc.Value) string {
	switch v.Kind {
	case jsondoc.String:
		return strconv.Quote(v.Text)
	case jsondoc.Number:
		return v.Text
	case jsondoc.Bool:
		return strconv.FormatBool(v.True)
	case jsondoc.Null:
		return "null"
	}
	return "an " + v.Kind.String()
}

func quoted(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}
