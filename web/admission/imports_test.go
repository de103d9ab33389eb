package admission

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnlyWebImportsAdmission keeps the controller the web server's own:
// the engine, lessons, the classroom and the command reach it through web.
func TestOnlyWebImportsAdmission(t *testing.T) {
	root := filepath.Join("..", "..")
	const path = `"github.com/leaselab/playground/web/admission"`
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if filepath.Dir(rel) == "web" || strings.HasPrefix(rel, filepath.Join("web", "admission")) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), path) {
			t.Errorf("%s imports web/admission; only package web may", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
