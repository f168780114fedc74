package rule

import (
	"sort"
	"strconv"
	"strings"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

func (d *decoder) contractReads(v *jsondoc.Value, path jsondoc.Path) []*ContractRead {
	if !d.expect(v, path, "an array of contract read objects", jsondoc.Array) {
		return nil
	}
	if len(v.Items) > MaxContractReads {
		d.errorf(v, path, CodeLimit, "%d contractReads; XRC-137 allows at most %d (MaxContractReads)", len(v.Items), MaxContractReads)
	}
	var out []*ContractRead
	for i, it := range v.Items {
		if r := d.contractRead(it, path.Index(i)); r != nil {
			out = append(out, r)
		}
	}
	return out
}

func (d *decoder) contractRead(v *jsondoc.Value, path jsondoc.Path) *ContractRead {
	if !d.expect(v, path, "a contract read object", jsondoc.Object) {
		return nil
	}
	m := d.members(v, path, "to", "function", "args", "saveAs", "rpc")
	d.forbid(v, path, "save", `use the "saveAs" map: {"0": {"key": ..., "type": ...}}`)
	d.forbid(v, path, "defaults", `put each default into its saveAs entry: saveAs["0"].default`)
	r := &ContractRead{}
	if d.require(v, m, path, "to", "the contract address (a literal, template or expression)") {
		r.To = d.stringValue(m["to"], path.Key("to"), "an address string")
	}
	if d.require(v, m, path, "function", `a signature such as "balanceOf(address)"`) {
		r.Function = d.signature(m["function"], path.Key("function"), true)
	}
	if av, ok := m["args"]; ok && av.Kind != jsondoc.Null {
		r.Args = d.typedValues(av, path.Key("args"), 0, "")
	}
	if sv, ok := m["saveAs"]; ok && sv.Kind != jsondoc.Null {
		r.SaveAs = d.saveAs(sv, path.Key("saveAs"))
	} else {
		d.warnf(v, path.Key("saveAs"), CodeRequired, `no "saveAs": the read runs but stores nothing`)
	}
	if rv, ok := m["rpc"]; ok && rv.Kind != jsondoc.Null {
		r.RPC, _ = d.str(rv, path.Key("rpc"), "a backend selector string", MaxStringValueLen, "MaxStringValueLen")
	}
	if r.Function != "" {
		d.argCount(v, m["args"], path, r.Function)
		d.tupleLength(m["function"], path.Key("function"), r)
	}
	r.returns = slotTypes(r.SaveAs)
	return r
}

// tupleLength refuses (CodeReturns) a read whose returned tuple's
// length the decoder cannot derive: a signature without return types (the
// spec's form, §6.2) whose saveAs names a slot past index 0 but no string
// or bytes slot. The data of a tuple is its head followed by the data of
// its dynamic values; without return types the head ends at the data's end
// or at the first dynamic offset a string or bytes slot holds. Without such
// a slot, a function that returns dynamic values (string, bytes, arrays)
// next to fewer values than saveAs names would have a slot read that data
// instead of taking its default (spec §6.4). A warning would let that
// wrong value reach the rules at run time, so the document is refused
// until the return types are written.
func (d *decoder) tupleLength(fn *jsondoc.Value, path jsondoc.Path, r *ContractRead) {
	if _, end := SignatureParams(r.Function); end < len(r.Function) {
		return // return types declared: decoded exactly
	}
	last := 0
	for _, s := range r.SaveAs {
		switch s.Type {
		case TypeString, TypeUUID, TypeBytes:
			return
		}
		last = max(last, s.Index)
	}
	if last == 0 {
		return
	}
	d.errorf(fn, path, CodeReturns,
		"%q declares no return types and saveAs names slot %d but no string or bytes slot, so the length of the returned tuple cannot be derived from the data: if the function returns fewer than %d values and a dynamic one (string, bytes, an array), slot %d would decode that data instead of taking its default; write the return types after the parameters, e.g. \"getReserves()(uint112,uint112,uint32)\" (allowed without them: saveAs slot 0 only, or a string or bytes slot among them)",
		r.Function, last, last+1, last)
}

// argCount checks that a call passes one args entry per parameter of its
// signature.
func (d *decoder) argCount(call, args *jsondoc.Value, path jsondoc.Path, sig string) {
	n := 0
	if args != nil && args.Kind == jsondoc.Array {
		n = len(args.Items)
	} else if args != nil && args.Kind != jsondoc.Null {
		return // not an array: reported already
	}
	want, _ := SignatureParams(sig)
	switch {
	case n == want:
	case args == nil || args.Kind == jsondoc.Null:
		d.errorf(call, path.Key("args"), CodeSignature, "function %q takes %d argument(s) but there is no \"args\"; give one {\"type\", \"value\"} per parameter, in order", sig, want)
	default:
		d.errorf(args, path.Key("args"), CodeSignature, "function %q takes %d argument(s), args has %d; give one {\"type\", \"value\"} per parameter, in order", sig, want, n)
	}
}

// SignatureParams reads the parameter list of a signature that passed
// CheckSignature: the number of top-level parameters and the index just
// past the list's closing parenthesis (where a return list would start).
func SignatureParams(sig string) (count, end int) {
	open := strings.IndexByte(sig, '(')
	if open < 0 {
		return 0, len(sig)
	}
	depth := 0
	for i := open; i < len(sig); i++ {
		switch sig[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				if i > open+1 {
					count++
				}
				return count, i + 1
			}
		case ',':
			if depth == 1 {
				count++
			}
		}
	}
	return count, len(sig)
}

