package main

import (
	"io"
	"strings"
	"testing"
)

func TestReorderFlags(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	cases := []struct{ in, want string }{
		{"xgr ostc graph f.json --format mermaid -o out", "xgr ostc graph --format mermaid -o out f.json"},
		{"xgr ostc validate a.json --json b.json --strict", "xgr ostc validate --json --strict a.json b.json"},
		{"xgr --log-level debug ostc reach f.json A1 Z1 --json", "xgr --log-level debug ostc reach --json f.json A1 Z1"},
		{"xgr ostc graph f.json --format=dot", "xgr ostc graph --format=dot f.json"},
		{"xgr ostc validate -- -odd.json --json", "xgr ostc validate -- -odd.json --json"},
		{"xgr rule eval r.json --payload - --allow-host h:80", "xgr rule eval --payload - --allow-host h:80 r.json"},
		{"xgr version", "xgr version"},
	}
	for _, c := range cases {
		got := strings.Join(reorderFlags(app, strings.Fields(c.in)), " ")
		if got != c.want {
			t.Errorf("%q:\n got  %q\n want %q", c.in, got, c.want)
		}
	}
}
