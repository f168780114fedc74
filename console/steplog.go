package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/joinstore"
)

// MaxReaders is how many readers (grants) of one bundle the step view
// lists; More says there are others.
const MaxReaders = 20

// maxPidParam bounds the pid query ("<rootPid>:<iter>", two int64s).
const maxPidParam = 41

// StepLogView is a step's log bundle as the page shows it: what `xgr
// session log` reads, read the same way (evidence.Store's Head, TTL and,
// for a plaintext bundle only, Body). An encrypted bundle is never read
// beyond its head: the console holds no read key, and neither its body
// (the XGR1 envelope) nor anything of its plaintext is sent.
type StepLogView struct {
	Pid       string `json:"pid"`
	RID       string `json:"rid"`
	Encrypted bool   `json:"encrypted"`
	// Bytes is the stored body's size; ExpiresAt when the bundle expires
	// (unix ms; 0: no expiry known).
	Bytes     int   `json:"bytes"`
	ExpiresAt int64 `json:"expiresAt,omitempty"`
	// Bundle is the plaintext bundle (nil when encrypted).
	Bundle *BundleView `json:"bundle,omitempty"`
	// Readers are the live grants on the bundle's RID in scope 2 (the
	// owner's first is not promised: by expiry), at most MaxReaders;
	// ReadersMore says there are more, ReadersError why none could be
	// read.
	Readers      []ReaderView `json:"readers"`
	ReadersMore  bool         `json:"readersMore,omitempty"`
	ReadersError string       `json:"readersError,omitempty"`
	// Now is the server's time (unix ms).
	Now int64 `json:"now"`
}

// BundleView is a plaintext bundle: its JSON sections as their stored
// text (every digit), block and gas as decimal text.
type BundleView struct {
	Step      string   `json:"step"`
	Rule      string   `json:"rule,omitempty"`
	RuleHash  string   `json:"ruleHash,omitempty"`
	Executed  int64    `json:"executed"`
	Time      int64    `json:"time"`
	Result    string   `json:"result"`
	Reasons   []string `json:"reasons"`
	Truncated []string `json:"truncated,omitempty"`
	// Receipt is the execution's transaction (nil: the step executed none).
	Receipt       *ReceiptView `json:"receipt,omitempty"`
	Payload       string       `json:"payload"`
	Output        string       `json:"output,omitempty"`
	APISaves      string       `json:"apiSaves,omitempty"`
	ContractSaves string       `json:"contractSaves,omitempty"`
}

// ReceiptView is an execution's transaction.
type ReceiptView struct {
	TxHash  string `json:"txHash"`
	Block   string `json:"block"`
	GasUsed string `json:"gasUsed"`
	Status  string `json:"status"`
}

// ReaderView is a grant on the bundle: who, with which rights, until when.
type ReaderView struct {
	Address  string `json:"address"`
	Owner    bool   `json:"owner"`
	Rights   string `json:"rights"`
	ExpireAt int64  `json:"expireAt"`
}

// pidParam reads the query's pid of session root: "<rootPid>:<iter>" or
// the iteration alone.
func pidParam(r *http.Request, root joinstore.Root) (int64, *problem) {
	s := r.URL.Query().Get("pid")
	if len(s) > maxPidParam {
		return 0, badRequest("query pid: %d bytes, at most %d", len(s), maxPidParam)
	}
	pid := s
	if !strings.Contains(pid, ":") {
		pid = strconv.FormatInt(root.RootPid, 10) + ":" + pid
	}
	rp, iter, err := joinstore.ParsePid(pid)
	// Only the canonical form: decimal digits, no sign or leading zero.
	if err != nil || rp != root.RootPid || pid != strconv.FormatInt(rp, 10)+":"+strconv.FormatInt(iter, 10) {
		return 0, badRequest("query pid %q: want <rootPid>:<iter> of session %d, or the iteration", s, root.RootPid)
	}
	return iter, nil
}

