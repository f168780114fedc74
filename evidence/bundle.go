package evidence

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common"
)

// Version is the bundle format's version (member "v").
const Version = 1

// Result of a step.
const (
	Valid   = "valid"
	Invalid = "invalid"
	Aborted = "aborted"
)

// Bounds on a bundle's small members (its large ones, the JSON sections,
// are bounded by Config.MaxBytes as a whole).
const (
	MaxStep       = 256
	MaxReasons    = 32
	MaxReasonSize = 1024
)

// Bundle is the log bundle of one executed step. Field names of its JSON
// are stable (format Version).
type Bundle struct {
	V int `json:"v"`
	// Owner is the session owner (lower-case address), SessionID the root
	// session id, Pid "<sessionId>:<iter>".
	Owner     string `json:"owner"`
	SessionID int64  `json:"sessionId"`
	Pid       string `json:"pid"`
	Iter      int64  `json:"iter"`
	// Step is the OSTC step the process ran.
	Step string `json:"step"`
	// Rule is the rule contract (address) or the rule's reference; RuleHash
	// keccak256 of the rule text that ran (the contract's ruleHash, or the
	// rule file's bytes'), when a rule was loaded.
	Rule     string `json:"rule,omitempty"`
	RuleHash string `json:"ruleHash,omitempty"`
	// Executed is the session's count of executed steps, this one included.
	Executed int64 `json:"executed"`
	// Payload is the step's input payload (a JSON object, numbers exact).
	Payload json.RawMessage `json:"payload"`
	// APISaves and ContractSaves are the values the rule's API calls and
	// contract reads saved (JSON objects by alias or key; omitted when none).
	APISaves      json.RawMessage `json:"apiSaves,omitempty"`
	ContractSaves json.RawMessage `json:"contractSaves,omitempty"`
	Outcome       Outcome         `json:"outcome"`
	// Receipt is the execution's transaction, when the branch had one.
	Receipt *Receipt `json:"receipt,omitempty"`
	// ValidationGas is the step's validation gas (heuristic v0.2), Gas
	// that plus its transactions' gas used: what the step counted
	// against its session's gas budget (omitted when 0).
	ValidationGas uint64 `json:"validationGas,omitempty"`
	Gas           uint64 `json:"gas,omitempty"`
	// Time is when the step was committed (unix ms).
	Time int64 `json:"time"`
	// Truncated names the sections replaced by a marker because the bundle
	// exceeded the size cap (see Marker).
	Truncated []string `json:"truncated,omitempty"`
}

// Outcome is what the step decided.
type Outcome struct {
	// Result is valid, invalid or aborted.
	Result string `json:"result"`
	// Reasons say why it is invalid or aborted.
	Reasons []string `json:"reasons,omitempty"`
	// Output is the selected branch's output payload.
	Output json.RawMessage `json:"output,omitempty"`
}

// Receipt is an execution's final transaction.
type Receipt struct {
	TxHash  string `json:"txHash"`
	Block   uint64 `json:"block"`
	GasUsed uint64 `json:"gasUsed"`
	// Status is "success" or "reverted".
	Status string `json:"status"`
}

// Marker replaces a section of a bundle that would not fit the size cap:
// its size and SHA-256 stay as evidence of what was there.
type Marker struct {
	Truncated bool   `json:"_truncated"`
	Bytes     int    `json:"bytes"`
	SHA256    string `json:"sha256"`
}

