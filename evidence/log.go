package evidence

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Log is a step's log bundle as an operator reads it (`xgr session log
// --json`): its head, its time to live and the bundle, or the XGR1 blob
// of an encrypted one.
type Log struct {
	Pid        string `json:"pid"`
	RID        string `json:"rid"`
	Encrypted  bool   `json:"encrypted"`
	Bytes      int    `json:"bytes"`
	TTLSeconds int64  `json:"ttlSeconds"`
	// Status and AbortReason are the commit's (the process's status:
	// done or aborted).
	Status      string          `json:"status,omitempty"`
	AbortReason string          `json:"abortReason,omitempty"`
	Bundle      json.RawMessage `json:"bundle,omitempty"`
	Blob        string          `json:"blob,omitempty"`
}

// Log reads the log bundle of process rootPid:iter of owner with its head
// and its time to live.
func (s *Store) Log(ctx context.Context, owner string, rootPid, iter int64) (*Log, error) {
	h, err := s.Head(ctx, owner, rootPid, iter)
	if err != nil {
		return nil, err
	}
	body, err := s.Body(ctx, owner, rootPid, iter)
	if err != nil {
		return nil, err
	}
	ttl, err := s.TTL(ctx, owner, rootPid, iter)
	if err != nil {
		return nil, err
	}
	out := &Log{Pid: fmt.Sprintf("%d:%d", rootPid, iter), RID: h.RID.String(), Encrypted: h.Encrypted, Bytes: h.Bytes, TTLSeconds: int64(ttl / time.Second),
		Status: h.Status, AbortReason: h.AbortReason}
	if h.Encrypted {
		out.Blob = body
	} else {
		out.Bundle = json.RawMessage(body)
	}
	return out, nil
}

// Text is the log as `xgr session log` prints it.
func (l *Log) Text() string {
	var sb strings.Builder
	ttl := time.Duration(l.TTLSeconds) * time.Second
	if l.Encrypted {
		fmt.Fprintf(&sb, "process %s: encrypted log bundle (encryptLogs), %d bytes, rid %s, expires in %s\n", l.Pid, l.Bytes, l.RID, ttl)
		if l.Status == "aborted" {
			fmt.Fprintf(&sb, "committed aborted (%s)\n", l.AbortReason)
		}
		fmt.Fprintf(&sb, "%s\n", l.Blob)
		return sb.String()
	}
	var b Bundle
	if err := json.Unmarshal(l.Bundle, &b); err != nil {
		return fmt.Sprintf("process %s: %s\n", l.Pid, l.Bundle)
	}
	fmt.Fprintf(&sb, "process %s (step %s) of %s, session %d, executed step #%d, committed %s\n", b.Pid, b.Step, b.Owner, b.SessionID, b.Executed,
		time.UnixMilli(b.Time).UTC().Format(time.RFC3339Nano))
	if b.Rule != "" {
		fmt.Fprintf(&sb, "rule      %s %s\n", b.Rule, b.RuleHash)
	}
	fmt.Fprintf(&sb, "outcome   %s\n", b.Outcome.Result)
	if l.Status == "aborted" && b.Outcome.Result != Aborted {
		fmt.Fprintf(&sb, "committed aborted (%s): the outcome above is what the rule decided\n", l.AbortReason)
	}
	for _, r := range b.Outcome.Reasons {
		fmt.Fprintf(&sb, "  reason  %s\n", r)
	}
	for _, s := range []struct {
		name string
		raw  json.RawMessage
	}{{"payload", b.Payload}, {"apiSaves", b.APISaves}, {"contract", b.ContractSaves}, {"output", b.Outcome.Output}} {
		if len(s.raw) > 0 {
			fmt.Fprintf(&sb, "%-9s %s\n", s.name, s.raw)
		}
	}
	if r := b.Receipt; r != nil {
		fmt.Fprintf(&sb, "receipt   tx %s block %d gas %d %s\n", r.TxHash, r.Block, r.GasUsed, r.Status)
	}
	if len(b.Truncated) > 0 {
		fmt.Fprintf(&sb, "truncated %s (over the size cap; markers hold their size and sha256)\n", strings.Join(b.Truncated, ", "))
	}
	fmt.Fprintf(&sb, "bundle    %d bytes, rid %s, expires in %s\n", l.Bytes, l.RID, ttl)
	return sb.String()
}
