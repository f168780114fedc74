package jsondoc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// DefaultMaxDepth bounds nesting when Parse is given no depth.
const DefaultMaxDepth = 64

// SyntaxError reports JSON that cannot be parsed, with the 1-based line and
// column (counted in bytes) where the problem was found.
type SyntaxError struct {
	Offset int
	Line   int
	Col    int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
}

// Parse reads exactly one JSON value from raw. Nesting deeper than maxDepth
// (DefaultMaxDepth when maxDepth <= 0) is a syntax error. Strings must be
// valid UTF-8; trailing data after the value is an error.
func Parse(raw []byte, maxDepth int) (*Value, error) {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	p := parser{raw: raw, max: maxDepth, dec: jsontext.NewDecoder(bytes.NewBuffer(raw), jsontext.AllowDuplicateNames(true))}
	v, err := p.value(nil, 0)
	if err != nil {
		return nil, err
	}
	off := p.start()
	if _, err := p.dec.ReadToken(); err != io.EOF {
		return nil, p.fail(off, "unexpected data after the top-level value")
	}
	return v, nil
}

type parser struct {
	slab []Value // values are carved from chunks to keep allocations few
	// Members and items of the open containers collect here and are copied
	// out at the closing delimiter into a slice of exactly their size.
	members []Member
	items   []*Value
	raw     []byte
	dec     *jsontext.Decoder
	max     int
	open    []int // offsets of the containers being read, for EOF messages
}

// start is the offset of the next token: the decoder's position past
// whitespace and the ',' or ':' separators.
func (p *parser) start() int {
	off := int(p.dec.InputOffset())
	for off < len(p.raw) {
		switch p.raw[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

func (p *parser) alloc() *Value {
	if len(p.slab) == 0 {
		p.slab = make([]Value, 64)
	}
	v := &p.slab[0]
	p.slab = p.slab[1:]
	return v
}

func (p *parser) value(parent *Value, depth int) (*Value, error) {
	off := p.start()
	tok, err := p.dec.ReadToken()
	if err != nil {
		return nil, p.wrap(off, err)
	}
	v := p.alloc()
	v.Off, v.Parent = off, parent
	switch tok.Kind() {
	case 'n':
		v.Kind = Null
	case 't', 'f':
		v.Kind, v.True = Bool, tok.Bool()
	case '"':
		v.Kind, v.Text = String, tok.String()
	case '0':
		v.Kind, v.Text = Number, tok.String()
	case '{':
		if depth >= p.max {
			return nil, p.fail(off, fmt.Sprintf("nesting deeper than %d levels", p.max))
		}
		v.Kind = Object
		p.open = append(p.open, off)
		base := len(p.members)
		for p.dec.PeekKind() != '}' {
			nameOff := p.start()
			name, err := p.dec.ReadToken()
			if err != nil {
				return nil, p.wrap(nameOff, err)
			}
			m := Member{Name: name.String(), NameOff: nameOff}
			if m.Value, err = p.value(v, depth+1); err != nil {
				return nil, err
			}
			p.members = append(p.members, m)
		}
		if _, err := p.dec.ReadToken(); err != nil {
			return nil, p.wrap(p.start(), err)
		}
		if n := len(p.members) - base; n > 0 {
			v.Members = make([]Member, n)
			copy(v.Members, p.members[base:])
			p.members = p.members[:base]
		}
		p.open = p.open[:len(p.open)-1]
	case '[':
		if depth >= p.max {
			return nil, p.fail(off, fmt.Sprintf("nesting deeper than %d levels", p.max))
		}
		v.Kind = Array
		p.open = append(p.open, off)
		base := len(p.items)
		for p.dec.PeekKind() != ']' {
			item, err := p.value(v, depth+1)
			if err != nil {
				return nil, err
			}
			p.items = append(p.items, item)
		}
		if _, err := p.dec.ReadToken(); err != nil {
			return nil, p.wrap(p.start(), err)
		}
		if n := len(p.items) - base; n > 0 {
			v.Items = make([]*Value, n)
			copy(v.Items, p.items[base:])
			p.items = p.items[:base]
		}
		p.open = p.open[:len(p.open)-1]
	default:
		return nil, p.fail(off, "unexpected "+tok.String())
	}
	return v, nil
}

// wrap turns a decoder error into a SyntaxError with a message an author can act on.
func (p *parser) wrap(off int, err error) error {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		off = int(se.ByteOffset)
		err = se.Err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		msg := "unexpected end of input"
		if len(p.raw) == 0 || len(bytes.TrimSpace(p.raw)) == 0 {
			msg = "empty document: expected a JSON value"
		} else if n := len(p.open); n > 0 {
			o := p.open[n-1]
			line, col := LineCol(p.raw, o)
			msg = fmt.Sprintf("unexpected end of input: the %s opened at %d:%d is not closed (missing %q)",
				map[byte]string{'{': "object", '[': "array"}[p.raw[o]], line, col, closer(p.raw[o]))
		}
		return p.fail(len(p.raw), msg)
	}
	msg := strings.TrimPrefix(err.Error(), "jsontext: ")
	if off < len(p.raw) && p.raw[off] == '/' {
		msg += " (comments are not allowed in JSON)"
	}
	return p.fail(off, msg)
}

func closer(open byte) string {
	if open == '[' {
		return "]"
	}
	return "}"
}

func (p *parser) fail(off int, msg string) error {
	line, col := LineCol(p.raw, off)
	return &SyntaxError{Offset: off, Line: line, Col: col, Msg: msg}
}

// LineCol converts a byte offset of raw into a 1-based line and column.
// The column counts bytes, as most editors' "go to column" do for ASCII.
func LineCol(raw []byte, off int) (line, col int) {
	if off > len(raw) {
		off = len(raw)
	}
	line = 1 + bytes.Count(raw[:off], []byte{'\n'})
	col = off - bytes.LastIndexByte(raw[:off], '\n')
	return line, col
}
