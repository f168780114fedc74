//go:build !linux

package anvil

import "os/exec"

// dieWithParent: only Linux can tie a child's life to its parent; elsewhere
// Stop (and the signal handling of the command) must clean up.
func dieWithParent(*exec.Cmd) {}
