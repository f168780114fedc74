package rule

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

// maxTimeoutMs bounds "timeoutMs" so that it fits a time.Duration with room;
// HTTPCaller clamps it further to its own maximum.
const maxTimeoutMs = 86_400_000

var httpMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

func (d *decoder) apiCalls(v *jsondoc.Value, path jsondoc.Path) []*APICall {
	if !d.expect(v, path, "an array of API call objects", jsondoc.Array) {
		return nil
	}
	if len(v.Items) > MaxAPICalls {
		d.errorf(v, path, CodeLimit, "%d apiCalls; XRC-137 allows at most %d (MaxAPICalls)", len(v.Items), MaxAPICalls)
	}
	var out []*APICall
	names := map[string]int{}
	for i, it := range v.Items {
		ip := path.Index(i)
		c := d.apiCall(it, ip)
		if c == nil {
			continue
		}
		if j, dup := names[c.Name]; dup {
			d.errorf(it.Get("name"), ip.Key("name"), CodeDuplicate, "API call name %q is already used by %s; names must be unique", c.Name, path.Index(j))
		}
		names[c.Name] = i
		out = append(out, c)
	}
	return out
}

func (d *decoder) apiCall(v *jsondoc.Value, path jsondoc.Path) *APICall {
	if !d.expect(v, path, "an API call object", jsondoc.Object) {
		return nil
	}
	m := d.members(v, path, "name", "method", "urlTemplate", "contentType", "bodyTemplate", "headers", "timeoutMs", "extractMap")
	d.forbid(v, path, "url", `write the URL as "urlTemplate"`)
	d.forbid(v, path, "extract", `write the extraction as "extractMap"`)
	c := &APICall{}
	ok := true
	if d.require(v, m, path, "name", "a short identifier used in reports") {
		if s, good := d.str(m["name"], path.Key("name"), "a string", 128, "name length"); good {
			c.Name = s
			if s == "" {
				d.errorf(m["name"], path.Key("name"), CodeRequired, "API call name is empty")
			} else if !isIdentStart(s[0]) || strings.IndexFunc(s, func(r rune) bool { return r > 127 || !isIdentChar(byte(r)) }) >= 0 {
				d.warnf(m["name"], path.Key("name"), CodeIdentifier, "API call name %q is not an identifier [A-Za-z_][A-Za-z0-9_]*; authoring tools may refuse it", s)
			}
		} else {
			ok = false
		}
	} else {
		ok = false
	}
	if d.require(v, m, path, "method", "GET, POST, PUT, PATCH or DELETE") && d.expect(m["method"], path.Key("method"), "a string", jsondoc.String) {
		c.Method = strings.ToUpper(m["method"].Text)
		if !contains(httpMethods, c.Method) {
			d.errorf(m["method"], path.Key("method"), CodeMethod, "method %q is not supported; use GET, POST, PUT, PATCH or DELETE", m["method"].Text)
		}
	}
	if d.require(v, m, path, "urlTemplate", "the URL to call, with [Key] placeholders") {
		c.URL = d.urlTemplate(m["urlTemplate"], path.Key("urlTemplate"))
	}
	if d.require(v, m, path, "contentType", `"json" (how the response is decoded into resp)`) && d.expect(m["contentType"], path.Key("contentType"), "a string", jsondoc.String) {
		c.ContentType = m["contentType"].Text
		if c.ContentType != "json" {
			d.errorf(m["contentType"], path.Key("contentType"), CodeContentType, `contentType %q is not supported; only "json" is`, c.ContentType)
		}
	}
	var body *Template
	bv, hasBody := m["bodyTemplate"]
	if hasBody && bv.Kind != jsondoc.Null {
		if s, good := d.str(bv, path.Key("bodyTemplate"), "a string", MaxBodyTemplateLen, "MaxBodyTemplateLen"); good {
			body = d.template(bv, path.Key("bodyTemplate"), s)
		}
	}
	if hv, has := m["headers"]; has && hv.Kind != jsondoc.Null {
		c.Headers = d.headers(hv, path.Key("headers"))
	}
	if body != nil {
		// How the body is escaped depends on the Content-Type it is sent as.
		var ct string
		var ctTemplated bool
		for _, h := range c.Headers {
			if strings.EqualFold(h.Name, "Content-Type") {
				ct, ctTemplated = h.Value.Source, len(h.Value.Keys()) > 0
			}
		}
		if bt, err := newBodyTemplate(body, ct, ctTemplated); err != nil {
			d.errorf(bv, path.Key("bodyTemplate"), CodeBody, "%v", err)
		} else {
			c.Body = bt
		}
	}
	if tv, has := m["timeoutMs"]; has && tv.Kind != jsondoc.Null {
		if ms, good := d.uintValue(tv, path.Key("timeoutMs"), "timeoutMs", maxTimeoutMs); good {
			if ms == 0 {
				d.errorf(tv, path.Key("timeoutMs"), CodeRange, "timeoutMs must be positive (omit it for the default)")
			}
			c.Timeout = time.Duration(ms) * time.Millisecond
		}
	}
	if d.require(v, m, path, "extractMap", "which aliases the call produces, e.g. {\"Price\": {\"type\": \"double\", \"expr\": \"double(resp.price)\"}}") {
		c.Extract = d.extractMap(m["extractMap"], path.Key("extractMap"))
	}
	if !ok {
		return nil
	}
	return c
}

