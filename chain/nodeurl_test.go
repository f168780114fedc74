package chain

import (
	"strings"
	"testing"
)

// Node addresses: URLs of the four schemes with a host and a port, IPC
// paths only where allowed; a refusal never shows an API key in the URL.
func TestCheckNodeURL(t *testing.T) {
	for v, want := range map[string]string{
		"http://127.0.0.1:8545":          "",
		"wss://node.example/v3/k":        "",
		"/tmp/geth.ipc":                  "",
		"ftp://node.example":             `scheme "ftp"`,
		"http://":                        "no host",
		"http://127.0.0.1:70000":         "not a port number",
		"127.0.0.1:8545":                 "want an http(s)",
		"https://user:sekret@node.x:1/k": "",
	} {
		err := CheckNodeURL("rpc", v, true)
		if (want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", v, err, want)
		}
	}
	if err := CheckNodeURL("endpoint", "/tmp/geth.ipc", false); err == nil {
		t.Error("an IPC path where only URLs go")
	}
	err := CheckNodeURL("rpc", "ftp://user:sekret@node.x", true)
	if err == nil || strings.Contains(err.Error(), "sekret") {
		t.Errorf("secret shown: %v", err)
	}
	if n, u, err := ParseBackend("main=http://127.0.0.1:8545"); err != nil || n != "main" || u != "http://127.0.0.1:8545" {
		t.Errorf("backend: %s %s %v", n, u, err)
	}
	for _, spec := range []string{"main", "=http://x", "main=", "main=ftp://x"} {
		if _, _, err := ParseBackend(spec); err == nil || !strings.Contains(err.Error(), "--rpc-backend") {
			t.Errorf("%q: %v", spec, err)
		}
	}
}
