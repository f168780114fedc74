package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// problem is an API error: what was wrong, where, and what is allowed.
type problem struct {
	Status int    `json:"-"`
	Error  string `json:"error"`
}

func (p *problem) write(w http.ResponseWriter) {
	writeJSON(w, p.Status, p)
}

func badRequest(format string, args ...any) *problem {
	return &problem{Status: http.StatusBadRequest, Error: fmt.Sprintf(format, args...)}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// serverError answers 500 (or 404 for a missing session) with the error.
func serverError(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	if errors.Is(err, joinstore.ErrNotFound) || errors.Is(err, joinstore.ErrNoSession) {
		status = http.StatusNotFound
	}
	writeJSON(w, status, problem{Error: err.Error()})
}

// rootParam reads the session named by the query's owner and root.
func rootParam(r *http.Request) (joinstore.Root, *problem) {
	q := r.URL.Query()
	owner := joinstore.NormalizeOwner(q.Get("owner"))
	if err := joinstore.CheckOwner(owner); err != nil {
		return joinstore.Root{}, badRequest("query owner: %v", err)
	}
	n, err := strconv.ParseInt(q.Get("root"), 10, 64)
	if err != nil || n <= 0 {
		return joinstore.Root{}, badRequest("query root %q: want a root pid (a positive decimal number)", q.Get("root"))
	}
	return joinstore.Root{Owner: owner, RootPid: n}, nil
}
