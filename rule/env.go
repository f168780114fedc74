package rule

// vars is the evaluation environment. Every key is held in two views: cel
// is what expressions see (see celValue and celTyped: exact big integers for
// uint256 / int256 values), out is the exact plain value that templates
// render, pass-throughs copy and Result reports.
type vars struct {
	cel map[string]any
	out map[string]any
}

func newVars(n int) vars {
	return vars{cel: make(map[string]any, n), out: make(map[string]any, n)}
}

// set stores both views of key.
func (v vars) set(key string, out, cel any) {
	v.out[key] = out
	v.cel[key] = cel
}

// setTyped stores a value cast to t (or, for TypeInvalid, a normalized
// undeclared value).
func (v vars) setTyped(key string, t Type, out any) { v.set(key, out, celTyped(t, out)) }

// del removes key from both views.
func (v vars) del(key string) {
	delete(v.out, key)
	delete(v.cel, key)
}