// Check validates a bundle before it is stored; the error names the field
// and what is allowed.
func (b *Bundle) Check() error {
	switch {
	case !common.IsHexAddress(b.Owner) || b.Owner != strings.ToLower(b.Owner) || !strings.HasPrefix(b.Owner, "0x"):
		return fmt.Errorf("owner: want a lower-case address (0x and 40 hex digits), got %q", clip(b.Owner))
	case b.SessionID <= 0:
		return fmt.Errorf("sessionId: want a positive root session id, got %d", b.SessionID)
	case b.Iter <= 0:
		return fmt.Errorf("iter: want a positive iteration, got %d", b.Iter)
	case b.Pid != strconv.FormatInt(b.SessionID, 10)+":"+strconv.FormatInt(b.Iter, 10):
		return fmt.Errorf("pid: want %d:%d, got %q", b.SessionID, b.Iter, clip(b.Pid))
	case b.Step == "" || len(b.Step) > MaxStep || !utf8.ValidString(b.Step):
		return fmt.Errorf("step: want 1..%d bytes of UTF-8", MaxStep)
	case len(b.Rule) > 256 || len(b.RuleHash) > 80:
		return fmt.Errorf("rule, ruleHash: at most 256 and 80 bytes")
	case b.Executed < 0:
		return fmt.Errorf("executed: %d is negative", b.Executed)
	case b.Outcome.Result != Valid && b.Outcome.Result != Invalid && b.Outcome.Result != Aborted:
		return fmt.Errorf("outcome.result: want valid, invalid or aborted, got %q", clip(b.Outcome.Result))
	case len(b.Outcome.Reasons) > MaxReasons:
		return fmt.Errorf("outcome.reasons: %d, at most %d", len(b.Outcome.Reasons), MaxReasons)
	case b.Time <= 0:
		return fmt.Errorf("time: want the commit time in unix ms, got %d", b.Time)
	}
	for name, raw := range map[string]json.RawMessage{"payload": b.Payload, "apiSaves": b.APISaves, "contractSaves": b.ContractSaves, "outcome.output": b.Outcome.Output} {
		if len(raw) == 0 {
			continue
		}
		if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
			return fmt.Errorf("%s: want a JSON object", name)
		}
	}
	if r := b.Receipt; r != nil {
		if len(r.TxHash) != 66 || !strings.HasPrefix(r.TxHash, "0x") {
			return fmt.Errorf("receipt.txHash: want 0x and 64 hex digits, got %q", clip(r.TxHash))
		}
		if r.Status != "success" && r.Status != "reverted" {
			return fmt.Errorf("receipt.status: want success or reverted, got %q", clip(r.Status))
		}
	}
	return nil
}

// Encode is the bundle's JSON within max bytes: over it, the largest of
// payload, apiSaves, contractSaves and outcome.output is replaced by a
// Marker (and named in Truncated), one after another, and long reasons are
// cut to MaxReasonSize; a bundle still over max is refused. b is not
// changed.
func Encode(b *Bundle, max int) ([]byte, []string, error) {
	c := *b
	c.V = Version
	if len(c.Payload) == 0 {
		c.Payload = json.RawMessage("{}")
	}
	c.Outcome.Reasons = append([]string(nil), b.Outcome.Reasons...)
	for i, r := range c.Outcome.Reasons {
		if len(r) > MaxReasonSize {
			c.Outcome.Reasons[i] = strings.ToValidUTF8(r[:MaxReasonSize], "") + "…(truncated)"
		}
	}
	for {
		out, err := json.Marshal(&c)
		if err != nil {
			return nil, nil, fmt.Errorf("encode bundle %s: %w", c.Pid, err)
		}
		if len(out) <= max {
			return out, c.Truncated, nil
		}
		sections := []struct {
			name string
			raw  *json.RawMessage
		}{{"payload", &c.Payload}, {"apiSaves", &c.APISaves}, {"contractSaves", &c.ContractSaves}, {"outcome.output", &c.Outcome.Output}}
		sort.SliceStable(sections, func(i, j int) bool { return len(*sections[i].raw) > len(*sections[j].raw) })
		s := sections[0]
		if len(*s.raw) <= 128 || isMarker(*s.raw) {
			return nil, nil, fmt.Errorf("bundle %s: %d bytes after truncating %v, over the cap of %d", c.Pid, len(out), c.Truncated, max)
		}
		sum := sha256.Sum256(*s.raw)
		m, _ := json.Marshal(Marker{Truncated: true, Bytes: len(*s.raw), SHA256: "0x" + hex.EncodeToString(sum[:])})
		*s.raw = m
		c.Truncated = append(c.Truncated, s.name)
	}
}

func isMarker(raw json.RawMessage) bool { return bytes.HasPrefix(raw, []byte(`{"_truncated":true`)) }

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
