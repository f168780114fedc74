package scenario

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

// Placeholder kinds. A placeholder is a whole JSON string of a payload or a
// wake-up allow list:
//
//	$actor.address:ALIAS               the actor's address (lower-case 0x hex)
//	$session.id:SAVEAS                 the root session id of that session (a JSON number)
//	$session.owner:SAVEAS              that session's owner (lower-case 0x hex)
//	$contract.address:BUNDLEKEY:ALIAS  where this run deployed the XRC-137 item ALIAS of that plan
//
// Setup contracts are referred to inside rule documents as ${addr:KEY},
// anywhere in a string (see SubstituteAddrs).
const (
	RefActorAddress    = "actor.address"
	RefSessionID       = "session.id"
	RefSessionOwner    = "session.owner"
	RefContractAddress = "contract.address"
)

// Ref is a parsed placeholder.
type Ref struct {
	Kind string
	// Name is the actor alias, the session's saveAs name or the bundle key.
	Name string
	// Alias is the contract alias ($contract.address only).
	Alias string
}

func (r Ref) String() string {
	if r.Kind == RefContractAddress {
		return "$" + r.Kind + ":" + r.Name + ":" + r.Alias
	}
	return "$" + r.Kind + ":" + r.Name
}

// ParseRef reads a placeholder. ok is false for strings that are not
// placeholders (they do not start with $actor., $session. or $contract.);
// err is set for ones that start so but are malformed.
func ParseRef(s string) (ref Ref, ok bool, err error) {
	if !strings.HasPrefix(s, "$actor.") && !strings.HasPrefix(s, "$session.") && !strings.HasPrefix(s, "$contract.") {
		return Ref{}, false, nil
	}
	kind, rest, _ := strings.Cut(s[1:], ":")
	fail := func(why string) (Ref, bool, error) {
		return Ref{}, true, fmt.Errorf("placeholder %q: %s; placeholders are $actor.address:ALIAS, $session.id:SAVEAS, $session.owner:SAVEAS and $contract.address:BUNDLEKEY:ALIAS", s, why)
	}
	switch kind {
	case RefActorAddress, RefSessionID, RefSessionOwner:
		if rest == "" || strings.Contains(rest, ":") {
			return fail("want one name after the colon")
		}
		return Ref{Kind: kind, Name: rest}, true, nil
	case RefContractAddress:
		bundle, alias, two := strings.Cut(rest, ":")
		if !two || bundle == "" || alias == "" || strings.Contains(alias, ":") {
			return fail("want BUNDLEKEY:ALIAS after the colon")
		}
		return Ref{Kind: kind, Name: bundle, Alias: alias}, true, nil
	}
	return fail(fmt.Sprintf("unknown kind %q", kind))
}

// SessionRef names a started session.
type SessionRef struct {
	Owner string `json:"owner"`
	ID    int64  `json:"sessionId"`
}

// Env holds what placeholders resolve to.
type Env struct {
	// Actors: alias → address.
	Actors map[string]string
	// Sessions: saveAs → session.
	Sessions map[string]SessionRef
	// Contracts: bundle key → alias → deployed address.
	Contracts map[string]map[string]string
}

// PlaceholderError is a placeholder that does not resolve.
type PlaceholderError struct {
	Path string
	Ref  string
	Msg  string
}

func (e *PlaceholderError) Error() string {
	return fmt.Sprintf("%s: %s: %s", jsondoc.Path(e.Path), e.Ref, e.Msg)
}

