package reactor

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The session machine and the pure decisions it uses depend on nothing in
// its drivers: no file of the machine names a type, function, variable or
// constant declared in any other file of the package (sessionIO's, the
// root actors', the Runner's, the Manager's, the use cases'). A driver may
// use the machine, never the other way round.
func TestMachineDependsOnNoDriver(t *testing.T) {
	machineFiles := []string{"machine.go", "machinemsg.go", "commit.go", "execstep.go", "actormode.go",
		"join.go", "joinreach.go", "joinview.go", "plan.go", "summary.go", "sealed.go", "wake.go", "bundle.go", "executor.go"}
	all, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var driverFiles []string
	for _, f := range all {
		if !strings.HasSuffix(f, "_test.go") && f != "doc.go" && !slices.Contains(machineFiles, f) {
			driverFiles = append(driverFiles, f)
		}
	}
	fset := token.NewFileSet()
	parse := func(name string) *ast.File {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	// The drivers' top-level names (methods are reached through their
	// receivers, which are drivers' types).
	driverNames := map[string]string{}
	for _, name := range driverFiles {
		for _, d := range parse(name).Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					driverNames[d.Name.Name] = name
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						driverNames[s.Name.Name] = name
					case *ast.ValueSpec:
						for _, n := range s.Names {
							driverNames[n.Name] = name
						}
					}
				}
			}
		}
	}
	if len(driverNames) < 10 {
		t.Fatalf("found %d names in the drivers' files: is the parse wrong?", len(driverNames))
	}
	for _, name := range machineFiles {
		var uses []string
		var walk func(n ast.Node)
		walk = func(n ast.Node) {
			if v := reflect.ValueOf(n); n == nil || v.Kind() == reflect.Pointer && v.IsNil() {
				return
			}
			ast.Inspect(n, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.Ident:
					if from, ok := driverNames[n.Name]; ok {
						uses = append(uses, n.Name+" ("+from+")")
					}
				case *ast.SelectorExpr:
					// x.Sel: only x can name a package-level declaration.
					walk(n.X)
					return false
				case *ast.KeyValueExpr:
					// A struct literal's field name is not a reference.
					if _, ok := n.Key.(*ast.Ident); !ok {
						walk(n.Key)
					}
					walk(n.Value)
					return false
				case *ast.Field:
					// Field and parameter names are declarations.
					walk(n.Type)
					return false
				case *ast.FuncDecl:
					walk(n.Recv)
					walk(n.Type)
					walk(n.Body)
					return false
				case *ast.TypeSpec:
					walk(n.TypeParams)
					walk(n.Type)
					return false
				case *ast.ValueSpec:
					walk(n.Type)
					for _, v := range n.Values {
						walk(v)
					}
					return false
				case *ast.AssignStmt:
					if n.Tok == token.DEFINE {
						for _, r := range n.Rhs {
							walk(r)
						}
						return false
					}
				}
				return true
			})
		}
		walk(parse(name))
		sort.Strings(uses)
		uses = slices.Compact(uses)
		if len(uses) > 0 {
			t.Errorf("%s, a file of the machine, uses its drivers' %s (move it to the machine's files, or list a pure file among them)", name, strings.Join(uses, ", "))
		}
	}
}
