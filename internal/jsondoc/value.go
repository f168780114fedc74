// Package jsondoc parses a JSON document into a small tree that remembers
// where every value starts, so that validators can report problems by JSON
// path and by line:column of the exact bytes an author wrote.
//
// Member order and duplicate names are kept as written; the caller decides
// what a duplicate means. Syntax errors carry line and column.
package jsondoc

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Object
	Array
)

var kindNames = [...]string{Null: "null", Bool: "boolean", Number: "number", String: "string", Object: "object", Array: "array"}

// String names the kind as a JSON author would ("object", "array", ...).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Value is one JSON value with the byte offset where it starts.
type Value struct {
	Kind Kind
	// Off is the offset of the value's first byte in the parsed document.
	Off int
	// Text holds a string's decoded value or a number's literal text.
	Text string
	// True holds a boolean's value.
	True bool
	// Items holds an array's elements.
	Items []*Value
	// Members holds an object's members in document order, duplicates included.
	Members []Member

	// Parent is the enclosing array or object, nil for the root.
	Parent *Value
}

// Path returns the value's path from the root. It is built on demand (only
// problems need it), by finding v among its parent's items or members.
func (v *Value) Path() Path {
	if v == nil || v.Parent == nil {
		return ""
	}
	up := v.Parent.Path()
	if v.Parent.Kind == Array {
		for i, it := range v.Parent.Items {
			if it == v {
				return up.Index(i)
			}
		}
	}
	for _, m := range v.Parent.Members {
		if m.Value == v {
			return up.Key(m.Name)
		}
	}
	return up
}

// Member is one name/value pair of an object.
type Member struct {
	Name    string
	NameOff int
	Value   *Value
}

// Get returns the first member named name, or nil.
func (v *Value) Get(name string) *Value {
	for i := range v.Members {
		if v.Members[i].Name == name {
			return v.Members[i].Value
		}
	}
	return nil
}