// template parses a string that is always rendered, never evaluated.
func (d *decoder) template(v *jsondoc.Value, path jsondoc.Path, s string) *Template {
	t, bad := ParseTemplate(s)
	if bad != "" {
		d.errorf(v, path, CodePlaceholder, "malformed placeholder %s: placeholders are [Identifier] with Identifier = [A-Za-z_][A-Za-z0-9_]*", bad)
		return nil
	}
	return t
}

// urlTemplate reads a urlTemplate: an absolute http(s) URL whose scheme and
// host are written literally; placeholders stand in the path or the query.
func (d *decoder) urlTemplate(v *jsondoc.Value, path jsondoc.Path) *CallTemplate {
	s, ok := d.str(v, path, "a string", MaxURLTemplateLen, "MaxURLTemplateLen")
	if !ok {
		return nil
	}
	t := d.template(v, path, s)
	if t == nil {
		return nil
	}
	c, err := newURLTemplate(t)
	if err != nil {
		d.errorf(v, path, CodeURL, "%v", err)
		return nil
	}
	probe := make(map[string]any)
	for _, k := range c.Keys() {
		probe[k] = "x"
	}
	rendered, _, _ := c.Render(probe)
	u, err := url.Parse(rendered)
	switch {
	case err != nil:
		d.errorf(v, path, CodeURL, "urlTemplate is not a URL: %v", err)
	case u.Scheme != "http" && u.Scheme != "https":
		d.errorf(v, path, CodeURL, "urlTemplate must start with http:// or https://, found %q", s)
	case u.Host == "":
		d.errorf(v, path, CodeURL, "urlTemplate has no host")
	}
	return c
}

func (d *decoder) headers(v *jsondoc.Value, path jsondoc.Path) []Header {
	if !d.expect(v, path, "an object mapping header names to string values", jsondoc.Object) {
		return nil
	}
	d.members(v, path, memberNames(v)...)
	var out []Header
	for _, m := range v.Members {
		hp := path.Key(m.Name)
		if !isToken(m.Name) {
			d.Errorf(m.NameOff, hp, CodeHeader, "%q is not a valid HTTP header name", m.Name)
			continue
		}
		s, ok := d.str(m.Value, hp, "a string header value", MaxStringValueLen, "MaxStringValueLen")
		if !ok {
			continue
		}
		if strings.IndexFunc(s, isControl) >= 0 {
			d.errorf(m.Value, hp, CodeHeader, "header values must not contain line breaks or other control characters; visible characters, spaces and tabs are allowed")
			continue
		}
		if t := d.template(m.Value, hp, s); t != nil {
			out = append(out, Header{Name: m.Name, Value: newHeaderTemplate(t)})
		}
	}
	return out
}

// isToken reports an RFC 9110 token (header field name).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isIdentChar(c) || strings.IndexByte("!#$%&'*+-.^`|~", c) >= 0) {
			return false
		}
	}
	return true
}

