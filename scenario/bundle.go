package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rule"
)

// BundleFormat is the embedded bundle format this package reads.
const BundleFormat = "xgr-multi-bundle@1"

// bookkeeping are the members of a bundle item that describe the bundle
// and the public deployment, not the rule: they are not deployed.
var bookkeeping = map[string]bool{"id": true, "bundleId": true, "address": true, "meta": true}

// bundle reads a plan's source: the embedded bundle (rawBundleJson) with
// its XRC-137 items and its XRC-729 item (or rawXrc729Json).
func (d *decoder) bundle(p *Plan, src *jsondoc.Value, path jsondoc.Path) {
	raw := src.Get("rawBundleJson")
	if raw == nil || raw.Kind != jsondoc.String {
		d.errorf(src, path.Key("rawBundleJson"), "missing the embedded bundle: a string holding the %s JSON of the plan's XRC-137 and XRC-729 items", BundleFormat)
		return
	}
	e := d.embedded(raw, path.Key("rawBundleJson"))
	if e == nil {
		return
	}
	root := e.doc
	if !e.object(root, "", "the bundle file") {
		return
	}
	if f := e.str(root, "", "format", false); f != "" && f != BundleFormat {
		e.errorf(root.Get("format"), "format", "bundle format %q is not supported; want %q", f, BundleFormat)
		return
	}
	bundles := e.array(root, "", "bundles", true, "the bundles, each {bundleId, items}")
	var b *jsondoc.Value
	var bp jsondoc.Path
	var ids []string
	for i, it := range bundles {
		ip := jsondoc.Path("bundles").Index(i)
		if !e.object(it, ip, "a bundle") {
			continue
		}
		id := e.str(it, ip, "bundleId", false)
		ids = append(ids, id)
		if id == p.BundleID || (p.BundleID == "" && len(bundles) == 1) {
			b, bp = it, ip
		}
	}
	if b == nil {
		if len(bundles) > 0 {
			e.errorf(root, "bundles", "no bundle has bundleId %q (the plan's source.bundleId); bundleIds: %s", p.BundleID, quoted(ids))
		}
		return
	}
	if p.BundleID == "" {
		p.BundleID = e.str(b, bp, "bundleId", false)
	}
	var ostc *jsondoc.Value
	var ostcPath jsondoc.Path
	aliases := map[string]string{}
	for i, it := range e.array(b, bp, "items", true, "the bundle's XRC-137 and XRC-729 items") {
		ip := bp.Key("items").Index(i)
		if !e.object(it, ip, "a bundle item") {
			continue
		}
		typ := ""
		if meta := it.Get("meta"); meta != nil && meta.Kind == jsondoc.Object {
			typ = strings.ToLower(e.str(meta, ip.Key("meta"), "type", false))
		}
		if typ == "" {
			typ = "xrc137"
			if it.Get("structure") != nil {
				typ = "xrc729"
			}
		}
		switch typ {
		case "xrc729":
			if ostc != nil {
				e.errorf(it, ip, "a second XRC-729 item (the first is %s); a bundle holds exactly one orchestration", e.path(ostcPath))
				continue
			}
			ostc, ostcPath = it, ip
		case "xrc137":
			r := e.ruleItem(it, ip)
			if r == nil {
				continue
			}
			if prev, dup := aliases[r.Alias]; dup {
				e.errorf(it, ip, "alias %q is also the alias of %s; aliases name the items in $contract.address placeholders and must be unique", r.Alias, prev)
				continue
			}
			aliases[r.Alias] = r.Path
			p.Rules = append(p.Rules, r)
		default:
			e.errorf(it.Get("meta"), ip.Key("meta").Key("type"), "item type %q: want xrc137 or xrc729", typ)
		}
	}
	if ostc != nil {
		p.OSTC = e.ostcItem(ostc, ostcPath, p)
		return
	}
	// No XRC-729 item in the bundle: the plan's rawXrc729Json.
	if x := src.Get("rawXrc729Json"); x != nil && x.Kind == jsondoc.String {
		if ex := d.embedded(x, path.Key("rawXrc729Json")); ex != nil && ex.object(ex.doc, "", "the XRC-729 document") {
			p.OSTC = ex.ostcItem(ex.doc, "", p)
		}
		return
	}
	e.errorf(b, bp.Key("items"), "the bundle has no XRC-729 item (meta.type \"xrc729\", or an item with \"structure\") and the plan has no source.rawXrc729Json")
}

// embeddedDecoder decodes JSON embedded in a string of the file.
type embeddedDecoder struct {
	decoder
	doc *jsondoc.Value
}

func (d *decoder) embedded(s *jsondoc.Value, path jsondoc.Path) *embeddedDecoder {
	raw := []byte(s.Text)
	doc, err := jsondoc.Parse(raw, 0)
	if err != nil {
		var se *jsondoc.SyntaxError
		msg := err.Error()
		if errors.As(err, &se) {
			msg = fmt.Sprintf("%s (embedded JSON %d:%d)", se.Msg, se.Line, se.Col)
		}
		d.rep.Errorf(s.Off, jsondoc.Path(d.path(path)), codeInvalid, "the embedded JSON is broken: %s", msg)
		return nil
	}
	return &embeddedDecoder{decoder: decoder{rep: d.rep, embed: &embedding{off: s.Off, path: d.path(path), raw: raw}}, doc: doc}
}

