package httpserve

import (
	"strings"
	"testing"
)

func TestCheckListen(t *testing.T) {
	for v, want := range map[string]string{
		"127.0.0.1:9464": "",
		":0":             "",
		"9464":           "want host:port",
		":65536":         "not a port number",
		"[::1]:x":        "not a port number",
	} {
		err := CheckListen("listen", v)
		if (want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", v, err, want)
		}
	}
}
