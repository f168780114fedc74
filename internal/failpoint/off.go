//go:build !xgrfailpoint

package failpoint

// Hit marks the point name; without the xgrfailpoint tag it does nothing.
func Hit(name string) {}

// Enabled reports whether failpoints are compiled in.
const Enabled = false