// handleStepLog answers a process's log bundle (GET steplog?owner&root&pid).
// The console reads it as an operator with access to Redis, as `xgr session
// log` does (the console's access rule is the listener's: loopback, or an
// authenticating proxy with --ui-public; docs/console.md); it opens no
// encrypted bundle.
func (c *Console) handleStepLog(ctx context.Context, w http.ResponseWriter, r *http.Request, root joinstore.Root) {
	iter, p := pidParam(r, root)
	if p != nil {
		p.write(w)
		return
	}
	if c.cfg.Bundles == nil {
		writeJSON(w, http.StatusNotFound, problem{Error: "this replica reads no log bundles"})
		return
	}
	pid := fmt.Sprintf("%d:%d", root.RootPid, iter)
	none := func() {
		writeJSON(w, http.StatusNotFound, problem{Error: fmt.Sprintf("no log bundle for process %s (never written: the step has not committed or the replica stores no bundles; or expired)", pid)})
	}
	h, err := c.cfg.Bundles.Head(ctx, root.Owner, root.RootPid, iter)
	if errors.Is(err, evidence.ErrNotFound) {
		none()
		return
	} else if err != nil {
		serverError(w, err)
		return
	}
	now := c.cfg.Now()
	out := StepLogView{Pid: pid, RID: h.RID.String(), Encrypted: h.Encrypted, Bytes: h.Bytes, Readers: []ReaderView{}, Now: now.UnixMilli()}
	if ttl, err := c.cfg.Bundles.TTL(ctx, root.Owner, root.RootPid, iter); err == nil && ttl > 0 {
		out.ExpiresAt = now.Add(ttl).UnixMilli()
	}
	if !h.Encrypted {
		if h.Bytes > evidence.HardMaxBytes {
			writeJSON(w, http.StatusInternalServerError, problem{Error: fmt.Sprintf("the log bundle of process %s is %d bytes, over the %d a bundle may have", pid, h.Bytes, evidence.HardMaxBytes)})
			return
		}
		body, err := c.cfg.Bundles.Body(ctx, root.Owner, root.RootPid, iter)
		if errors.Is(err, evidence.ErrNotFound) { // expired since its head was read
			none()
			return
		} else if err != nil {
			serverError(w, err)
			return
		}
		if out.Bundle, err = bundleView([]byte(body), root, iter); err != nil {
			writeJSON(w, http.StatusInternalServerError, problem{Error: fmt.Sprintf("the log bundle of process %s: %v", pid, err)})
			return
		}
	}
	out.Readers, out.ReadersMore, out.ReadersError = c.readers(ctx, root.Owner, h.RID)
	writeJSON(w, http.StatusOK, out)
}

// bundleView decodes a plaintext bundle of process iter of root. Its
// errors never quote the body.
func bundleView(body []byte, root joinstore.Root, iter int64) (*BundleView, error) {
	var b evidence.Bundle
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, errors.New("not a bundle's JSON")
	}
	if b.Owner != root.Owner || b.SessionID != root.RootPid || b.Iter != iter {
		return nil, errors.New("it names another process")
	}
	v := &BundleView{Step: b.Step, Rule: b.Rule, RuleHash: b.RuleHash, Executed: b.Executed, Time: b.Time, Result: b.Outcome.Result,
		Reasons: b.Outcome.Reasons, Truncated: b.Truncated, Payload: string(b.Payload), Output: string(b.Outcome.Output),
		APISaves: string(b.APISaves), ContractSaves: string(b.ContractSaves)}
	if v.Reasons == nil {
		v.Reasons = []string{}
	}
	if r := b.Receipt; r != nil {
		v.Receipt = &ReceiptView{TxHash: r.TxHash, Block: strconv.FormatUint(r.Block, 10), GasUsed: strconv.FormatUint(r.GasUsed, 10), Status: r.Status}
	}
	return v, nil
}

// readers lists the live grants on rid in scope 2 as the owner sees them
// (grant.Store.List, the listing xgr_listGrants serves the owner): the
// grantee, its rights and expiry, never its wrapped key.
func (c *Console) readers(ctx context.Context, owner string, rid grant.RID) ([]ReaderView, bool, string) {
	out := []ReaderView{}
	if c.cfg.Grants == nil {
		return out, false, "this replica reads no grants"
	}
	page, err := c.cfg.Grants.List(ctx, owner, grant.Filter{RID: &rid, Scope: grant.ScopeLog, Limit: MaxReaders}, c.cfg.Now())
	if err != nil {
		return out, false, "the grants could not be read"
	}
	for _, g := range page.Items {
		out = append(out, ReaderView{Address: g.Grantee, Owner: g.IsOwner, Rights: rightsText(g.Rights, g.IsOwner), ExpireAt: g.ExpireAt.UnixMilli()})
	}
	return out, page.NextCursor != 0, ""
}

// rightsText names a grant's rights: "owner", or read, write, manage.
func rightsText(r uint8, owner bool) string {
	if owner {
		return "owner"
	}
	var s []string
	for _, x := range []struct {
		bit  uint8
		name string
	}{{grant.Read, "read"}, {grant.RightWrite, "write"}, {grant.Manage, "manage"}} {
		if r&x.bit != 0 {
			s = append(s, x.name)
		}
	}
	return strings.Join(s, ", ")
}
