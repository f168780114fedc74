package indexstore

import (
	"fmt"
	"io"
	"time"
)

// WritePending writes pending trigger starts as a table (BLOCK, TRIGGER,
// ATTEMPTS, KEY, and the last error under its start), or a line saying
// there are none (`xgr index triggers`).
func WritePending(w io.Writer, list []PendingStart) error {
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, "no pending trigger starts")
		return err
	}
	fmt.Fprintf(w, "%-10s %-16s %-8s %-s\n", "BLOCK", "TRIGGER", "ATTEMPTS", "KEY / LAST ERROR")
	for _, p := range list {
		fmt.Fprintf(w, "%-10d %-16s %-8d %s\n", p.Block, p.Trigger, p.Attempts, p.Key)
		if p.LastError != "" {
			fmt.Fprintf(w, "%37s last error at %s: %s\n", "", p.LastAttemptAt.Format(time.RFC3339), p.LastError)
		}
	}
	return nil
}