func (d *decoder) extractMap(v *jsondoc.Value, path jsondoc.Path) []*Extract {
	if !d.expect(v, path, "an object mapping aliases to extraction specs", jsondoc.Object) {
		return nil
	}
	if len(v.Members) == 0 {
		d.errorf(v, path, CodeRequired, "extractMap is empty; declare at least one alias")
	}
	if len(v.Members) > MaxExtractMapEntries {
		d.errorf(v, path, CodeLimit, "extractMap has %d entries; XRC-137 allows at most %d (MaxExtractMapEntries)", len(v.Members), MaxExtractMapEntries)
	}
	d.members(v, path, memberNames(v)...)
	var out []*Extract
	seen := map[string]bool{}
	for _, mem := range v.Members {
		if seen[mem.Name] {
			continue // reported by members
		}
		seen[mem.Name] = true
		ap := path.Key(mem.Name)
		if !d.fieldName(mem, path, "alias") {
			continue
		}
		x := &Extract{Alias: mem.Name, Save: true}
		spec := mem.Value
		if spec.Kind == jsondoc.String {
			d.warnf(spec, ap, CodeStringForm, "string form: the alias has no declared type, so its value is stored as evaluated; write {\"type\": ..., \"expr\": ...} to cast it")
			x.Expr = d.expr(spec, ap)
			if x.Expr != nil {
				out = append(out, x)
			}
			continue
		}
		if !d.expect(spec, ap, `an extraction spec {"type", "expr" (or "value"), "default"}`, jsondoc.Object) {
			continue
		}
		m := d.members(spec, ap, "type", "expr", "value", "default", "save")
		ev, hasExpr := m["expr"]
		vv, hasValue := m["value"]
		switch {
		case hasExpr && hasValue:
			d.errorf(vv, ap.Key("value"), CodeValueExpr, `give the expression once: "expr" and "value" are the same field`)
		case hasValue:
			ev = vv
			ap = ap.Key("value")
		case hasExpr:
			ap = ap.Key("expr")
		default:
			d.errorf(spec, ap.Key("expr"), CodeRequired, `missing "expr": the CEL expression over resp that produces the alias`)
		}
		tp := path.Key(mem.Name).Key("type")
		if d.require(spec, m, path.Key(mem.Name), "type", "the XRC type the extracted value is cast to") {
			x.Type, _ = d.typed(m["type"], tp)
		}
		if ev != nil {
			x.Expr = d.expr(ev, ap)
		}
		if dv, ok := m["default"]; ok && x.Type != TypeInvalid {
			x.Default, x.HasDefault = d.defaultValue(dv, path.Key(mem.Name).Key("default"), x.Type)
		}
		if sv, ok := m["save"]; ok && d.expect(sv, path.Key(mem.Name).Key("save"), "true or false", jsondoc.Bool) {
			x.Save = sv.True
		}
		if x.Expr != nil && x.Type != TypeInvalid {
			out = append(out, x)
		}
	}
	return out
}

// expr compiles an expression string (rules, extract expressions).
func (d *decoder) expr(v *jsondoc.Value, path jsondoc.Path) *Expr {
	s, ok := d.str(v, path, "an expression string", 0, "")
	if !ok {
		return nil
	}
	if strings.TrimSpace(s) == "" {
		d.errorf(v, path, CodeRequired, "expression is empty")
		return nil
	}
	if msg := exprTooLong(s); msg != "" {
		d.errorf(v, path, CodeLimit, "%s", msg)
		return nil
	}
	e, err := CompileExpr(s)
	if err != nil {
		d.errorf(v, path, CodeExpression, "%v", unwrapExpr(err))
		return nil
	}
	return e
}

func unwrapExpr(err error) error {
	if ee, ok := err.(*ExprError); ok {
		return ee.Err
	}
	return err
}

// exprTooLong checks an expression string against MaxExprLen and returns
// what is wrong, or "". XDaLa_Limits gives two caps: the document parser's
// 2048 characters (§4) and the CEL evaluator's 1024 bytes (§12), and §13
// says an expression must satisfy both. Every expression within 1024 bytes
// is within 2048 characters, so xgr checks the one measure that decides:
// the bytes of the expression as written.
func exprTooLong(s string) string {
	if len(s) <= MaxExprLen {
		return ""
	}
	return fmt.Sprintf("expression is %d bytes; at most %d are allowed (MaxExprLen of the CEL evaluator, XDaLa_Limits §12; the document parser's cap of %d characters is looser and §13 requires both)",
		len(s), MaxExprLen, MaxRuleExprLen)
}
