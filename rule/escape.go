package rule

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"mime"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// CallTemplate is a template of an API call: its urlTemplate, bodyTemplate
// or a header value. Unlike a Template (branch payloads, wake-ups), which
// renders a value as its plain text, a CallTemplate escapes each placeholder
// for the place it stands in, so a value is always data and never syntax:
//
//   - in the URL path, one path segment (url.PathEscape: no "/", "?" or "#";
//     a segment the value makes "." or ".." is refused);
//   - in the URL query, one query key or value (url.QueryEscape: no "&",
//     "=" or "#");
//   - inside a JSON string of the body ("[Name]"), JSON string content
//     (quotes, backslashes and control characters escaped);
//   - as a whole JSON value of the body ([Amount]), the JSON encoding of the
//     value: numbers exact, strings quoted, lists and maps encoded;
//   - in a header value, the text, refused if it holds a line break or
//     another control character.
//
// The template's own text is kept as written. Where a placeholder may not
// stand (the URL's scheme, host or fragment; a JSON object key; a body that
// is not JSON) is refused when the document is parsed.
type CallTemplate struct {
	// Source is the template as written.
	Source string
	parts  []cpart
	// json: the rendered text must be a JSON text.
	json bool
}

type cpart struct {
	text string
	key  string // set for a placeholder
	slot slot
}

// slot is where a placeholder of a CallTemplate stands.
type slot uint8

const (
	slotPath       slot = iota + 1 // URL path: one segment
	slotQuery                      // URL query: a key or value
	slotJSONString                 // inside a JSON string literal
	slotJSONValue                  // a whole JSON value
	slotHeader                     // a header value
)

// Keys lists the placeholder keys in order of appearance (repeats kept).
func (c *CallTemplate) Keys() []string {
	var keys []string
	for _, p := range c.parts {
		if p.key != "" {
			keys = append(keys, p.key)
		}
	}
	return keys
}

func textParts(t *Template) []cpart {
	parts := make([]cpart, len(t.parts))
	for i, p := range t.parts {
		parts[i] = cpart{text: p.text, key: p.key}
	}
	return parts
}

// placeInURL names where text following prefix (the template's literal
// text up to a placeholder) lands in a URL: "authority" (scheme, user info,
// host, port), "path", "query" or "fragment".
func placeInURL(prefix string) string {
	i := strings.Index(prefix, "://")
	if i < 0 {
		return "authority"
	}
	rest := prefix[i+3:]
	switch {
	case !strings.ContainsAny(rest, "/?#"):
		return "authority"
	case strings.Contains(rest, "#"):
		return "fragment"
	case strings.Contains(rest, "?"):
		return "query"
	}
	return "path"
}

// newURLTemplate places the placeholders of a urlTemplate by the literal
// text before each: before the first "?" the path, after it the query.
// Placeholders in the scheme or host and in the fragment are refused.
func newURLTemplate(t *Template) (*CallTemplate, error) {
	c := &CallTemplate{Source: t.Source, parts: textParts(t)}
	var lit strings.Builder
	for i, p := range c.parts {
		if p.key == "" {
			lit.WriteString(p.text)
			continue
		}
		switch placeInURL(lit.String()) {
		case "authority":
			return nil, fmt.Errorf("placeholder [%s] is in the scheme or host of the URL, and a payload value may not choose where the call goes: write the scheme and host literally (https://host/...); placeholders may stand in the path (one segment each) or the query", p.key)
		case "fragment":
			return nil, fmt.Errorf("placeholder [%s] is in the URL fragment (after \"#\"), which is never sent to the server; placeholders may stand in the path (one segment each) or the query", p.key)
		case "query":
			c.parts[i].slot = slotQuery
		default:
			c.parts[i].slot = slotPath
		}
	}
	return c, nil
}

// newHeaderTemplate makes a header value template.
func newHeaderTemplate(t *Template) *CallTemplate {
	c := &CallTemplate{Source: t.Source, parts: textParts(t)}
	for i := range c.parts {
		if c.parts[i].key != "" {
			c.parts[i].slot = slotHeader
		}
	}
	return c
}

