// Prints the package clause and the import paths of each Go file named on stdin (one path a line), as
// one JSON object a line, with the Go toolchain's own parser. Part of the Go oracle (go-graph.ts).
package main

import (
	"bufio"
	"encoding/json"
	"go/parser"
	"go/token"
	"os"
	"strconv"
)

type file struct {
	Path    string   `json:"path"`
	Package string   `json:"package"`
	Imports []string `json:"imports"`
	Error   string   `json:"error,omitempty"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		f := file{Path: in.Text(), Imports: []string{}}
		ast, err := parser.ParseFile(token.NewFileSet(), f.Path, nil, parser.ImportsOnly)
		if err != nil {
			f.Error = err.Error()
		}
		if ast != nil {
			f.Package = ast.Name.Name
			for _, spec := range ast.Imports {
				if p, err := strconv.Unquote(spec.Path.Value); err == nil {
					f.Imports = append(f.Imports, p)
				}
			}
		}
		if err := out.Encode(f); err != nil {
			panic(err)
		}
	}
}