// span is the exact text of the value starting at off.
func (e *embeddedDecoder) span(v *jsondoc.Value) []byte {
	val, err := jsontext.NewDecoder(bytes.NewReader(e.embed.raw[v.Off:]), jsontext.AllowDuplicateNames(true)).ReadValue()
	if err != nil { // the whole text parsed already
		panic(fmt.Sprintf("scenario: re-reading a parsed value: %v", err))
	}
	return bytes.Clone(val)
}

// ruleItem reads an XRC-137 item.
func (e *embeddedDecoder) ruleItem(it *jsondoc.Value, ip jsondoc.Path) *RuleItem {
	r := &RuleItem{Path: e.path(ip), ID: e.str(it, ip, "id", false)}
	addr := e.str(it, ip, "address", false)
	if meta := it.Get("meta"); meta != nil && meta.Kind == jsondoc.Object {
		r.Alias = e.str(meta, ip.Key("meta"), "alias", false)
		if addr == "" {
			addr = e.str(meta, ip.Key("meta"), "deployedAddress", false)
		}
	}
	if r.Alias == "" {
		r.Alias = r.ID
	}
	if r.Alias == "" {
		e.errorf(it, ip, "an XRC-137 item needs a name: meta.alias (or id)")
		return nil
	}
	if rule.IsAddress(addr) {
		r.Address = strings.ToLower(addr)
	}
	text, err := stripMembers(e.span(it), bookkeeping)
	if err != nil {
		e.errorf(it, ip, "%v", err)
		return nil
	}
	r.Text = text
	r.AddrKeys = AddrKeys(text)
	return r
}

// ostcItem reads the XRC-729 item and maps each step's rule to an item.
func (e *embeddedDecoder) ostcItem(it *jsondoc.Value, ip jsondoc.Path, p *Plan) *OSTCItem {
	raw := e.span(it)
	o, err := registry.Parse(raw)
	if err != nil {
		var ve *registry.ValidationError
		if errors.As(err, &ve) {
			for _, pr := range ve.Problems {
				e.errorf(it, ip, "not a valid orchestration: %s", pr.String())
			}
		} else {
			e.errorf(it, ip, "not a valid orchestration: %v", err)
		}
		return nil
	}
	x := &OSTCItem{Path: e.path(ip), Raw: raw, Orchestration: o, StepRule: map[string]int{}}
	structure := it.Get("structure")
	for _, s := range o.Steps {
		sp := ip.Key("structure").Key(s.ID).Key("rule")
		var at *jsondoc.Value
		if structure != nil {
			if st := structure.Get(s.ID); st != nil {
				at = st.Get("rule")
			}
		}
		i := matchRule(p.Rules, s.Rule)
		if i < 0 {
			var known []string
			for _, r := range p.Rules {
				known = append(known, r.Alias+"="+r.Address)
			}
			e.errorf(at, sp, "rule %q is none of the bundle's XRC-137 items (matched by address, or by alias as ALIAS, <ALIAS> or ${addr:ALIAS}); items: %s", s.Rule, strings.Join(known, ", "))
			continue
		}
		x.StepRule[s.ID] = i
	}
	return x
}

// matchRule finds the rule item a step's "rule" names: by the item's
// public address, else by alias or id (also written <ALIAS> or ${addr:ALIAS}).
func matchRule(rules []*RuleItem, ref string) int {
	if rule.IsAddress(ref) {
		for i, r := range rules {
			if r.Address != "" && r.Address == strings.ToLower(ref) {
				return i
			}
		}
		return -1
	}
	name := ref
	switch {
	case strings.HasPrefix(name, "<") && strings.HasSuffix(name, ">"):
		name = name[1 : len(name)-1]
	case strings.HasPrefix(name, "${addr:") && strings.HasSuffix(name, "}"):
		name = name[len("${addr:") : len(name)-1]
	}
	for i, r := range rules {
		if r.Alias == name {
			return i
		}
	}
	for i, r := range rules {
		if r.ID == name {
			return i
		}
	}
	return -1
}

// stripMembers re-encodes a JSON object without the named top-level
// members, 2-space indented; member order, numbers and strings are kept
// exactly.
func stripMembers(raw []byte, drop map[string]bool) ([]byte, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true))
	var buf bytes.Buffer
	enc := jsontext.NewEncoder(&buf, jsontext.Multiline(true), jsontext.WithIndent("  "), jsontext.AllowDuplicateNames(true))
	tok, err := dec.ReadToken()
	if err != nil || tok.Kind() != '{' {
		return nil, fmt.Errorf("a rule document must be a JSON object")
	}
	if err := enc.WriteToken(tok); err != nil {
		return nil, err
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		if drop[name.String()] {
			if err := dec.SkipValue(); err != nil {
				return nil, err
			}
			continue
		}
		if err := enc.WriteToken(name); err != nil {
			return nil, err
		}
		val, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		if err := enc.WriteValue(val); err != nil {
			return nil, err
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	if err := enc.WriteToken(jsontext.EndObject); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(buf.Bytes()), nil
}
