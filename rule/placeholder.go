package rule

import (
	"fmt"
	"strings"
)

// Placeholders are [Identifier] with Identifier = [A-Za-z_][A-Za-z0-9_]*
// (expression guide §2). [0], ["key"] and [x + 1] are not placeholders.

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentChar(c byte) bool { return isIdentStart(c) || isDigit(c) }

// placeholderAt reads a placeholder starting at s[i] == '['. It returns the
// key and the index just past the closing ']'.
func placeholderAt(s string, i int) (key string, end int, ok bool) {
	if i >= len(s) || s[i] != '[' || i+1 >= len(s) || !isIdentStart(s[i+1]) {
		return "", 0, false
	}
	j := i + 2
	for j < len(s) && isIdentChar(s[j]) {
		j++
	}
	if j >= len(s) || s[j] != ']' || celReserved[s[i+1:j]] {
		return "", 0, false
	}
	return s[i+1 : j], j + 1, true
}

// celReserved are CEL literals and reserved words. "[true]" is a list
// literal, never a placeholder (no key could be named so in an expression).
var celReserved = map[string]bool{
	"true": true, "false": true, "null": true, "in": true,
	"as": true, "break": true, "const": true, "continue": true, "else": true, "for": true,
	"function": true, "if": true, "import": true, "let": true, "loop": true, "package": true,
	"namespace": true, "return": true, "var": true, "void": true, "while": true,
}

// malformedPlaceholderAt reports a bracket group at s[i] that looks like a
// key but breaks the placeholder grammar: "[my-key]" (and, in templates,
// "[a.b]"). The engine treats these as authoring errors, never as text.
func malformedPlaceholderAt(s string, i int, allowDot bool) (string, bool) {
	if i+1 >= len(s) || !isIdentStart(s[i+1]) {
		return "", false
	}
	j := i + 1
	bad := false
	for j < len(s) && s[j] != ']' {
		c := s[j]
		switch {
		case isIdentChar(c):
		case c == '-' || (c == '.' && allowDot):
			bad = true
		default:
			return "", false
		}
		j++
	}
	if j >= len(s) || !bad {
		return "", false
	}
	return s[i : j+1], true
}

// Template is a string rendered by substituting placeholders as text.
type Template struct {
	// Source is the template as written.
	Source string
	parts  []tpart
}

type tpart struct {
	text string
	key  string // set for a placeholder
}

// ParseTemplate splits s into text and placeholders. It returns the first
// malformed placeholder (such as "[my-key]") when there is one.
func ParseTemplate(s string) (*Template, string) {
	t := &Template{Source: s}
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '[' {
			continue
		}
		if key, end, ok := placeholderAt(s, i); ok {
			if start < i {
				t.parts = append(t.parts, tpart{text: s[start:i]})
			}
			t.parts = append(t.parts, tpart{key: key})
			start = end
			i = end - 1
			continue
		}
		if bad, ok := malformedPlaceholderAt(s, i, true); ok {
			return nil, bad
		}
	}
	if start < len(s) {
		t.parts = append(t.parts, tpart{text: s[start:]})
	}
	return t, ""
}

// Keys lists the placeholder keys in order of appearance (repeats kept).
func (t *Template) Keys() []string {
	var keys []string
	for _, p := range t.parts {
		if p.key != "" {
			keys = append(keys, p.key)
		}
	}
	return keys
}

// Render substitutes every placeholder with the text form of its value
// (see Text). Keys absent from env are returned in missing and render as
// nothing; a caller treats any missing key as soft-invalid. A result that
// would be larger than MaxValueBytes is refused with ErrValueTooLarge
// before it is built (a template repeating a large value would otherwise
// multiply it); the error names the placeholder, the caller the path.
func (t *Template) Render(env map[string]any) (out string, missing []string, err error) {
	if len(t.parts) == 1 && t.parts[0].key == "" {
		return t.parts[0].text, nil, nil
	}
	var b strings.Builder
	for _, p := range t.parts {
		piece := p.text
		if p.key != "" {
			v, ok := env[p.key]
			if !ok {
				missing = appendOnce(missing, p.key)
				continue
			}
			piece = Text(v)
		}
		if err := checkRendered(b.Len(), len(piece), p.key); err != nil {
			return "", nil, err
		}
		b.WriteString(piece)
	}
	return b.String(), missing, nil
}

