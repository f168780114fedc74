package provider

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func engineAt(where string) Probe {
	return func(context.Context) (string, error) { return where, nil }
}

func noEngineAt(where string) Probe {
	return func(context.Context) (string, error) { return where, errors.New("connection refused") }
}

func mustNotProbe(t *testing.T) Probe {
	return func(context.Context) (string, error) {
		t.Error("probed the engine for XGR_TEST_PROVIDER=local")
		return "", errors.New("probed")
	}
}

func TestChoose(t *testing.T) {
	sock := "unix:///var/run/docker.sock"
	cases := []struct {
		setting string
		probe   Probe
		kind    Kind
		reason  string // substring
		err     string // exact, "" for none
	}{
		{"local", mustNotProbe(t), Local, "XGR_TEST_PROVIDER=local", ""},
		{" LOCAL ", mustNotProbe(t), Local, "XGR_TEST_PROVIDER=local", ""},
		{"", engineAt(sock), Docker, "auto: Docker engine at " + sock, ""},
		{"auto", engineAt(sock), Docker, "auto: Docker engine at " + sock, ""},
		{"", noEngineAt(sock), Local, "auto: no Docker engine answers at " + sock + ": connection refused", ""},
		{"auto", noEngineAt(sock), Local, "auto: no Docker engine answers at " + sock, ""},
		{"docker", engineAt(sock), Docker, "XGR_TEST_PROVIDER=docker, engine at " + sock, ""},
		{"docker", noEngineAt("tcp://127.0.0.1:1"), Docker, "",
			"XGR_TEST_PROVIDER=docker: no Docker engine answers at tcp://127.0.0.1:1: connection refused: install Docker or use XGR_TEST_PROVIDER=local|auto"},
		{"podman", mustNotProbe(t), Local, "", `XGR_TEST_PROVIDER="podman": want docker, local or auto (unset means auto)`},
	}
	for _, c := range cases {
		got := Choose(c.setting, c.probe)
		if got.Kind != c.kind || !strings.Contains(got.Reason, c.reason) {
			t.Errorf("Choose(%q) = %s (%s), want %s (%s)", c.setting, got.Kind, got.Reason, c.kind, c.reason)
		}
		if gotErr := ""; got.Err != nil || c.err != "" {
			if got.Err != nil {
				gotErr = got.Err.Error()
			}
			if gotErr != c.err {
				t.Errorf("Choose(%q) error %q, want %q", c.setting, gotErr, c.err)
			}
		}
		if line := got.Line(); strings.Contains(line, "\n") || !strings.HasPrefix(line, "testenv: ") {
			t.Errorf("Choose(%q).Line() = %q, want one line starting with testenv:", c.setting, line)
		}
	}
}

func TestLineSaysWhatRunsWhere(t *testing.T) {
	local := Choose("", noEngineAt("unix:///var/run/docker.sock")).Line()
	if want := "testenv: provider local (auto: no Docker engine answers at unix:///var/run/docker.sock: connection refused): redis-server, redis-cli and anvil from"; !strings.HasPrefix(local, want) {
		t.Errorf("local line %q, want prefix %q", local, want)
	}
	docker := Choose("", engineAt("unix:///var/run/docker.sock")).Line()
	for _, want := range []string{"testenv: provider docker (auto: Docker engine at unix:///var/run/docker.sock)", "cluster and sentinel in " + RedisImage, "anvil in " + FoundryImage} {
		if !strings.Contains(docker, want) {
			t.Errorf("docker line %q lacks %q", docker, want)
		}
	}
}

func TestImagesArePinnedByDigest(t *testing.T) {
	for _, img := range []string{RedisImage, FoundryImage} {
		_, digest, ok := strings.Cut(img, "@sha256:")
		if !ok || len(digest) != 64 || strings.Trim(digest, "0123456789abcdef") != "" {
			t.Errorf("%s is not pinned by a sha256 digest", img)
		}
	}
}