// Resolve returns a copy of v (a JSON-decoded value) with every
// placeholder string replaced; path locates v for errors. Strings that are
// not placeholders, and all other values, are kept.
func (e Env) Resolve(v any, path string) (any, error) {
	switch x := v.(type) {
	case string:
		ref, ok, err := ParseRef(x)
		if err != nil {
			return nil, &PlaceholderError{Path: path, Ref: x, Msg: err.Error()}
		}
		if !ok {
			return x, nil
		}
		return e.resolveRef(ref, path)
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, k := range sortedKeys(x) {
			r, err := e.Resolve(x[k], string(jsondoc.Path(path).Key(k)))
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, it := range x {
			r, err := e.Resolve(it, string(jsondoc.Path(path).Index(i)))
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

func (e Env) resolveRef(ref Ref, path string) (any, error) {
	fail := func(format string, args ...any) (any, error) {
		return nil, &PlaceholderError{Path: path, Ref: ref.String(), Msg: fmt.Sprintf(format, args...)}
	}
	switch ref.Kind {
	case RefActorAddress:
		if a, ok := e.Actors[ref.Name]; ok {
			return a, nil
		}
		return fail("no actor %q (actors: %s)", ref.Name, quoted(sortedKeys(e.Actors)))
	case RefSessionID, RefSessionOwner:
		s, ok := e.Sessions[ref.Name]
		if !ok {
			return fail("no session was saved as %q (yet); sessions so far: %s", ref.Name, quoted(sortedKeys(e.Sessions)))
		}
		if ref.Kind == RefSessionID {
			return s.ID, nil
		}
		return s.Owner, nil
	case RefContractAddress:
		b, ok := e.Contracts[ref.Name]
		if !ok {
			return fail("no bundle %q was deployed (bundles: %s)", ref.Name, quoted(sortedKeys(e.Contracts)))
		}
		if a, ok := b[ref.Alias]; ok {
			return a, nil
		}
		return fail("bundle %q has no XRC-137 item with alias %q (aliases: %s)", ref.Name, ref.Alias, quoted(sortedKeys(b)))
	}
	return fail("unknown placeholder kind")
}

// refs calls f for every placeholder string in v with its path; a malformed
// one is reported to f with err set.
func refs(v any, path string, f func(ref Ref, path string, err error)) {
	switch x := v.(type) {
	case string:
		if ref, ok, err := ParseRef(x); ok {
			f(ref, path, err)
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			refs(x[k], string(jsondoc.Path(path).Key(k)), f)
		}
	case []any:
		for i, it := range x {
			refs(it, string(jsondoc.Path(path).Index(i)), f)
		}
	}
}

// refsAt is refs over a parsed document: f also gets the value, to locate
// problems by line and column.
func refsAt(v *jsondoc.Value, path jsondoc.Path, f func(ref Ref, at *jsondoc.Value, path jsondoc.Path, err error)) {
	if v == nil {
		return
	}
	switch v.Kind {
	case jsondoc.String:
		if ref, ok, err := ParseRef(v.Text); ok {
			f(ref, v, path, err)
		}
	case jsondoc.Object:
		for _, m := range v.Members {
			refsAt(m.Value, path.Key(m.Name), f)
		}
	case jsondoc.Array:
		for i, it := range v.Items {
			refsAt(it, path.Index(i), f)
		}
	}
}

var addrPlaceholder = regexp.MustCompile(`\$\{addr:([^}]*)\}`)

// AddrKeys lists the distinct KEYs of ${addr:KEY} placeholders in text, in
// order of appearance.
func AddrKeys(text []byte) []string {
	var keys []string
	seen := map[string]bool{}
	for _, m := range addrPlaceholder.FindAllSubmatch(text, -1) {
		if k := string(m[1]); !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// SubstituteAddrs replaces every ${addr:KEY} in text with addrs[KEY]. A key
// without an address is an error naming it.
func SubstituteAddrs(text []byte, addrs map[string]string) ([]byte, error) {
	var missing []string
	out := addrPlaceholder.ReplaceAllFunc(text, func(m []byte) []byte {
		k := string(addrPlaceholder.FindSubmatch(m)[1])
		a, ok := addrs[k]
		if !ok {
			missing = append(missing, k)
			return m
		}
		return []byte(a)
	})
	if len(missing) > 0 {
		return nil, fmt.Errorf("no address for ${addr:%s} (setup contracts: %s)", missing[0], quoted(sortedKeys(addrs)))
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
