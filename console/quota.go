package console

import (
	"net/http"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// handleQuota answers GET /ui/api/quota?owner=0x…: the owner's usage
// against its quotas (joinstore.OwnerUsage; docs/operating.md "Tenancy"),
// as the store that serves the console enforces them.
func (c *Console) handleQuota(w http.ResponseWriter, r *http.Request) {
	owner := joinstore.NormalizeOwner(r.URL.Query().Get("owner"))
	if err := joinstore.CheckOwner(owner); err != nil {
		badRequest("query owner: %v", err).write(w)
		return
	}
	ctx, cancel := reqCtx(r)
	defer cancel()
	now, err := c.cfg.Store.ServerTime(ctx)
	if err != nil {
		now = time.Now()
	}
	u, err := c.cfg.Store.Usage(ctx, owner, now)
	if err != nil {
		serverError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, u)
}
