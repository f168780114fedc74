//go:build image

package build

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// imageTarball is what `make image` writes; `make image-check` builds it
// and runs this test (tag image), which fails when it is missing.
const imageTarball = "../../bin/xgr-image.tar"

// entries reads a tar stream into name -> content (files under limit
// bytes; larger ones by size only).
func entries(t *testing.T, r io.Reader, limit int64) (map[string][]byte, map[string]*tar.Header) {
	t.Helper()
	files, heads := map[string][]byte{}, map[string]*tar.Header{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, heads
		}
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(strings.TrimPrefix(h.Name, "/"), "/")
		heads[name] = h
		if h.Size <= limit {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			files[name] = b
		}
	}
}

// The image: one docker-loadable manifest tagged localhost/xgr:latest, a
// linux/amd64 config that runs /ko-app/xgr as the nonroot user with the CA
// bundle, exposes 9464/tcp and carries the OCI labels, layers holding the base (CA bundle, passwd) and the binary, and a
// binary whose `xgr version` shows the stamped version and its revision.
func TestImageTarball(t *testing.T) {
	f, err := os.Open(imageTarball)
	if err != nil {
		t.Fatalf("%v: run make image-check (it builds the image first)", err)
	}
	defer f.Close()
	outer, _ := entries(t, f, 1<<20)
	var manifest []struct {
		Config   string
		RepoTags []string
		Layers   []string
	}
	if err := json.Unmarshal(outer["manifest.json"], &manifest); err != nil || len(manifest) != 1 {
		t.Fatalf("manifest.json: %v %s", err, outer["manifest.json"])
	}
	m := manifest[0]
	if len(m.RepoTags) != 1 || m.RepoTags[0] != "localhost/xgr:latest" {
		t.Errorf("tags %v", m.RepoTags)
	}
	var cfg struct {
		Architecture, OS string
		Config           struct {
			Entrypoint   []string
			Env          []string
			User         string
			ExposedPorts map[string]struct{}
			Labels       map[string]string
		}
		RootFS struct {
			DiffIDs []string `json:"diff_ids"`
		}
	}
	if err := json.Unmarshal(outer[m.Config], &cfg); err != nil {
		t.Fatalf("config %s: %v", m.Config, err)
	}
	if cfg.Architecture != "amd64" || cfg.OS != "linux" || strings.Join(cfg.Config.Entrypoint, " ") != "/ko-app/xgr" || cfg.Config.User != "65532" {
		t.Errorf("config: %+v", cfg)
	}
	if _, ok := cfg.Config.ExposedPorts["9464/tcp"]; !ok || len(cfg.Config.ExposedPorts) != 1 {
		t.Errorf("exposed ports %v: want 9464/tcp (--listen)", cfg.Config.ExposedPorts)
	}
	head, _ := exec.Command("git", "rev-parse", "HEAD").Output()
	for k, want := range map[string]string{"title": "xgr", "source": "https://github.com/xgr-sidecar/xgr", "licenses": "Apache-2.0",
		"revision": strings.TrimSpace(string(head))} {
		if got := cfg.Config.Labels["org.opencontainers.image."+k]; got != want {
			t.Errorf("label org.opencontainers.image.%s %q, want %q", k, got, want)
		}
	}
	for _, k := range []string{"version", "created", "description"} {
		if cfg.Config.Labels["org.opencontainers.image."+k] == "" {
			t.Errorf("no label org.opencontainers.image.%s in %v", k, cfg.Config.Labels)
		}
	}
	if !strings.Contains(strings.Join(cfg.Config.Env, " "), "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt") {
		t.Errorf("env %v lacks SSL_CERT_FILE", cfg.Config.Env)
	}
	if len(m.Layers) != len(cfg.RootFS.DiffIDs) {
		t.Errorf("%d layers, %d diff ids", len(m.Layers), len(cfg.RootFS.DiffIDs))
	}
	// Re-read the tarball for the layers (the binary is large).
	var binary []byte
	seen := map[string]bool{}
	for _, layer := range m.Layers {
		f.Seek(0, io.SeekStart)
		tr := tar.NewReader(f)
		for {
			h, err := tr.Next()
			if err != nil {
				t.Fatalf("layer %s not in the tarball: %v", layer, err)
			}
			if h.Name != layer {
				continue
			}
			gz, err := gzip.NewReader(tr)
			if err != nil {
				t.Fatal(err)
			}
			files, heads := entries(t, gz, 1<<27)
			for name, h := range heads {
				seen[name] = true
				if name == "ko-app/xgr" {
					binary = files[name]
					if h.Mode&0o111 == 0 {
						t.Errorf("/ko-app/xgr mode %o", h.Mode)
					}
				}
			}
			if p, ok := files["etc/passwd"]; ok && !strings.Contains(string(p), ":65532:65532:") {
				t.Errorf("/etc/passwd lacks the nonroot user:\n%s", p)
			}
			break
		}
	}
	for _, want := range []string{"etc/ssl/certs/ca-certificates.crt", "etc/passwd", "ko-app/xgr", "tmp"} {
		if !seen[want] {
			t.Errorf("no /%s in the image", want)
		}
	}
	if binary == nil {
		t.Fatal("no binary")
	}
	bin := filepath.Join(t.TempDir(), "xgr")
	if err := os.WriteFile(bin, binary, 0o755); err != nil {
		t.Fatal(err)
	}
	// The compose healthcheck's command is in the image's binary: with
	// nothing listening it fails with the reason (exit 1), not as unknown.
	hc := exec.Command(bin, "health", "--listen", "127.0.0.1:1", "--timeout", "1s")
	if out, err := hc.CombinedOutput(); hc.ProcessState == nil || hc.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "health: http://127.0.0.1:1/healthz: ") {
		t.Errorf("xgr health in the image: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatalf("xgr version: %v", err)
	}
	var info Info
	if err := json.Unmarshal(out, &info); err != nil {
		t.Fatalf("xgr version --json: %v: %s", err, out)
	}
	want, _ := exec.Command("git", "describe", "--tags", "--always", "--dirty").Output()
	if info.Version == "dev" || info.Version == "" || !strings.HasPrefix(strings.TrimSpace(string(want)), strings.TrimSuffix(info.Version, "-dirty")) {
		t.Errorf("image version %q; the build stamps git describe (now %q)", info.Version, strings.TrimSpace(string(want)))
	}
	if len(info.Revision) != 40 {
		t.Errorf("image revision %q: want the commit", info.Revision)
	}
}
