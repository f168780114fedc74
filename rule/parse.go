package rule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

// Parse reads an XRC-137 rule document exactly as stored and validates it
// against the rule document spec and the caps of XDaLa_Limits.md §3. Every
// expression is compiled (so CEL errors and evaluator caps are reported
// here too). A rejected document returns a *ValidationError listing every
// problem with its JSON path and line:column; broken JSON is one problem at
// the line:column where parsing stopped. Unknown fields are warnings.
func Parse(raw []byte) (*Document, error) {
	d := decoder{raw: raw, Report: jsondoc.NewReport(raw)}
	doc := d.document()
	if err := d.Err("rule document"); err != nil {
		return nil, err
	}
	doc.Hash = crypto.Keccak256Hash(raw)
	doc.Warnings = d.Warnings
	return doc, nil
}

// decoder walks the jsondoc tree, building the model and collecting problems.
type decoder struct {
	raw []byte
	*jsondoc.Report
}

func (d *decoder) errorf(v *jsondoc.Value, path jsondoc.Path, code, format string, args ...any) {
	d.Errorf(offOf(v), path, code, format, args...)
}

func (d *decoder) warnf(v *jsondoc.Value, path jsondoc.Path, code, format string, args ...any) {
	d.Warnf(offOf(v), path, code, format, args...)
}

func offOf(v *jsondoc.Value) int {
	if v == nil {
		return -1
	}
	return v.Off
}

// expect reports a type problem unless v has one of the kinds.
func (d *decoder) expect(v *jsondoc.Value, path jsondoc.Path, what string, kinds ...jsondoc.Kind) bool {
	for _, k := range kinds {
		if v.Kind == k {
			return true
		}
	}
	d.errorf(v, path, CodeType, "expected %s, found %s", what, v.Kind)
	return false
}

// members checks an object's member names for repeats and unknown names and
// returns the known members by name. known lists the accepted names.
func (d *decoder) members(v *jsondoc.Value, path jsondoc.Path, known ...string) map[string]*jsondoc.Value {
	out := make(map[string]*jsondoc.Value, len(v.Members))
	first := make(map[string]int, len(v.Members))
	for _, m := range v.Members {
		if at, dup := first[m.Name]; dup {
			line, col := d.Pos(at)
			d.Errorf(m.NameOff, path.Key(m.Name), CodeDuplicate,
				"member %q appears twice in this object (first at %d:%d); JSON readers disagree on which one wins", m.Name, line, col)
			continue
		}
		first[m.Name] = m.NameOff
		if !contains(known, m.Name) {
			d.Warnf(m.NameOff, path.Key(m.Name), CodeUnknownField,
				"unknown field %q is ignored (known here: %s)", m.Name, quoteList(known))
			continue
		}
		out[m.Name] = m.Value
	}
	return out
}

// forbid turns selected names, which members() warned about as unknown,
// into errors with a specific message.
func (d *decoder) forbid(v *jsondoc.Value, path jsondoc.Path, name, why string) {
	for _, m := range v.Members {
		if m.Name == name {
			d.dropWarning(path.Key(name))
			d.Errorf(m.NameOff, path.Key(name), CodeForbidden, "%q is not allowed here: %s", name, why)
			return
		}
	}
}

