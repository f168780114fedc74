package yamlsection

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestBlank(t *testing.T) {
	raw := []byte("a: 1\nb:\n  x: 2\n  y: 3\nc: 4\n")
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	top := doc.Content[0]
	if got := string(Blank(raw, top, 2)); got != "a: 1\n\n\n\nc: 4\n" {
		t.Errorf("the middle section: %q", got)
	}
	if got := string(Blank(raw, top, 4)); got != "a: 1\nb:\n  x: 2\n  y: 3\n\n" {
		t.Errorf("the last section: %q", got)
	}
}
