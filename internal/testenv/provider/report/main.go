// Command report prints which provider internal/testenv uses in this
// environment (one line) and exits 1 when none can serve, so that `make
// test` states it once and fails fast on XGR_TEST_PROVIDER=docker without
// an engine.
package main

import (
	"os"

	"github.com/xgr-sidecar/xgr/internal/testenv/provider"
)

func main() {
	if provider.Current().Err != nil {
		os.Exit(1)
	}
}
