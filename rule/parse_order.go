package rule

import (
	"strconv"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

// producer is where a key of the environment comes from, in the order
// Evaluate runs the sources: contract reads, then API calls.
type producer struct {
	stage int // 0 contract reads, 1 API calls
	index int
	path  jsondoc.Path
}

func (p producer) before(q producer) bool {
	return p.stage < q.stage || p.stage == q.stage && p.index < q.index
}

// forwardRefs warns about a placeholder of a contract read or API call
// that names a key only a later source produces (CodeOrder): the source
// would see it missing. Contract reads run before API calls (spec §6.1,
// ContractReads guide §1), each in array order. Keys the payload declares
// are there from the start.
func (d *decoder) forwardRefs(doc *Document, root *jsondoc.Value) {
	first := map[string]producer{}
	note := func(key string, p producer) {
		if _, ok := first[key]; !ok && doc.fields[key] == nil {
			first[key] = p
		}
	}
	for i, r := range doc.ContractReads {
		for _, s := range r.SaveAs {
			note(s.Key, producer{0, i, jsondoc.Path("contractReads").Index(i)})
		}
	}
	for i, c := range doc.APICalls {
		for _, x := range c.Extract {
			note(x.Alias, producer{1, i, jsondoc.Path("apiCalls").Index(i)})
		}
	}
	check := func(user producer, path jsondoc.Path, keys []string) {
		seen := map[string]bool{}
		for _, k := range keys {
			p, ok := first[k]
			if !ok || seen[k] || k == "resp" && user.stage == 1 || p.before(user) {
				continue
			}
			seen[k] = true
			why := "runs after it"
			switch {
			case p == user:
				why = "is this same " + map[int]string{0: "contract read", 1: "API call"}[user.stage]
			case p.stage == 1 && user.stage == 0:
				why = "is an API call, and xgr runs every contract read before the API calls (rule spec §6.1, ContractReads guide §1)"
			}
			d.Warnf(offAt(root, path), path, CodeOrder,
				"[%s] is produced by %s, which %s: here it is missing (the default applies or the %s fails); move the producer before it or take the value from the payload",
				k, p.path, why, map[int]string{0: "read", 1: "call"}[user.stage])
		}
	}
	for i, r := range doc.ContractReads {
		base := jsondoc.Path("contractReads").Index(i)
		user := producer{0, i, base}
		check(user, base.Key("to"), valueKeys(r.To))
		for j, a := range r.Args {
			check(user, base.Key("args").Index(j), valueKeys(a.Value))
		}
	}
	for i, c := range doc.APICalls {
		base := jsondoc.Path("apiCalls").Index(i)
		user := producer{1, i, base}
		if c.URL != nil {
			check(user, base.Key("urlTemplate"), c.URL.Keys())
		}
		if c.Body != nil {
			check(user, base.Key("bodyTemplate"), c.Body.Keys())
		}
		for _, h := range c.Headers {
			check(user, base.Key("headers").Key(h.Name), h.Value.Keys())
		}
		for _, x := range c.Extract {
			if x.Expr != nil {
				check(user, base.Key("extractMap").Key(x.Alias), x.Expr.Keys)
			}
		}
	}
}

// valueKeys lists the keys a literal, template or expression reads.
func valueKeys(v *Value) []string {
	switch {
	case v == nil || v.IsLiteral:
		return nil
	case v.Kind == KindTemplate && v.Template != nil:
		return v.Template.Keys()
	case v.Expr != nil:
		return v.Expr.Keys
	}
	return nil
}

// offAt finds the value at path under root (-1 when it is not there), for
// the line:column of a problem found on the model.
func offAt(root *jsondoc.Value, path jsondoc.Path) int {
	v := root
	for _, step := range pathSteps(string(path)) {
		if v == nil {
			return -1
		}
		if i, err := strconv.Atoi(step); err == nil && v.Kind == jsondoc.Array {
			if i < 0 || i >= len(v.Items) {
				return -1
			}
			v = v.Items[i]
			continue
		}
		v = v.Get(step)
	}
	return offOf(v)
}

// pathSteps splits a path of plain keys and indexes ("a.b[2].c") into its
// steps; a quoted key (written for keys that are not plain) ends the walk.
func pathSteps(p string) []string {
	var out []string
	cur := ""
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '.':
			if cur != "" {
				out = append(out, cur)
			}
			cur = ""
		case '[':
			if cur != "" {
				out = append(out, cur)
			}
			cur = ""
			j := i + 1
			for j < len(p) && p[j] != ']' {
				j++
			}
			if j >= len(p) || p[i+1] == '"' {
				return out
			}
			out = append(out, p[i+1:j])
			i = j
		default:
			cur += string(c)
		}
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}