// isJSONMediaType reports a Content-Type that is JSON: application/json or
// a +json type.
func isJSONMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// newBodyTemplate makes a bodyTemplate. contentType is the call's literal
// Content-Type header ("" when it has none, which HTTPCaller sends as JSON);
// ctTemplated says it is rendered from placeholders. A body without
// placeholders is sent as written. A body with placeholders must be JSON:
// each placeholder stands inside a JSON string (not an object key) or as a
// whole value, and the template must be a JSON text with them filled in.
func newBodyTemplate(t *Template, contentType string, ctTemplated bool) (*CallTemplate, error) {
	c := &CallTemplate{Source: t.Source, parts: textParts(t)}
	keys := c.Keys()
	if len(keys) == 0 {
		return c, nil
	}
	switch {
	case ctTemplated:
		return nil, fmt.Errorf("the Content-Type header is rendered from placeholders, so how to escape [%s] in the body is unknown; write Content-Type literally (placeholders are escaped in JSON bodies only)", keys[0])
	case contentType != "" && !isJSONMediaType(contentType):
		return nil, fmt.Errorf("placeholder [%s] in a body of Content-Type %q: placeholders are escaped in JSON bodies only (no Content-Type header, application/json or a +json type); write this body without placeholders", keys[0], contentType)
	}
	misplaced, err := placeInJSON(c.parts)
	if err != nil {
		return nil, err
	}
	var probe bytes.Buffer
	for _, p := range c.parts {
		switch {
		case p.key == "":
			probe.WriteString(p.text)
		case p.slot == slotJSONString:
			probe.WriteString("x")
		default:
			probe.WriteString("0")
		}
	}
	var v any
	if err := json.Unmarshal(probe.Bytes(), &v); err != nil {
		return nil, fmt.Errorf("a bodyTemplate with placeholders must be a JSON text (the call sends JSON), and with its placeholders filled in it is not: %v; placeholders stand inside JSON strings (\"name\": \"[Name]\") or as whole values (\"amount\": [Amount])", err)
	}
	if misplaced != nil {
		return nil, misplaced
	}
	c.json = true
	return c, nil
}

// placeInJSON decides for each placeholder of a JSON body template whether
// it stands inside a string or as a whole value. err refuses a placeholder
// in an object key or after a backslash; misplaced is the first one
// outside a string that is not a whole value, which the caller reports
// when the template is otherwise JSON.
func placeInJSON(parts []cpart) (misplaced, err error) {
	// flat is the literal text with one byte standing for each placeholder,
	// whose part index is at[offset].
	var flat []byte
	at := map[int]int{}
	for i, p := range parts {
		if p.key == "" {
			flat = append(flat, p.text...)
			continue
		}
		at[len(flat)] = i
		flat = append(flat, 0)
	}
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	// neighbour returns the first non-space byte from i in direction dir:
	// -1 at either end, else its offset.
	neighbour := func(i, dir int) int {
		for ; i >= 0 && i < len(flat); i += dir {
			if _, ph := at[i]; ph || !isSpace(flat[i]) {
				return i
			}
		}
		return -1
	}
	delimited := func(i int, allowed string) bool {
		if i < 0 {
			return true
		}
		_, ph := at[i]
		return !ph && strings.IndexByte(allowed, flat[i]) >= 0
	}
	inString, escaped := false, false
	stringKey := "" // the first placeholder of the current string
	for i := 0; i < len(flat); i++ {
		k, ph := at[i]
		if inString {
			switch {
			case ph && escaped:
				return nil, fmt.Errorf("placeholder [%s] follows a backslash inside a JSON string; write the escape sequence whole (a placeholder's value is escaped for you)", parts[k].key)
			case ph:
				parts[k].slot = slotJSONString
				if stringKey == "" {
					stringKey = parts[k].key
				}
			case escaped:
				escaped = false
			case flat[i] == '\\':
				escaped = true
			case flat[i] == '"':
				inString = false
				if n := neighbour(i+1, 1); stringKey != "" && n >= 0 && flat[n] == ':' {
					if _, isPH := at[n]; !isPH {
						return nil, fmt.Errorf("placeholder [%s] is in a JSON object key, which would let a payload value name a field; placeholders may stand inside string values (\"name\": \"[Name]\") or as whole values (\"amount\": [Amount])", stringKey)
					}
				}
			}
			continue
		}
		switch {
		case ph:
			parts[k].slot = slotJSONValue
			if misplaced == nil && (!delimited(neighbour(i-1, -1), "[:,") || !delimited(neighbour(i+1, 1), "]},")) {
				misplaced = fmt.Errorf("placeholder [%s] outside a JSON string must stand as a whole value, after \":\", \",\" or \"[\" and before \",\", \"}\" or \"]\" (\"amount\": [Amount]); to put a value into text, write it inside a string (\"memo\": \"id [Id]\")", parts[k].key)
			}
		case flat[i] == '"':
			inString, stringKey = true, ""
		}
	}
	return misplaced, nil
}

// Render fills the placeholders from env, each escaped for its place (see
// CallTemplate). Keys absent from env are returned in missing and render
// as nothing; a caller treats any missing key as a failed call. err reports
// a value that cannot stand in its place safely (a path segment "..", a
// header line break, a number without a JSON form) or a result larger than
// MaxValueBytes (ErrValueTooLarge, refused before it is built); it names
// the placeholder, not the template's JSON path.
func (c *CallTemplate) Render(env map[string]any) (out string, missing []string, err error) {
	return c.render(func(k string) (any, bool) {
		v, ok := env[k]
		return v, ok
	})
}

