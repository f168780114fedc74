package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// With --log-format json every time.Duration attribute, nested ones too,
// is a Go duration string, as the attributes logged as strings are; the
// text format writes the same.
func TestJSONLogsWriteDurationsOneWay(t *testing.T) {
	prev := slog.Default()
	t.Cleanup(func() { slog.SetDefault(prev) })
	var buf bytes.Buffer
	if err := setupLogging("info", "json", &buf); err != nil {
		t.Fatal(err)
	}
	slog.Info("step", "took", 1500*time.Millisecond, slog.Group("lease", "ttl", 10*time.Second), "down", (250 * time.Millisecond).String())
	var rec struct {
		Took  any `json:"took"`
		Down  any `json:"down"`
		Lease struct {
			TTL any `json:"ttl"`
		} `json:"lease"`
	}
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil || rec.Took != "1.5s" || rec.Lease.TTL != "10s" || rec.Down != "250ms" {
		t.Errorf("%+v %v\n%s", rec, err, buf.String())
	}
	buf.Reset()
	if err := setupLogging("info", "text", &buf); err != nil {
		t.Fatal(err)
	}
	slog.Info("step", "took", 1500*time.Millisecond)
	if !strings.Contains(buf.String(), "took=1.5s") {
		t.Errorf("text: %s", buf.String())
	}
}

// A command's exit error is a JSON log line (ERROR, with exitCode) when
// JSON logs are asked for, by flag anywhere on the command line or by
// $XGR_LOG_FORMAT, also when the flags themselves are wrong; else the
// plain "xgr: message".
func TestExitErrorsFollowTheLogFormat(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "XGR_LOG_FORMAT" {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct {
		args []string
		env  string
		want bool
	}{
		{[]string{"--log-format", "json", "version"}, "", true},
		{[]string{"session", "kill", "1", "--log-format=json"}, "", true},
		{[]string{"version"}, "json", true},
		{[]string{"version", "--log-format", "text"}, "json", false},
		{[]string{"version"}, "", false},
		{[]string{"rule", "eval", "--", "--log-format=json"}, "", false},
	} {
		if got := jsonLogs(c.args, env(c.env)); got != c.want {
			t.Errorf("jsonLogs(%v, XGR_LOG_FORMAT=%q) = %v", c.args, c.env, got)
		}
	}

	for _, args := range [][]string{
		{"--log-format", "json", "--bogus"},                 // a global flag error: before logging is set up
		{"session", "kill", "--bogus", "--log-format=json"}, // a command's flag error
		{"--log-format", "json", "session", "kill", "x", "--owner", testOwner, "--redis", "redis://127.0.0.1:1"},
	} {
		var out, errOut bytes.Buffer
		err := runApp(t.Context(), newApp(&out, &errOut), append([]string{"xgr"}, args...))
		if err == nil {
			t.Fatalf("%v: no error", args)
		}
		errOut.Reset()
		code := reportExit(err, jsonLogs(args, env("")), &errOut)
		var rec map[string]any
		if code != 2 || json.Unmarshal(errOut.Bytes(), &rec) != nil || rec["level"] != "ERROR" || rec["exitCode"] != float64(2) ||
			rec["msg"] == "" || rec["msg"] == nil || strings.Count(errOut.String(), "\n") != 1 {
			t.Errorf("%v: exit %d\n%s", args, code, errOut.String())
		}
	}
	var errOut bytes.Buffer
	if code := reportExit(cli.Exit("run: --poll 0s: want a positive duration", 2), false, &errOut); code != 2 || errOut.String() != "xgr: run: --poll 0s: want a positive duration\n" {
		t.Errorf("text: exit %d %q", code, errOut.String())
	}
}
