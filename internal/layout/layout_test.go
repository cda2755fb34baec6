package layout

import (
	"bufio"
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/agentty/agentty/"

// pkg is what `go list -json` says of one package of the module.
type pkg struct {
	ImportPath string
	Dir        string
	Imports    []string
	Deps       []string
	GoFiles    []string
}

// list returns every package of the module, keyed by its path inside the
// module ("internal/session", "cmd/agentty").
func list(t *testing.T) map[string]pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = root(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs[strings.TrimPrefix(p.ImportPath, module)] = p
	}
	return pkgs
}

func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// inModule returns the module-internal paths among paths, trimmed.
func inModule(paths []string) []string {
	var out []string
	for _, p := range paths {
		if strings.HasPrefix(p, module) {
			out = append(out, strings.TrimPrefix(p, module))
		}
	}
	return out
}

func TestImports_Rules(t *testing.T) {
	pkgs := list(t)
	get := func(name string) pkg {
		p, ok := pkgs[name]
		if !ok {
			t.Fatalf("package %s not found", name)
		}
		return p
	}
	t.Run("mcpserver stays protocol glue", func(t *testing.T) {
		for _, imp := range inModule(get("internal/mcpserver").Imports) {
			if slices.Contains(backendSide, imp) {
				t.Errorf("internal/mcpserver imports %s; reach it through the engine packages", imp)
			}
		}
	})
	t.Run("cmd reaches the engine through the server core", func(t *testing.T) {
		for _, imp := range inModule(get("cmd/agentty").Imports) {
			if !slices.Contains(cmdMayImport, imp) {
				t.Errorf("cmd/agentty imports %s; only %v are allowed", imp, cmdMayImport)
			}
		}
	})
	t.Run("the server links no container clients", func(t *testing.T) {
		for _, dep := range get("cmd/agentty").Deps {
			for _, heavy := range containerClients {
				if strings.HasPrefix(dep, heavy) {
					t.Errorf("cmd/agentty depends on %s; container clients belong in agentty-link (internal/nodelink)", dep)
				}
			}
		}
	})
	t.Run("agentty-link is the link and nothing else", func(t *testing.T) {
		for _, imp := range inModule(get("cmd/agentty-link").Imports) {
			if imp != "internal/nodelink" {
				t.Errorf("cmd/agentty-link imports %s; only internal/nodelink is allowed", imp)
			}
		}
	})
	t.Run("the console client imports no engine", func(t *testing.T) {
		for _, dep := range inModule(get("internal/console/client").Deps) {
			if dep != "internal/console/api" {
				t.Errorf("internal/console/client depends on %s; it may only use the wire types of internal/console/api", dep)
			}
		}
	})
	t.Run("store sits below session", func(t *testing.T) {
		for _, dep := range inModule(get("internal/store").Deps) {
			if dep == "internal/session" {
				t.Errorf("internal/store depends on internal/session")
			}
		}
	})
	t.Run("the engine speaks no protocol", func(t *testing.T) {
		for name, p := range pkgs {
			if !strings.HasPrefix(name, "internal/") || slices.Contains(frontEnds, name) {
				continue
			}
			for _, dep := range p.Deps {
				if strings.HasPrefix(dep, "github.com/modelcontextprotocol/") {
					t.Errorf("%s depends on %s; protocol types belong in the front ends %v", name, dep, frontEnds)
					break
				}
			}
		}
	})
}

// TestSession_NoBackendTypeChecks keeps "local or remote?" inside the
// backend contract: internal/session asks a backend.Process, never which
// kind it is.
func TestSession_NoBackendTypeChecks(t *testing.T) {
	p := list(t)["internal/session"]
	fset := token.NewFileSet()
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var typ ast.Expr
			switch n := n.(type) {
			case *ast.TypeAssertExpr:
				typ = n.Type
			case *ast.TypeSwitchStmt:
				for _, c := range n.Body.List {
					for _, e := range c.(*ast.CaseClause).List {
						if isBackend(e) {
							t.Errorf("%s: type switch on backend types; add what is needed to backend.Process", fset.Position(e.Pos()))
						}
					}
				}
				return true
			}
			if isBackend(typ) {
				t.Errorf("%s: type assertion to a backend type; add what is needed to backend.Process", fset.Position(n.Pos()))
			}
			return true
		})
	}
}

// TestFiles_Small keeps files to one idea: no Go file over maxLines lines.
func TestFiles_Small(t *testing.T) {
	const maxLines = 600
	err := filepath.WalkDir(root(t), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root(t) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		n := 0
		for sc := bufio.NewScanner(f); sc.Scan(); {
			n++
		}
		if n > maxLines {
			rel, _ := filepath.Rel(root(t), path)
			t.Errorf("%s has %d lines (most %d): split it by idea", rel, n, maxLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// isBackend reports whether e names a type of package backend (backend.X or
// *backend.X).
func isBackend(e ast.Expr) bool {
	if st, ok := e.(*ast.StarExpr); ok {
		e = st.X
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == "backend"
}
