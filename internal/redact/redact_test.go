package redact

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"redis://:s3cret@10.0.0.5:6379/0":           "redis://xxxxx@10.0.0.5:6379/0",
		"rediss://user:s3cret@redis.internal:6380":  "rediss://xxxxx@redis.internal:6380",
		"https://mainnet.example.io/v3/APIKEY12345": "https://mainnet.example.io/…",
		"wss://node.example/ws?apikey=APIKEY12345":  "wss://node.example/ws?…",
		"https://node.example/#APIKEY12345":         "https://node.example?…",
		"http://127.0.0.1:8545":                     "http://127.0.0.1:8545",
		"http://127.0.0.1:8545/":                    "http://127.0.0.1:8545",
		"http://[::1]:8545/rpc":                     "http://[::1]:8545/rpc",
		"http://[::1]:8545/rpc/v1/x":                "http://[::1]:8545/…",
		"redis://:p w%zz@host:6379":                 "redis://…",
		":s3cret@10.0.0.5:6379":                     "xxxxx@10.0.0.5:6379",
		"/var/run/geth.ipc":                         "/var/run/geth.ipc",
		"10.0.0.5:6379":                             "10.0.0.5:6379",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestText(t *testing.T) {
	for _, tc := range []struct{ url, msg string }{
		{"redis://:s3cret@10.0.0.5:6379/0", `--redis "redis://:s3cret@10.0.0.5:6379/0": bad`},
		{"redis://:p w%zz-s3cret@host:6379", `parse "redis://:p w%zz-s3cret@host:6379": invalid URL escape "%zz"`},
		{"https://u:s3cret@node.example/v3/APIKEY12345?x=APIKEY67890", `Post "https://u:***@node.example/v3/APIKEY12345?x=APIKEY67890": dial tcp: no such host`},
		{"https://node.example/v3/APIKEY12345", `connect to node https://node.example/v3/APIKEY12345: 401 Unauthorized`},
	} {
		got := Error(errors.New(tc.msg), tc.url).Error()
		for _, secret := range []string{"s3cret", "APIKEY"} {
			if strings.Contains(got, secret) {
				t.Errorf("%q: %q still holds %s", tc.msg, got, secret)
			}
		}
		if !strings.Contains(got, "node.example") && !strings.Contains(got, "10.0.0.5") && !strings.Contains(got, "redis://…") {
			t.Errorf("%q: %q lost the host", tc.msg, got)
		}
	}
	if Error(nil, "x") != nil || Text("plain", "") != "plain" {
		t.Error("nil error or empty address")
	}
}

// Registered addresses are removed from every log line: message, string
// and error attributes, groups and attributes added with With.
func TestHandler(t *testing.T) {
	const node = "https://node.example/v3/APIKEY1234567890"
	Register(node, "redis://:hunter22@10.0.0.5:6379/0", "http://127.0.0.1:8545")
	var b strings.Builder
	log := slog.New(Handler(slog.NewJSONHandler(&b, nil))).With("rpc", node)
	log.Info("connect to "+node, "err", errors.New(`Post "https://node.example/v3/APIKEY1234567890": 401`),
		slog.Group("redis", "url", "redis://:hunter22@10.0.0.5:6379/0"), "n", 7)
	out := b.String()
	for _, secret := range []string{"APIKEY", "hunter22"} {
		if strings.Contains(out, secret) {
			t.Errorf("the log line holds %s: %s", secret, out)
		}
	}
	if !strings.Contains(out, `"rpc":"https://node.example/…"`) || !strings.Contains(out, `"n":7`) || !strings.Contains(out, "10.0.0.5:6379") {
		t.Errorf("the log line lost what is not secret: %s", out)
	}
	if All("http://127.0.0.1:8545/rpc") != "http://127.0.0.1:8545/rpc" {
		t.Error("an address without a secret was registered")
	}
}

// A password that begins with the host's name is not mistaken for the
// host (the path was found by searching the text for the host).
func TestURLPasswordSpellingTheHost(t *testing.T) {
	for _, in := range []string{"redis://:hostXY@host", "redis://:hostXY@host/0", "redis://u:host%40@host:6379/1?x=1"} {
		out := URL(in)
		if strings.Contains(out, "XY") || strings.Contains(out, "%40") {
			t.Errorf("URL(%q) = %q shows the password", in, out)
		}
	}
}
