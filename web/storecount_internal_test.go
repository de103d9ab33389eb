package web

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/leaselab/playground/classroom"
)

// TestCountingStoreWrapsEveryMethod: every method of classroom.Store is
// declared on countingStore itself, not promoted from the store it
// embeds; a promoted one's errors would never reach the store-error
// metric. A method added to the interface fails this test until it is
// wrapped.
func TestCountingStoreWrapsEveryMethod(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 {
				continue
			}
			typ := fn.Recv.List[0].Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			if id, ok := typ.(*ast.Ident); ok && id.Name == "countingStore" {
				declared[fn.Name.Name] = true
			}
		}
	}
	iface := reflect.TypeFor[classroom.Store]()
	for i := range iface.NumMethod() {
		if m := iface.Method(i).Name; !declared[m] {
			t.Errorf("countingStore does not wrap classroom.Store's %s: its errors never reach playground_store_errors_total", m)
		}
	}
}
