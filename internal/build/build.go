// Package build says which build of xgr is running: the version stamped at
// link time and the source revision Go records from version control.
package build

import (
	"runtime"
	"runtime/debug"
)

// Version is set at link time by `make build`:
// -ldflags "-X github.com/xgr-sidecar/xgr/internal/build.Version=v1.2.3"
// (git describe --tags --always --dirty). "dev" when not stamped.
var Version = "dev"

// Revision is the source commit, set at link time where the toolchain
// records none (ko builds with -trimpath and without VCS stamping):
// -ldflags "-X github.com/xgr-sidecar/xgr/internal/build.Revision=<commit>".
var Revision = ""

// Info is a build's identity.
type Info struct {
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

// Read returns this binary's Info: Version, and the vcs.revision and
// vcs.modified settings the Go toolchain embeds (absent from `go run` and
// test binaries), else Revision.
func Read() Info {
	b := Info{Version: Version, Revision: Revision, Go: runtime.Version()}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Revision = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	return b
}
