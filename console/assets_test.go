package console

import (
	"io/fs"
	"regexp"
	"testing"
)

// AssetBudget is the most the embedded page may weigh, in bytes,
// uncompressed: the whole page (HTML, ES modules, CSS; no library). It
// was 64 KB until the page held the views an operator needs (timeline,
// bundles, quotas, stalls) and had 91 bytes left; 80 KB keeps it a small
// page served from the binary, which no feature should be cut to fit.
const AssetBudget = 80 << 10

// The page stays small and loads nothing from another origin: sidecars
// run in closed networks.
func TestAssetsStaySmallAndLocal(t *testing.T) {
	total := 0
	external := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}[/"']|@import|cdn\.`)
	err := fs.WalkDir(Assets(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(Assets(), path)
		if err != nil {
			return err
		}
		total += len(b)
		if m := external.Find(b); m != nil {
			t.Errorf("%s refers to another origin: %q", path, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if total > AssetBudget {
		t.Errorf("the embedded page weighs %d bytes, over its budget of %d", total, AssetBudget)
	}
	t.Logf("embedded page: %d bytes", total)
	for _, f := range []string{"index.html", "app.js", "style.css"} {
		if _, err := fs.Stat(Assets(), f); err != nil {
			t.Errorf("embedded page lacks %s", f)
		}
	}
}