// slotTypes lists the saveAs slots by ascending index.
func slotTypes(save []*SaveAs) []ReturnSlot {
	if len(save) == 0 {
		return nil
	}
	out := make([]ReturnSlot, len(save))
	for i, s := range save {
		out[i] = ReturnSlot{Index: s.Index, Type: s.Type}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out
}

func (d *decoder) saveAs(v *jsondoc.Value, path jsondoc.Path) []*SaveAs {
	if !d.expect(v, path, `an object mapping return indexes "0", "1", ... to {"key", "type", "default"}`, jsondoc.Object) {
		return nil
	}
	if len(v.Members) > MaxSaveAs {
		d.errorf(v, path, CodeLimit, "saveAs has %d targets; XRC-137 allows at most %d (MaxContractReadSaveAs)", len(v.Members), MaxSaveAs)
	}
	d.members(v, path, memberNames(v)...)
	var out []*SaveAs
	seen := map[int]bool{}
	for _, mem := range v.Members {
		sp := path.Key(mem.Name)
		idx, err := strconv.Atoi(mem.Name)
		if err != nil || idx < 0 || strconv.Itoa(idx) != mem.Name {
			d.Errorf(mem.NameOff, sp, CodeRange, "saveAs index %q must be a non-negative whole number written plainly (\"0\", \"1\", ...)", mem.Name)
			continue
		}
		if seen[idx] {
			continue
		}
		seen[idx] = true
		if !d.expect(mem.Value, sp, `{"key", "type", "default"}`, jsondoc.Object) {
			continue
		}
		m := d.members(mem.Value, sp, "key", "type", "default")
		s := &SaveAs{Index: idx}
		good := true
		if d.require(mem.Value, m, sp, "key", "the environment key the slot is stored under") && d.expect(m["key"], sp.Key("key"), "a string", jsondoc.String) {
			s.Key = m["key"].Text
			if msg := checkFieldName(s.Key); msg != "" {
				d.errorf(m["key"], sp.Key("key"), CodeIdentifier, "saveAs key %s", msg)
				good = false
			}
		} else {
			good = false
		}
		if d.require(mem.Value, m, sp, "type", "the XRC type the slot is cast to") {
			var ok bool
			if s.Type, ok = d.typed(m["type"], sp.Key("type")); !ok {
				good = false
			}
		} else {
			good = false
		}
		if dv, ok := m["default"]; ok && s.Type != TypeInvalid {
			s.Default, s.HasDefault = d.defaultValue(dv, sp.Key("default"), s.Type)
		}
		if good {
			out = append(out, s)
		}
	}
	return out
}

// typedValues reads an array of TypedValue objects (max 0 = uncapped).
func (d *decoder) typedValues(v *jsondoc.Value, path jsondoc.Path, max int, capName string) []*TypedValue {
	if !d.expect(v, path, `an array of {"type", "value"} objects`, jsondoc.Array) {
		return nil
	}
	if max > 0 && len(v.Items) > max {
		d.errorf(v, path, CodeLimit, "%d args; XRC-137 allows at most %d (%s)", len(v.Items), max, capName)
	}
	var out []*TypedValue
	for i, it := range v.Items {
		if tv := d.typedValue(it, path.Index(i)); tv != nil {
			out = append(out, tv)
		}
	}
	return out
}

func (d *decoder) typedValue(v *jsondoc.Value, path jsondoc.Path) *TypedValue {
	if !d.expect(v, path, `a typed value {"type", "value"}`, jsondoc.Object) {
		return nil
	}
	m := d.members(v, path, "type", "value", "expr", "default")
	tv := &TypedValue{}
	if !d.require(v, m, path, "type", "the XRC type of the value") {
		return nil
	}
	t, ok := d.typed(m["type"], path.Key("type"))
	if !ok {
		return nil
	}
	tv.Type = t
	vv, hasValue := m["value"]
	ev, hasExpr := m["expr"]
	switch {
	case hasValue && hasExpr:
		d.errorf(ev, path.Key("expr"), CodeValueExpr, `give "value" or "expr", not both`)
		return nil
	case hasExpr:
		if !d.expect(ev, path.Key("expr"), "an expression string", jsondoc.String) {
			return nil
		}
		tv.Value = d.value(ev, path.Key("expr"))
	case hasValue:
		tv.Value = d.value(vv, path.Key("value"))
		if tv.Value != nil && tv.Value.IsLiteral {
			if _, err := Cast(t, tv.Value.Literal); err != nil {
				d.errorf(vv, path.Key("value"), CodeDefault, "value does not fit the declared type: %v", err)
			}
		}
	default:
		d.errorf(v, path.Key("value"), CodeRequired, `missing "value": a literal, template or expression`)
		return nil
	}
	if dv, ok := m["default"]; ok {
		tv.Default, tv.HasDefault = d.defaultValue(dv, path.Key("default"), t)
	}
	if tv.Value == nil {
		return nil
	}
	return tv
}

// signature checks a Solidity function signature "name(type,...)" with an
// optional return list "(type,...)" when returns is true.
func (d *decoder) signature(v *jsondoc.Value, path jsondoc.Path, returns bool) string {
	s, ok := d.str(v, path, "a function signature string", MaxStringValueLen, "MaxStringValueLen")
	if !ok {
		return ""
	}
	if msg := CheckSignature(s, returns); msg != "" {
		d.errorf(v, path, CodeSignature, "function %q: %s", s, msg)
		return ""
	}
	return s
}

// CheckSignature checks a Solidity function signature "name(type,...)",
// with an optional return list "(type,...)" when returns is true, the way
// Parse does: elementary types, tuples and array suffixes, no spaces. It
// returns what is wrong, or "".
func CheckSignature(s string, returns bool) string {
	i := 0
	for i < len(s) && isIdentChar(s[i]) {
		i++
	}
	if i == 0 || !isIdentStart(s[0]) {
		return `must start with a function name, e.g. "balanceOf(address)"`
	}
	end, msg := typeList(s, i)
	if msg != "" {
		return msg
	}
	if end < len(s) && returns {
		if end, msg = typeList(s, end); msg != "" {
			return "return list: " + msg
		}
	}
	if end != len(s) {
		return "unexpected text after the parameter list"
	}
	return ""
}

// typeList reads "(t1,t2,...)" at s[i]; it returns the index past ')'.
func typeList(s string, i int) (int, string) {
	if i >= len(s) || s[i] != '(' {
		return i, "expected '(' and the parameter types"
	}
	i++
	if i < len(s) && s[i] == ')' {
		return i + 1, ""
	}
	for {
		var msg string
		if i, msg = solType(s, i); msg != "" {
			return i, msg
		}
		if i >= len(s) {
			return i, "missing ')'"
		}
		if s[i] == ')' {
			return i + 1, ""
		}
		if s[i] != ',' {
			return i, "types are separated by ',' without spaces"
		}
		i++
	}
}

// solType reads one ABI type (elementary or tuple, with array suffixes).
func solType(s string, i int) (int, string) {
	if i < len(s) && s[i] == '(' {
		var msg string
		if i, msg = typeList(s, i); msg != "" {
			return i, msg
		}
	} else {
		j := i
		for j < len(s) && isIdentChar(s[j]) {
			j++
		}
		if !elementaryType(s[i:j]) {
			return i, "unknown ABI type " + strconv.Quote(s[i:j])
		}
		i = j
	}
	for i < len(s) && s[i] == '[' {
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j >= len(s) || s[j] != ']' {
			return i, "malformed array suffix"
		}
		i = j + 1
	}
	return i, ""
}

func elementaryType(t string) bool {
	switch t {
	case "address", "bool", "string", "bytes", "uint", "int", "function":
		return true
	}
	for _, p := range []struct {
		prefix   string
		lo, hi   int
		multiple int
	}{{"bytes", 1, 32, 1}, {"uint", 8, 256, 8}, {"int", 8, 256, 8}} {
		if rest, ok := strings.CutPrefix(t, p.prefix); ok && isDigits(rest) && rest[0] != '0' {
			n, _ := strconv.Atoi(rest)
			return n >= p.lo && n <= p.hi && n%p.multiple == 0
		}
	}
	return false
}
