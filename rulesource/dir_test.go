package rulesource

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/rule"
)

const fixtureDir = "../testdata/xgr-public"

const okRule = `{"payload": {"X": {"type": "int64"}}, "rules": ["[X] > 0"], "onValid": {"payload": {"Y": "[X] * 2"}}}`

// writeDir creates a rule directory with the given files.
func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestDirResolve(t *testing.T) {
	addr := "0x5FbDB2315678afecb367f032d93F642f64180aa3"
	dir := writeDir(t, map[string]string{
		"rules.json": `{"<Iterationstep-Addr>": "pi/step.json", "${addr:FEED}": "feed.json",
			"0xE7F1725E7734CE288F8367E1BB143E90BB3F0512": "feed.json", "<Quorum-Addr>": "` + addr + `"}`,
		"pi/step.json":    okRule,
		"feed.json":       okRule,
		"Other.json":      okRule,
		addr + ".json":    okRule,
		".hidden.json":    okRule,
		"notes.txt":       "x",
		"with space.json": okRule,
	})
	cases := []struct {
		ref, file, addr, via string
	}{
		{"<Iterationstep-Addr>", "pi/step.json", "", "rules.json"},
		{"${addr:FEED}", "feed.json", "", "rules.json"},
		{"0xe7f1725e7734ce288f8367e1bb143e90bb3f0512", "feed.json", "", "rules.json"}, // any letter case
		{"<Quorum-Addr>", "", addr, "rules.json"},
		{"<Other>", "Other.json", "", "file name"},
		{"${addr:Other}", "Other.json", "", "file name"},
		{strings.ToLower(addr), addr + ".json", "", "file name"}, // file named in checksum case
	}
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		got, ok := d.Resolve(c.ref)
		if !ok || !strings.HasSuffix(got.Via, c.via) {
			t.Errorf("%s: %+v, %v", c.ref, got, ok)
			continue
		}
		if c.file != "" && got.File != filepath.Join(dir, c.file) || c.addr != "" && got.Address.Hex() != c.addr {
			t.Errorf("%s: %+v", c.ref, got)
		}
	}
	for _, ref := range []string{"<Missing>", "${addr:other}", "<.hidden>", "<with space>", "Other", "<../Other>", "0x0000000000000000000000000000000000000001"} {
		if got, ok := d.Resolve(ref); ok {
			t.Errorf("%s resolved to %+v", ref, got)
		}
	}
}

func TestDirLoad(t *testing.T) {
	pi, err := os.ReadFile(filepath.Join(fixtureDir, "IterationOfPi/XRC137Json/Iterationstep.json"))
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	dir := writeDir(t, map[string]string{
		"Iterationstep-Addr.json": string(pi), // published truncated: must be rejected
		"Repaired.json":           string(pi) + "}",
		"Secret.json":             "XGR1.AESGCM.deadbeef",
		"rules.json":              `{"<Chain-Addr>": "0x5FbDB2315678afecb367f032d93F642f64180aa3"}`,
	})
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	l, err := d.Load(ctx, "<Repaired>")
	if err != nil || l.Doc == nil || l.File != filepath.Join(dir, "Repaired.json") || l.Ref != "<Repaired>" || len(l.Doc.Payload) != 3 {
		t.Fatalf("repaired: %+v, %v", l, err)
	}
	again, _ := d.Load(ctx, "${addr:Repaired}")
	if again.Doc != l.Doc {
		t.Error("a file is parsed once per Dir")
	}

	_, err = d.Load(ctx, "<Iterationstep-Addr>")
	var ve *rule.ValidationError
	var le *Error
	if !errors.As(err, &ve) || !errors.As(err, &le) || le.Origin != filepath.Join(dir, "Iterationstep-Addr.json") || ve.Problems[0].Line != 21 || ve.Problems[0].Col != 4 {
		t.Errorf("truncated fixture: %v", err)
	}

	if _, err := d.Load(ctx, "<Secret>"); !errors.Is(err, ErrEncrypted) {
		t.Errorf("XGR1 file: %v", err)
	}
	_, err = d.Load(ctx, "<Nowhere>")
	if !errors.Is(err, ErrNotCovered) || !strings.Contains(err.Error(), "not in "+filepath.Join(dir, "rules.json")+" and no file "+filepath.Join(dir, "Nowhere.json")) {
		t.Errorf("not covered: %v", err)
	}
	if _, err := d.Load(ctx, "<Chain-Addr>"); err == nil || !strings.Contains(err.Error(), "mapped to XRC-137 0x5FbDB2315678afecb367f032d93F642f64180aa3, but no chain backend") {
		t.Errorf("address without a chain: %v", err)
	}
	l2 := &Loader{Files: d}
	if _, err := l2.Load(ctx, "0x5FbDB2315678afecb367f032d93F642f64180aa3"); !errors.Is(err, ErrNotCovered) || !strings.Contains(err.Error(), "no chain backend to read the address from") {
		t.Errorf("address, no chain: %v", err)
	}
}

func TestOpenDirErrors(t *testing.T) {
	file := filepath.Join(writeDir(t, map[string]string{"a.json": okRule}), "a.json")
	cases := map[string]struct {
		path string
		want string
	}{
		"missing":      {filepath.Join(t.TempDir(), "nope"), "no such file"},
		"not a dir":    {file, "is not a directory"},
		"broken index": {writeDir(t, map[string]string{"rules.json": `{"<A>": 5}`}), "expected a JSON object mapping rule references"},
		"missing file": {writeDir(t, map[string]string{"rules.json": `{"<A>": "a.json"}`}), `"<A>" maps to`},
		"empty value":  {writeDir(t, map[string]string{"rules.json": `{"<A>": ""}`}), `"<A>" maps to nothing`},
		"empty ref":    {writeDir(t, map[string]string{"rules.json": `{"": "x.json"}`}), "an empty reference"},
		"dir value":    {writeDir(t, map[string]string{"rules.json": `{"<A>": "sub"}`, "sub/x.json": okRule}), "not a regular file"},
	}
	for name, c := range cases {
		if _, err := OpenDir(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

func TestFileName(t *testing.T) {
	for ref, want := range map[string]string{
		"<Iterationstep-Addr>":                       "Iterationstep-Addr",
		"${addr:PI_STEP}":                            "PI_STEP",
		"0xABCDEF0000000000000000000000000000000001": "0xabcdef0000000000000000000000000000000001",
		"<a/b>":      "",
		"${addr:..}": "",
		"plain":      "",
		"<>":         "",
	} {
		if got := FileName(ref); got != want {
			t.Errorf("FileName(%q) = %q, want %q", ref, got, want)
		}
	}
}
