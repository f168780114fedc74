package rpc

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteText writes one line per listed process: pid, step, status and the
// orchestration (`xgr rpc list`).
func (r *ListResult) WriteText(w io.Writer) error {
	for _, s := range r.Sessions {
		if _, err := fmt.Fprintf(w, "%-8s %-12s %-8s %s\n", s.Pid, s.Step, s.Status, strings.TrimSpace(s.OstcID)); err != nil {
			return err
		}
	}
	return nil
}

// WriteText writes the grants as a table (ID, RID, SCOPE, GRANTEE, RIGHTS
// with "own" for an owner's entry, EXPIRES, SESSION) and, when there are
// more, the cursor of the next page (`xgr grants list`).
func (r *ListGrantsResult) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%-6s %-66s %-5s %-42s %-6s %-20s %s\n", "ID", "RID", "SCOPE", "GRANTEE", "RIGHTS", "EXPIRES", "SESSION")
	for _, it := range r.Items {
		rights := fmt.Sprint(it.Rights)
		if it.IsOwner {
			rights += " own"
		}
		fmt.Fprintf(w, "%-6d %-66s %-5d %-42s %-6s %-20s %s\n", it.ID, it.RID, it.Scope, it.Grantee, rights,
			time.Unix(it.ExpiresAt, 0).UTC().Format(time.RFC3339), it.SessionID)
	}
	if r.NextCursor != 0 {
		_, err := fmt.Fprintf(w, "more: --cursor %d\n", r.NextCursor)
		return err
	}
	return nil
}
