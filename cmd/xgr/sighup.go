package main

import (
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

// ignoreHangup keeps SIGHUP from killing xgr (Go's default for it) and
// says that it reloads nothing: an operator who sends it (systemctl
// reload, a closed terminal) expecting a config reload learns that a
// changed config needs a restart, which drains (docs/runbook.md).
func ignoreHangup() {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		for range hup {
			slog.Warn("SIGHUP not supported: xgr reloads nothing and goes on; restart it to apply a changed config or flags (SIGTERM drains first)")
		}
	}()
}
