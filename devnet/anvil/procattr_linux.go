package anvil

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill anvil when the process that started
// it dies, so a crashed or killed xgr leaves no chain behind.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
