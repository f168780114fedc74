// Package luascript loads a package's Redis transition scripts: each
// lua/<name>.lua of the package's embedded files, with the shared prelude
// (clock.lua: the clock and number formatting every transition uses) and
// the package's own library files before it, since Redis scripts cannot
// load one another.
package luascript

import (
	_ "embed"
	"io/fs"
	"strings"

	"github.com/redis/go-redis/v9"
)

//go:embed clock.lua
var clock string

// Set is the transition scripts of one package.
type Set struct {
	owner   string
	files   fs.FS
	prelude string
}

// New returns the scripts of owner (a package name, for panics) in files;
// libs are paths in files prepended after the shared clock.
func New(owner string, files fs.FS, libs ...string) *Set {
	s := &Set{owner: owner, files: files, prelude: clock}
	for _, l := range libs {
		s.prelude += s.read(l)
	}
	return s
}

func (s *Set) read(path string) string {
	src, err := fs.ReadFile(s.files, path)
	if err != nil {
		panic(s.owner + ": missing script " + path)
	}
	return string(src)
}

// Load returns the transition lua/<name>.lua with the prelude before it.
func (s *Set) Load(name string) *redis.Script {
	return redis.NewScript(s.prelude + s.read("lua/"+name+".lua"))
}

// LoadWith is Load with the library files libs (paths in the set's files)
// between the prelude and the transition: a library only some transitions
// use.
func (s *Set) LoadWith(name string, libs ...string) *redis.Script {
	src := s.prelude
	for _, l := range libs {
		src += s.read(l)
	}
	return redis.NewScript(src + s.read("lua/"+name+".lua"))
}

// LoadCompact is Load without the comment-only and blank lines: for a
// script sent whole with EVAL (in a MULTI/EXEC, where a NOSCRIPT of
// EVALSHA would fail one command while the others apply).
func (s *Set) LoadCompact(name string) *redis.Script {
	return redis.NewScript(Compact(s.prelude + s.read("lua/"+name+".lua")))
}

// Compact drops the lines of src that hold only a comment ("--" first),
// or nothing.
func Compact(src string) string {
	var code []string
	for _, l := range strings.Split(src, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "--") {
			code = append(code, l)
		}
	}
	return strings.Join(code, "\n")
}
