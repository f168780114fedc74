package xgr_test

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The module's import path; package paths below are relative to it.
const module = "github.com/xgr-sidecar/xgr"

// The layers are written down once, in docs/architecture.md's "Layers"
// table: a row per layer, its number first and its packages (each in
// backquotes, "dir/..." for a directory and everything under it) in the
// last column. The test-support row has "test" as its number.
const layersDoc = "docs/architecture.md"

// layerTable is the parsed table: an exact package or a "/..." prefix to its
// layer; testLayer marks test support.
type layerTable struct {
	exact  map[string]int
	prefix map[string]int
}

const testLayer = 1 << 20

var layerRow = regexp.MustCompile(`^\|\s*(\d+|test)\s*\|.*\|\s*(.*?)\s*\|\s*$`)
var backquoted = regexp.MustCompile("`([^`]+)`")

// readLayers parses the Layers section of the architecture doc.
func readLayers(t *testing.T) layerTable {
	t.Helper()
	f, err := os.Open(layersDoc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lt := layerTable{exact: map[string]int{}, prefix: map[string]int{}}
	in := false
	sc := bufio.NewScanner(f)
	for line := 0; sc.Scan(); {
		line++
		s := sc.Text()
		if strings.HasPrefix(s, "## ") {
			in = strings.TrimSpace(s) == "## Layers"
			continue
		}
		if !in {
			continue
		}
		m := layerRow.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		n := testLayer
		if m[1] != "test" {
			n, _ = strconv.Atoi(m[1])
		}
		for _, p := range backquoted.FindAllStringSubmatch(m[2], -1) {
			pkg := p[1]
			if rest, ok := strings.CutSuffix(pkg, "/..."); ok {
				lt.prefix[rest] = n
			} else {
				lt.exact[pkg] = n
			}
		}
	}
	if len(lt.exact)+len(lt.prefix) == 0 {
		t.Fatalf("%s: no \"## Layers\" table with rows like | 1 | name | `pkg`, `dir/...` |", layersDoc)
	}
	return lt
}

// layer is pkg's layer; ok is false for a package the table does not list.
func (lt layerTable) layer(pkg string) (int, bool) {
	if n, ok := lt.exact[pkg]; ok {
		return n, true
	}
	best, n := "", 0
	for p, l := range lt.prefix {
		if (pkg == p || strings.HasPrefix(pkg, p+"/")) && len(p) > len(best) {
			best, n = p, l
		}
	}
	return n, best != ""
}

// pkgImports is one package's imports of the module's own packages, split
// into those of its production files and those of its test files.
type pkgImports struct {
	prod map[string][]string // imported package → files importing it
	test map[string][]string
}

// moduleImports reads every Go file of the module (build tags ignored: a
// tagged file's imports count too; nested modules are not the module's).
func moduleImports(t *testing.T) map[string]*pkgImports {
	t.Helper()
	out := map[string]*pkgImports{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			if path != "." {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		pi := out[pkg]
		if pi == nil {
			pi = &pkgImports{prod: map[string][]string{}, test: map[string][]string{}}
			out[pkg] = pi
		}
		into := pi.prod
		if strings.HasSuffix(path, "_test.go") {
			into = pi.test
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if rest, ok := strings.CutPrefix(p, module+"/"); ok {
				into[rest] = append(into[rest], filepath.Base(path))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	delete(out, ".") // this test
	return out
}

// TestLayers holds the code's imports to the layers docs/architecture.md
// writes down: no package imports one from a higher layer, test support is
// imported only by tests, and internal/ holds only leaves.
func TestLayers(t *testing.T) {
	lt := readLayers(t)
	pkgs := moduleImports(t)
	var problems []string
	names := make([]string, 0, len(pkgs))
	for p := range pkgs {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		lp, ok := lt.layer(p)
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: not in %s's Layers table: add it to the layer it belongs to", p, layersDoc))
			continue
		}
		imps := pkgs[p].prod
		deps := make([]string, 0, len(imps))
		for q := range imps {
			deps = append(deps, q)
		}
		sort.Strings(deps)
		for _, q := range deps {
			lq, ok := lt.layer(q)
			switch {
			case !ok:
				// Reported once, as the package itself.
			case lq == testLayer && lp != testLayer:
				problems = append(problems, fmt.Sprintf("%s (%s) imports test support %s: only _test.go files may", p, strings.Join(imps[q], ", "), q))
			case lq > lp && lp != testLayer:
				problems = append(problems, fmt.Sprintf("%s (layer %d, %s) imports %s from higher layer %d", p, lp, strings.Join(imps[q], ", "), q, lq))
			}
			if strings.HasPrefix(p, "internal/") && !strings.HasPrefix(q, "internal/") {
				problems = append(problems, fmt.Sprintf("%s imports %s: internal/ holds only leaves (packages that import nothing of the module outside internal/)", p, q))
			}
		}
	}
	for _, s := range problems {
		t.Error(s)
	}
	t.Logf("%d packages, %d upward imports", len(names), len(problems))
}

// TestLayersTableListsOnlyPackages keeps the table honest: every exact entry
// names a directory that holds Go code.
func TestLayersTableListsOnlyPackages(t *testing.T) {
	lt := readLayers(t)
	pkgs := moduleImports(t)
	for p := range lt.exact {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("%s lists %s, which is not a package of the module", layersDoc, p)
		}
	}
	for p := range lt.prefix {
		found := false
		for q := range pkgs {
			if q == p || strings.HasPrefix(q, p+"/") {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s lists %s/..., which holds no package of the module", layersDoc, p)
		}
	}
}

// TestArchitectureDescribesEveryPackage: docs/architecture.md's "Go
// packages" section names every package of the module (at the head of a
// bullet, "- `pkg` — …", or in backquotes within one), so the page cannot
// fall behind the code again.
func TestArchitectureDescribesEveryPackage(t *testing.T) {
	raw, err := os.ReadFile(layersDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	start := strings.Index(doc, "\n## Go packages\n")
	if start < 0 {
		t.Fatalf("%s has no \"## Go packages\" section", layersDoc)
	}
	sec := doc[start+1:]
	if end := strings.Index(sec[3:], "\n## "); end >= 0 {
		sec = sec[:end+3]
	}
	described := map[string]bool{}
	for _, line := range strings.Split(sec, "\n") {
		if !strings.HasPrefix(line, "- `") {
			continue
		}
		head, _, _ := strings.Cut(line, " — ")
		for _, m := range backquoted.FindAllStringSubmatch(head, -1) {
			described[m[1]] = true
		}
	}
	for p := range moduleImports(t) {
		if !described[p] && !strings.Contains(sec, "`"+p+"`") {
			t.Errorf("%s: package %s is not described under \"## Go packages\"", layersDoc, p)
		}
	}
}
