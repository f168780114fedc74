package console

import (
	"net/http"

	"github.com/xgr-sidecar/xgr/indexer"
)

// IndexView is the chain index as `xgr index status` shows it, in its
// order.
type IndexView struct {
	Following bool     `json:"following"`
	Keys      []string `json:"keys"`
	// Status maps StatusKeys to values (indexer.Status).
	Status map[string]any `json:"status,omitempty"`
}

func (c *Console) handleIndex(w http.ResponseWriter, r *http.Request) {
	if c.cfg.Index == nil || c.cfg.Chain == nil {
		writeJSON(w, http.StatusOK, IndexView{Keys: indexer.StatusKeys})
		return
	}
	ctx, cancel := reqCtx(r)
	defer cancel()
	st, err := indexer.Status(ctx, c.cfg.Chain, c.cfg.ChainID, c.cfg.Index)
	if err != nil {
		serverError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, IndexView{Following: true, Keys: indexer.StatusKeys, Status: st})
}