func (c *CallTemplate) render(look func(string) (any, bool)) (string, []string, error) {
	if len(c.parts) == 1 && c.parts[0].key == "" {
		return c.parts[0].text, nil, nil
	}
	var (
		b       strings.Builder
		missing []string
		// segments are the output spans of path placeholders.
		segments []struct {
			key        string
			start, end int
		}
	)
	for _, p := range c.parts {
		if p.key == "" {
			if err := checkRendered(b.Len(), len(p.text), ""); err != nil {
				return "", nil, err
			}
			b.WriteString(p.text)
			continue
		}
		v, ok := look(p.key)
		if !ok {
			missing = appendOnce(missing, p.key)
			continue
		}
		// Each piece is escaped first and measured before it is written:
		// escaping makes a value up to six times longer (\u00XX in JSON,
		// %XX in a URL), and a template may repeat a value many times.
		var piece string
		switch p.slot {
		case slotPath:
			piece = url.PathEscape(Text(v))
		case slotQuery:
			piece = url.QueryEscape(Text(v))
		case slotJSONString:
			piece = jsonStringContent(Text(v))
		case slotJSONValue:
			j, err := appendJSON(nil, v, 0)
			if err != nil {
				return "", nil, fmt.Errorf("[%s] stands as a whole JSON value, and %v", p.key, err)
			}
			piece = string(j)
		case slotHeader:
			piece = Text(v)
			if i := strings.IndexFunc(piece, isControl); i >= 0 {
				return "", nil, fmt.Errorf("[%s] puts the control character %q into the header value (a line break would start a header of its own); header values may hold visible characters, spaces and tabs only", p.key, piece[i])
			}
		default:
			piece = Text(v)
		}
		if err := checkRendered(b.Len(), len(piece), p.key); err != nil {
			return "", nil, err
		}
		start := b.Len()
		b.WriteString(piece)
		if p.slot == slotPath {
			segments = append(segments, struct {
				key        string
				start, end int
			}{p.key, start, b.Len()})
		}
	}
	out := b.String()
	for _, s := range segments {
		start := strings.LastIndexByte(out[:s.start], '/') + 1
		end := len(out)
		if i := strings.IndexAny(out[s.end:], "/?#"); i >= 0 {
			end = s.end + i
		}
		if seg := out[start:end]; seg == "." || seg == ".." {
			return "", nil, fmt.Errorf("[%s] makes the URL path segment %q, which would move up the path; a path placeholder fills one segment, which may not be \".\" or \"..\"", s.key, seg)
		}
	}
	if c.json && len(missing) == 0 && !json.Valid([]byte(out)) {
		return "", nil, fmt.Errorf("the rendered body is not valid JSON")
	}
	return out, missing, nil
}

// isControl reports the characters a header value may not hold: ASCII
// controls other than tab (CR and LF among them), and DEL.
func isControl(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }

// jsonQuote returns s as a JSON string literal. Invalid UTF-8 becomes
// U+FFFD; <, > and & stay as they are.
func jsonQuote(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
}

// jsonStringContent is s escaped for the inside of a JSON string literal.
func jsonStringContent(s string) string {
	q := jsonQuote(s)
	return string(q[1 : len(q)-1])
}

// appendJSON appends the JSON encoding of a plain value (see normalize) and
// of the exact big integers of the typed view: numbers as their exact
// decimal text, never through float64.
func appendJSON(b []byte, v any, depth int) ([]byte, error) {
	if depth > MaxValueDepth {
		return nil, fmt.Errorf("the value is nested deeper than %d levels", MaxValueDepth)
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return append(b, jsonQuote(x)...), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("its value %v has no JSON form; JSON numbers are finite", x)
		}
		return append(b, FormatFloat(x)...), nil
	case float32:
		return appendJSON(b, float64(x), depth)
	case json.Number:
		n, ok := jsonNumber(string(x))
		if !ok {
			return nil, fmt.Errorf("its value %q is not a decimal number", string(x))
		}
		return append(b, n...), nil
	case *big.Int:
		if x == nil {
			return append(b, "null"...), nil
		}
		return x.Append(b, 10), nil
	case u256:
		return x.v.Append(b, 10), nil
	case i256:
		return x.v.Append(b, 10), nil
	case []byte:
		return append(b, jsonQuote("0x"+hex.EncodeToString(x))...), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, e, depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(append(b, jsonQuote(k)...), ':')
			var err error
			if b, err = appendJSON(b, x[k], depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	if i, ok := goInteger(v); ok {
		return i.Append(b, 10), nil
	}
	return nil, fmt.Errorf("its value of Go type %T has no JSON form", v)
}

// jsonNumber writes decimal number text (isDecimalText, with exponent) in
// the JSON number grammar without changing its value: "+1.50" → "1.50",
// "007" → "7", ".5" → "0.5", "1." → "1".
func jsonNumber(s string) (string, bool) {
	if !isDecimalText(s, true) {
		return "", false
	}
	sign := ""
	switch s[0] {
	case '-':
		sign, s = "-", s[1:]
	case '+':
		s = s[1:]
	}
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i:]
	}
	ip, fp, _ := strings.Cut(mant, ".")
	if ip = strings.TrimLeft(ip, "0"); ip == "" {
		ip = "0"
	}
	out := sign + ip
	if fp != "" {
		out += "." + fp
	}
	out += exp
	return out, json.Valid([]byte(out))
}
