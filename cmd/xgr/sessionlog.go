package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/session"
)

// sessionLogCommand is `xgr session log`: a step's log bundle, from Redis.
func sessionLogCommand() *cli.Command {
	return &cli.Command{
		Name:      "log",
		Usage:     "show the log bundle a step left: payload, saves, outcome, receipt",
		ArgsUsage: "ROOTPID PID",
		Description: `Reads the log bundle of process PID ("7:3" or the iteration "3") of the
session from Redis, as an operator with access to it (the gateway's
xgr_getStepLog serves owners and grantees). A bundle lives for its branch's
logExpireDays (default 30 days) after the step, also after the session's
records expired. An encrypted bundle (encryptLogs) is shown as its XGR1
envelope and RID. See docs/runtime.md#evidence-and-its-lifetime.

Example:
   xgr session log --owner 0xabc… 7 3 --json`,
		Flags:  append(append(redisFlags(), ownerFlag()), jsonFlag()),
		Action: sessionLogAction,
	}
}

// sessionLog is what `xgr session log --json` prints.
type sessionLog struct {
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

func sessionLogAction(c *cli.Context) error {
	root, rest, err := rootArg(c)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usageError("%s: name the ROOTPID and one PID", cmdName(c))
	}
	its, err := session.ParseIters(root, rest)
	if err != nil {
		return usageError("%s: %v", cmdName(c), err)
	}
	rdb, _, err := openRedis(c)
	if err != nil {
		return err
	}
	defer rdb.Close()
	st, err := evidence.New(rdb, evidence.Config{Grants: grant.New(rdb)})
	if err != nil {
		return err
	}
	out, err := readLog(c.Context, st, root, its[0])
	if errors.Is(err, evidence.ErrNotFound) {
		return cli.Exit(fmt.Sprintf("%s: process %d:%d of %s: %v", cmdName(c), root.RootPid, its[0], root.Owner, err), 1)
	} else if err != nil {
		return cli.Exit(fmt.Sprintf("%s: %v", cmdName(c), err), 1)
	}
	if c.Bool("json") {
		return json.NewEncoder(c.App.Writer).Encode(out)
	}
	_, err = fmt.Fprint(c.App.Writer, logText(out))
	return err
}

func readLog(ctx context.Context, st *evidence.Store, root joinstore.Root, iter int64) (*sessionLog, error) {
	h, err := st.Head(ctx, root.Owner, root.RootPid, iter)
	if err != nil {
		return nil, err
	}
	body, err := st.Body(ctx, root.Owner, root.RootPid, iter)
	if err != nil {
		return nil, err
	}
	ttl, err := st.TTL(ctx, root.Owner, root.RootPid, iter)
	if err != nil {
		return nil, err
	}
	out := &sessionLog{Pid: fmt.Sprintf("%d:%d", root.RootPid, iter), RID: h.RID.String(), Encrypted: h.Encrypted, Bytes: h.Bytes, TTLSeconds: int64(ttl / time.Second),
		Status: h.Status, AbortReason: h.AbortReason}
	if h.Encrypted {
		out.Blob = body
	} else {
		out.Bundle = json.RawMessage(body)
	}
	return out, nil
}

// logText is a bundle for a terminal.
func logText(l *sessionLog) string {
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
	var b evidence.Bundle
	if err := json.Unmarshal(l.Bundle, &b); err != nil {
		return fmt.Sprintf("process %s: %s\n", l.Pid, l.Bundle)
	}
	fmt.Fprintf(&sb, "process %s (step %s) of %s, session %d, executed step #%d, committed %s\n", b.Pid, b.Step, b.Owner, b.SessionID, b.Executed,
		time.UnixMilli(b.Time).UTC().Format(time.RFC3339Nano))
	if b.Rule != "" {
		fmt.Fprintf(&sb, "rule      %s %s\n", b.Rule, b.RuleHash)
	}
	fmt.Fprintf(&sb, "outcome   %s\n", b.Outcome.Result)
	if l.Status == "aborted" && b.Outcome.Result != evidence.Aborted {
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
