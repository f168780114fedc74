package rule

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkGas prices the guide's advanced example (worked example C): the
// work a rule step adds to compute its validation gas.
func BenchmarkGas(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("testdata", "gas", "advanced.json"))
	if err != nil {
		b.Fatal(err)
	}
	d := gasDoc(b, string(raw))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = d.Gas(GasOptions{ValidSpawns: 1})
	}
}
