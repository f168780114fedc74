package jsondoc

import (
	"strconv"
	"strings"
)

// Path names a place in a document the way authors read it:
// structure.A1.onValid.join.from[1].node. Names that are not plain
// identifiers are quoted: structure["a b"].
type Path string

// Key appends an object member name.
func (p Path) Key(name string) Path {
	if isPlain(name) {
		if p == "" {
			return Path(name)
		}
		return p + "." + Path(name)
	}
	return p + "[" + Path(strconv.Quote(name)) + "]"
}

// Index appends an array index.
func (p Path) Index(i int) Path {
	return p + "[" + Path(strconv.Itoa(i)) + "]"
}

// String returns the path, or "(document)" for the root.
func (p Path) String() string {
	if p == "" {
		return "(document)"
	}
	return string(p)
}

func isPlain(s string) bool {
	if s == "" {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool {
		return !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0
}
