// Package yamlsection lets several parsers share one YAML config file:
// each reads its own top-level section and hands the file on with that
// section's lines emptied, line numbers kept, so that the next parser's
// errors still point at the right line:column.
package yamlsection

import (
	"bytes"

	"go.yaml.in/yaml/v3"
)

// Blank returns raw with the lines of the top-level section whose key is
// top.Content[i] emptied (from its key to the line before the next key, or
// to the end), keeping every line break. top is the document's mapping.
func Blank(raw []byte, top *yaml.Node, i int) []byte {
	first, last := top.Content[i].Line, -1
	if i+2 < len(top.Content) {
		last = top.Content[i+2].Line - 1
	}
	lines := bytes.SplitAfter(raw, []byte("\n"))
	out := make([]byte, 0, len(raw))
	for j, l := range lines {
		n := j + 1
		if n >= first && (last < 0 || n <= last) {
			if bytes.HasSuffix(l, []byte("\n")) {
				out = append(out, '\n')
			}
			continue
		}
		out = append(out, l...)
	}
	return out
}