func (d *decoder) dropWarning(path jsondoc.Path) {
	for i := len(d.Warnings) - 1; i >= 0; i-- {
		if d.Warnings[i].Path == string(path) && d.Warnings[i].Code == CodeUnknownField {
			d.Warnings = append(d.Warnings[:i], d.Warnings[i+1:]...)
			return
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// require reports a missing member.
func (d *decoder) require(obj *jsondoc.Value, m map[string]*jsondoc.Value, path jsondoc.Path, name, hint string) bool {
	if _, ok := m[name]; ok {
		return true
	}
	d.errorf(obj, path.Key(name), CodeRequired, "missing %q: %s", name, hint)
	return false
}

// chars counts characters as the caps of XDaLa_Limits.md do.
func chars(s string) int { return utf8.RuneCountInString(s) }

// str reads a string member and checks its length against max characters.
func (d *decoder) str(v *jsondoc.Value, path jsondoc.Path, what string, max int, capName string) (string, bool) {
	if !d.expect(v, path, what, jsondoc.String) {
		return "", false
	}
	if n := chars(v.Text); max > 0 && n > max {
		d.errorf(v, path, CodeLimit, "string is %d characters; at most %d are allowed (%s)", n, max, capName)
		return v.Text, false
	}
	return v.Text, true
}

// uintValue reads a whole, non-negative JSON number up to max.
func (d *decoder) uintValue(v *jsondoc.Value, path jsondoc.Path, what string, max uint64) (uint64, bool) {
	if !d.expect(v, path, what, jsondoc.Number) {
		return 0, false
	}
	n, err := parseIntegral(v.Text, true)
	if err != "" || n.Sign() < 0 || !n.IsUint64() || n.Uint64() > max {
		d.errorf(v, path, CodeRange, "%s must be a whole number between 0 and %d, found %s", what, max, v.Text)
		return 0, false
	}
	return n.Uint64(), true
}

// checkFieldName returns "" for a valid payload, output, alias or saveAs
// key, else what is wrong with it.
func checkFieldName(s string) string {
	switch {
	case s == "":
		return "is empty; keys are 1 to 64 characters of [A-Za-z0-9_-]"
	case len(s) > MaxFieldNameLen:
		return fmt.Sprintf("%q is %d characters; at most %d are allowed (MaxFieldNameLen)", s, len(s), MaxFieldNameLen)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(isIdentChar(c) || c == '-') {
			return fmt.Sprintf("%q has characters outside [A-Za-z0-9_-] (ASCII identifier required)", s)
		}
	}
	return ""
}

// fieldName reports a bad key of an object member.
func (d *decoder) fieldName(m jsondoc.Member, path jsondoc.Path, what string) bool {
	if msg := checkFieldName(m.Name); msg != "" {
		d.Errorf(m.NameOff, path.Key(m.Name), CodeIdentifier, "%s %s", what, msg)
		return false
	}
	return true
}

// literal converts a JSON value to Go (numbers as json.Number), checking
// string lengths against MaxStringValueLen on the way.
func (d *decoder) literal(v *jsondoc.Value, path jsondoc.Path) any {
	switch v.Kind {
	case jsondoc.Null:
		return nil
	case jsondoc.Bool:
		return v.True
	case jsondoc.Number:
		return json.Number(v.Text)
	case jsondoc.String:
		if n := chars(v.Text); n > MaxStringValueLen {
			d.errorf(v, path, CodeLimit, "string is %d characters; at most %d are allowed (MaxStringValueLen)", n, MaxStringValueLen)
		}
		return v.Text
	case jsondoc.Array:
		out := make([]any, len(v.Items))
		for i, it := range v.Items {
			out[i] = d.literal(it, path.Index(i))
		}
		return out
	}
	out := make(map[string]any, len(v.Members))
	d.members(v, path, memberNames(v)...)
	for _, m := range v.Members {
		out[m.Name] = d.literal(m.Value, path.Key(m.Name))
	}
	return out
}

func memberNames(v *jsondoc.Value) []string {
	names := make([]string, len(v.Members))
	for i, m := range v.Members {
		names[i] = m.Name
	}
	return names
}

// typed reads a "type" member naming an XRC type.
func (d *decoder) typed(v *jsondoc.Value, path jsondoc.Path) (Type, bool) {
	if !d.expect(v, path, "an XRC type name", jsondoc.String) {
		return TypeInvalid, false
	}
	t, ok := ParseType(v.Text)
	if !ok {
		d.errorf(v, path, CodeXRCType, "unknown type %q; use one of %s", v.Text, xrcTypeList)
	}
	return t, ok
}

// defaultValue casts a "default" member to t.
func (d *decoder) defaultValue(v *jsondoc.Value, path jsondoc.Path, t Type) (any, bool) {
	lit := d.literal(v, path)
	if t == TypeInvalid {
		n, err := normalize(lit)
		if err != nil {
			d.errorf(v, path, CodeDefault, "default: %v", err)
			return nil, false
		}
		return n, true
	}
	c, err := Cast(t, lit)
	if err != nil {
		d.errorf(v, path, CodeDefault, "default does not fit the declared type: %v", err)
		return nil, false
	}
	return c, true
}

var xgr1 = []byte("XGR1.")

func (d *decoder) document() *Document {
	doc := &Document{OnValid: &Branch{}, OnInvalid: &Branch{}, fields: map[string]*Field{}}
	if len(d.raw) > MaxDocumentBytes {
		d.Errorf(-1, "", CodeTooLarge,
			"document is %d bytes; XRC-137 allows at most %d bytes (MaxXRC137Bytes)", len(d.raw), MaxDocumentBytes)
		return doc
	}
	if bytes.HasPrefix(bytes.TrimSpace(d.raw), xgr1) {
		d.Errorf(0, "", CodeSyntax,
			"this is an encrypted XGR1 rule blob; encrypted rule documents are not supported yet, only plaintext JSON")
		return doc
	}
	root, err := jsondoc.Parse(d.raw, maxDocDepth)
	if err != nil {
		d.Syntax(err)
		return doc
	}
	if !d.expect(root, "", `an object with "payload" and "rules"`, jsondoc.Object) {
		return doc
	}
	m := d.members(root, "", "payload", "apiCalls", "contractReads", "rules", "onValid", "onInvalid")
	if v, ok := m["payload"]; ok {
		d.payload(doc, v, "payload")
	} else {
		d.errorf(root, "payload", CodeRequired, `missing "payload": declare the input fields, e.g. {"Amount": {"type": "int64"}} ({} for none)`)
	}
	if v, ok := m["apiCalls"]; ok && v.Kind != jsondoc.Null {
		doc.APICalls = d.apiCalls(v, "apiCalls")
	}
	if v, ok := m["contractReads"]; ok && v.Kind != jsondoc.Null {
		doc.ContractReads = d.contractReads(v, "contractReads")
	}
	if v, ok := m["rules"]; ok && v.Kind != jsondoc.Null {
		doc.Rules = d.rules(v, "rules")
	} else {
		// Spec §3 marks "rules" required, but the published IterationOfPi
		// rule omits it: accepted as [] (valid whenever the required
		// inputs are present, as §3 says of empty rules), with a warning
		// that --strict turns into a refusal.
		d.warnf(root, "rules", CodeRequired, `no "rules": the rule document spec (§3) requires it; read as "rules": [] (the step is valid whenever its required inputs are present), as the published IterationOfPi example relies on; write "rules": [] to say so`)
	}
	if v, ok := m["onValid"]; ok {
		doc.OnValid = d.branch(v, "onValid")
	}
	if v, ok := m["onInvalid"]; ok {
		doc.OnInvalid = d.branch(v, "onInvalid")
	}
	d.shadowing(doc)
	d.forwardRefs(doc, root)
	return doc
}

func (d *decoder) payload(doc *Document, v *jsondoc.Value, path jsondoc.Path) {
	if !d.expect(v, path, "an object mapping input keys to {\"type\", \"default\"}", jsondoc.Object) {
		return
	}
	if len(v.Members) > MaxPayloadFields {
		d.errorf(v, path, CodeLimit, "payload declares %d fields; XRC-137 allows at most %d (MaxPayloadFields)", len(v.Members), MaxPayloadFields)
	}
	for _, mem := range v.Members {
		fp := path.Key(mem.Name)
		if _, dup := doc.fields[mem.Name]; dup {
			d.Errorf(mem.NameOff, fp, CodeDuplicate, "input field %q is declared twice", mem.Name)
			continue
		}
		if !d.fieldName(mem, path, "input field") {
			continue
		}
		spec := mem.Value
		if !d.expect(spec, fp, `a field spec {"type": ..., "default": ...}`, jsondoc.Object) {
			continue
		}
		m := d.members(spec, fp, "type", "default")
		for _, bad := range []string{"value", "expr"} {
			d.forbid(spec, fp, bad, "payload declares inputs (type and optional default); values and expressions belong in apiCalls, contractReads and branches")
		}
		f := &Field{Name: mem.Name}
		if !d.require(spec, m, fp, "type", "name the XRC type of the input") {
			continue
		}
		t, ok := d.typed(m["type"], fp.Key("type"))
		if !ok {
			continue
		}
		f.Type = t
		if dv, ok := m["default"]; ok {
			f.Default, f.HasDefault = d.defaultValue(dv, fp.Key("default"), t)
		}
		doc.Payload = append(doc.Payload, f)
		doc.fields[f.Name] = f
	}
}

// shadowing warns when an extracted or saved key replaces an input field or
// an earlier extracted key.
func (d *decoder) shadowing(doc *Document) {
	seen := map[string]string{}
	for _, f := range doc.Payload {
		seen[f.Name] = "input field"
	}
	note := func(key, what string, path jsondoc.Path) {
		if prev, ok := seen[key]; ok {
			d.Warnf(-1, path, CodeDuplicate, "%s %q replaces the %s of the same name in the environment", what, key, prev)
		}
		seen[key] = what
	}
	for i, c := range doc.APICalls {
		for _, x := range c.Extract {
			note(x.Alias, "alias", jsondoc.Path("apiCalls").Index(i).Key("extractMap").Key(x.Alias))
		}
	}
	for i, r := range doc.ContractReads {
		for _, s := range r.SaveAs {
			note(s.Key, "saveAs key", jsondoc.Path("contractReads").Index(i).Key("saveAs").Key(strconv.Itoa(s.Index)))
		}
	}
}
