package registry

import (
	"bytes"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// Rewrite returns the orchestration text with each step's "rule" set
// to the address in rules (step id → address; steps not in rules keep
// theirs) and, when registryAddr is not empty, the top-level "address" and
// "meta.deployedAddress" members (where present) set to it. Everything
// else is kept: member order, numbers and strings exactly; the output is
// 2-space indented. Its keccak256 (Hash) is what a registry records for it
// and sessions pin.
func Rewrite(raw []byte, rules map[string]string, registryAddr string) ([]byte, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true))
	var buf bytes.Buffer
	enc := jsontext.NewEncoder(&buf, jsontext.Multiline(true), jsontext.WithIndent("  "), jsontext.AllowDuplicateNames(true))
	for {
		tok, err := dec.ReadToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if tok.Kind() == '"' && isValue(dec) {
			if repl, ok := rewriteAt(dec.StackPointer(), rules, registryAddr); ok {
				tok = jsontext.String(repl)
			}
		}
		if err := enc.WriteToken(tok); err != nil {
			return nil, err
		}
	}
	return bytes.TrimSpace(buf.Bytes()), nil
}

// isValue reports whether the token just read is a value (not an object
// member name).
func isValue(dec *jsontext.Decoder) bool {
	kind, n := dec.StackIndex(dec.StackDepth())
	return kind != '{' || n%2 == 0
}

func rewriteAt(ptr jsontext.Pointer, rules map[string]string, registryAddr string) (string, bool) {
	var toks []string
	for t := range ptr.Tokens() {
		toks = append(toks, t)
	}
	switch {
	case len(toks) == 3 && toks[0] == "structure" && toks[2] == "rule":
		a, ok := rules[toks[1]]
		return a, ok
	case registryAddr != "" && len(toks) == 1 && toks[0] == "address",
		registryAddr != "" && len(toks) == 2 && toks[0] == "meta" && toks[1] == "deployedAddress":
		return registryAddr, true
	}
	return "", false
}