// checkRendered refuses a piece of n bytes that would take a rendered
// template of have bytes over MaxValueBytes; key is the placeholder the
// piece renders ("" for the template's own text).
func checkRendered(have, n int, key string) error {
	if n <= MaxValueBytes-have {
		return nil
	}
	what := "its text"
	if key != "" {
		what = "[" + key + "]"
	}
	return fmt.Errorf("%w: the rendered template would be larger than %d bytes (MaxValueBytes) at %s, which adds %d bytes to %d",
		ErrValueTooLarge, MaxValueBytes, what, n, have)
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// rewriteExpr turns placeholders into CEL identifiers: "[A] + 1" → "A + 1".
// String literals are copied untouched, and a placeholder in index position
// ("Names[Idx]", "[M][K]") keeps its brackets, which index by the variable
// either way. malformed is the first "[my-key]"-style group, if any.
func rewriteExpr(src string) (out string, malformed string) {
	var b strings.Builder
	b.Grow(len(src))
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '"' || c == '\'':
			end := skipString(src, i)
			b.WriteString(src[i:end])
			i = end
		case c == '[' && indexPosition(src, i):
			if inner, end, ok := doubleIndexAt(src, i); ok {
				// "resp.tags[[0]]", "resp[[\"key-with-dash\"]]": the
				// API guide's index escape (§6) means resp.tags[0].
				sub, bad := rewriteExpr(inner)
				if bad != "" && malformed == "" {
					malformed = bad
				}
				b.WriteByte('[')
				b.WriteString(sub)
				b.WriteByte(']')
				i = end
				continue
			}
			if bad, isBad := malformedPlaceholderAt(src, i, false); isBad && malformed == "" {
				malformed = bad
			}
			b.WriteByte(c)
			i++
		case c == '[':
			key, end, ok := placeholderAt(src, i)
			if ok {
				b.WriteString(key)
				i = end
				continue
			}
			if !ok && malformed == "" {
				if bad, isBad := malformedPlaceholderAt(src, i, false); isBad {
					malformed = bad
				}
			}
			b.WriteByte(c)
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), malformed
}

// doubleIndexAt reads the index escape of the API guide (§6) at src[i]
// == '[' in index position: "[[" INNER "]]", where INNER is an index
// expression ("0", "\"key-with-dash\"", a placeholder) or, as the guide
// prints it, a key quoted with backslashes (\"key\"), which is read as
// the string "key". It returns INNER as CEL and the index just past the
// closing "]]". In CEL, indexing by a list literal ("x[[0]]") is always an
// error (no list or map takes a list as index), so the escape never
// changes the meaning of a valid expression.
func doubleIndexAt(src string, i int) (inner string, end int, ok bool) {
	if i+1 >= len(src) || src[i+1] != '[' {
		return "", 0, false
	}
	start := i + 2
	if strings.HasPrefix(src[start:], `\"`) {
		q := strings.Index(src[start+2:], `\"]]`)
		if q < 0 {
			return "", 0, false
		}
		key := src[start+2 : start+2+q]
		if strings.ContainsAny(key, "\"\\\n") {
			return "", 0, false
		}
		return `"` + key + `"`, start + 2 + q + 4, true
	}
	depth := 0
	for j := start; j < len(src); {
		switch c := src[j]; {
		case c == '"' || c == '\'':
			j = skipString(src, j)
			continue
		case c == '[':
			depth++
		case c == ']' && depth > 0:
			depth--
		case c == ']':
			if j+1 < len(src) && src[j+1] == ']' && strings.TrimSpace(src[start:j]) != "" {
				return src[start:j], j + 2, true
			}
			return "", 0, false
		}
		j++
	}
	return "", 0, false
}

// indexPosition reports whether the '[' at src[i] follows an operand, so it
// indexes rather than opens a list or placeholder.
func indexPosition(src string, i int) bool {
	j := i - 1
	for j >= 0 && (src[j] == ' ' || src[j] == '\t' || src[j] == '\n' || src[j] == '\r') {
		j--
	}
	if j < 0 {
		return false
	}
	c := src[j]
	if c == ']' || c == ')' {
		return true
	}
	if !isIdentChar(c) {
		return false
	}
	k := j
	for k >= 0 && isIdentChar(src[k]) {
		k--
	}
	word := src[k+1 : j+1]
	if word == "in" || isDigit(word[0]) {
		return false
	}
	return true
}

// skipString returns the index just past the CEL string literal opening at
// src[i] (single, double or triple quoted; raw when prefixed by r/R).
func skipString(src string, i int) int {
	q := src[i]
	raw := i > 0 && (src[i-1] == 'r' || src[i-1] == 'R') && (i < 2 || !isIdentChar(src[i-2]))
	if i+2 < len(src) && src[i+1] == q && src[i+2] == q {
		closer := string([]byte{q, q, q})
		for j := i + 3; j < len(src); j++ {
			if !raw && src[j] == '\\' {
				j++
				continue
			}
			if strings.HasPrefix(src[j:], closer) {
				return j + 3
			}
		}
		return len(src)
	}
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			if !raw {
				j++
			}
		case q:
			return j + 1
		case '\n':
			return j
		}
	}
	return len(src)
}
