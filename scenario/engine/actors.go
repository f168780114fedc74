package engine

import (
	"bufio"
	"crypto/ecdsa"
	"fmt"
	"os"
	"strings"

	"github.com/xgr-sidecar/xgr/chain"
)

// GivenKeys reads the actor keys an operator named: the lines ALIAS=0xKEY
// of file ("" for none; blank lines and lines starting with # are
// skipped), then specs (--actor ALIAS=0xKEY), a later one replacing an
// earlier one. Errors say where (FILE:LINE or --actor) and never repeat a
// key.
func GivenKeys(file string, specs []string) (map[string]*ecdsa.PrivateKey, error) {
	given := map[string]*ecdsa.PrivateKey{}
	add := func(spec, where string) error {
		alias, hex, ok := strings.Cut(strings.TrimSpace(spec), "=")
		alias = strings.TrimSpace(alias)
		if !ok || alias == "" {
			return fmt.Errorf("%s: %q: want ALIAS=0xPRIVATEKEY", where, redactActor(spec))
		}
		key, err := chain.KeyFromHex(hex)
		if err != nil {
			return fmt.Errorf("%s: actor %q: not a private key (64 hex digits, optionally 0x-prefixed)", where, alias)
		}
		given[alias] = key
		return nil
	}
	if file != "" {
		fh, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		sc := bufio.NewScanner(fh)
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if err := add(line, fmt.Sprintf("%s:%d", file, n)); err != nil {
				return nil, err
			}
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	for _, spec := range specs {
		if err := add(spec, "--actor"); err != nil {
			return nil, err
		}
	}
	return given, nil
}

// redactActor hides what follows "=" in an actor spec (a private key),
// and the whole of a spec without "=" (a key given without its alias).
func redactActor(spec string) string {
	if a, _, ok := strings.Cut(spec, "="); ok {
		return a + "=…"
	}
	return "…"
}
