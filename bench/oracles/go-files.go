// Prints the package clause, the import paths, the package-level declarations and the names used of each Go
// file named on stdin (one path a line), as one JSON object a line, with the Go toolchain's own parser. Part
// of the Go oracle (go-graph.ts).
package main

import (
	"bufio"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strconv"
	"strings"
)

type file struct {
	Path    string   `json:"path"`
	Package string   `json:"package"`
	Imports []string `json:"imports"`
	// Package-level functions, types, vars and consts; methods.
	Top     []string `json:"top"`
	Methods []string `json:"methods"`
	// Names the file uses that a sibling may declare; method names called as x.Name( (x not an imported package).
	Uses        []string `json:"uses"`
	MethodCalls []string `json:"methodCalls"`
	Error       string   `json:"error,omitempty"`
}

var version = regexp.MustCompile(`/v\d+$`)
var dotVersion = regexp.MustCompile(`\.v\d+$`)
var nonWord = regexp.MustCompile(`\W`)

// The name an import is used by: its alias, else its last element less a version suffix and a go- prefix (Loupe's rule).
func localName(spec *ast.ImportSpec, path string) string {
	if spec.Name != nil {
		return spec.Name.Name
	}
	parts := strings.Split(version.ReplaceAllString(path, ""), "/")
	last := dotVersion.ReplaceAllString(parts[len(parts)-1], "")
	last = strings.TrimSuffix(strings.TrimPrefix(last, "go-"), "-go")
	return nonWord.ReplaceAllString(last, "_")
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		f := file{Path: in.Text(), Imports: []string{}, Top: []string{}, Methods: []string{}, Uses: []string{}, MethodCalls: []string{}}
		tree, err := parser.ParseFile(token.NewFileSet(), f.Path, nil, parser.SkipObjectResolution)
		if err != nil {
			f.Error = err.Error()
		}
		if tree != nil {
			f.Package = tree.Name.Name
			packages := map[string]bool{}
			for _, spec := range tree.Imports {
				if p, err := strconv.Unquote(spec.Path.Value); err == nil {
					f.Imports = append(f.Imports, p)
					packages[localName(spec, p)] = true
				}
			}
			skip := map[*ast.Ident]bool{tree.Name: true}
			for _, decl := range tree.Decls {
				switch d := decl.(type) {
				case *ast.FuncDecl:
					if d.Recv != nil {
						f.Methods = append(f.Methods, d.Name.Name)
						skip[d.Name] = true
					} else {
						f.Top = append(f.Top, d.Name.Name)
					}
				case *ast.GenDecl:
					for _, spec := range d.Specs {
						switch s := spec.(type) {
						case *ast.TypeSpec:
							f.Top = append(f.Top, s.Name.Name)
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.Name != "_" {
									f.Top = append(f.Top, n.Name)
								}
							}
						case *ast.ImportSpec:
							if s.Name != nil {
								skip[s.Name] = true
							}
						}
					}
				}
			}
			// Field and method names of struct and interface types, labels and selectors are not package-level names.
			ast.Inspect(tree, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.StructType:
					for _, fl := range x.Fields.List {
						for _, id := range fl.Names {
							skip[id] = true
						}
					}
				case *ast.InterfaceType:
					for _, fl := range x.Methods.List {
						for _, id := range fl.Names {
							skip[id] = true
						}
					}
				case *ast.LabeledStmt:
					skip[x.Label] = true
				case *ast.BranchStmt:
					if x.Label != nil {
						skip[x.Label] = true
					}
				case *ast.SelectorExpr:
					skip[x.Sel] = true
				case *ast.CallExpr:
					if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
						if id, ok := sel.X.(*ast.Ident); !ok || !packages[id.Name] {
							f.MethodCalls = append(f.MethodCalls, sel.Sel.Name)
						}
					}
				}
				return true
			})
			ast.Inspect(tree, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && !skip[id] {
					f.Uses = append(f.Uses, id.Name)
				}
				return true
			})
		}
		if err := out.Encode(f); err != nil {
			panic(err)
		}
	}
}
