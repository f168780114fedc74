// Package wakeup holds the pure rules of waking a waiting process: the
// `__wakeUp` allow list a session carries in its payload (XDaLa endpoint
// reference §12, XRC-137 rule spec §8.5.2), the authorization of a caller
// under a scope, and the payload merge of §8.5.3. It does no IO.
package wakeup

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Key is the reserved payload key that holds a process's allow list.
const Key = "__wakeUp"

// Scope is the channel a wake-up comes through.
type Scope string

const (
	// ScopeRPC is a wake by an external caller (xgr_wakeUpProcess, `xgr
	// session wake --caller`): list form only, no wildcards.
	ScopeRPC Scope = "rpc"
	// ScopeInternal is a wake-up an XRC-137 rule of another session asks
	// for (a branch's wakeUps).
	ScopeInternal Scope = "internal"
)

// ZeroAddress is the internal scope's second wildcard besides "*".
const ZeroAddress = "0x0000000000000000000000000000000000000000"

// AllowList is a parsed `__wakeUp` value.
type AllowList struct {
	// Steps are the per-step entries; for the rpc scope an entry overrides
	// Default, for the internal scope the two lists are joined.
	Steps map[string]Entry
	// Default applies to steps without an entry (nil: none).
	Default *Entry
}

// Entry is the allow list of one step (or the default).
type Entry struct {
	// RPC lists the callers allowed under ScopeRPC (nil: the scope is
	// missing, which denies).
	RPC []string
	// Internal is the ScopeInternal rule (nil: missing, which denies).
	Internal *Internal
}

// Internal is the internal scope of an entry, in list or object form.
type Internal struct {
	// Allow lists the waking sessions' owners that are allowed; "*" and
	// the zero address allow every owner.
	Allow []string
	// FromXRC137, when Bound, restricts the wake-up to these emitting rule
	// contracts; a bound empty list denies everything.
	FromXRC137 []string
	Bound      bool
}

var addressRE = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)

// IsAddress reports whether s is 0x followed by 40 hex digits.
func IsAddress(s string) bool { return addressRE.MatchString(s) }

// Parse reads the value of a payload's `__wakeUp` key (decoded JSON). An
// error names the path and what is allowed; a session whose allow list
// does not parse must not be started, and an unparsable list denies.
func Parse(v any) (*AllowList, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want an object {\"steps\": {STEP: ENTRY}, \"default\": ENTRY}, got %s", Key, kind(v))
	}
	al := &AllowList{}
	for _, k := range sortedKeys(obj) {
		path := Key + "." + k
		switch k {
		case "steps":
			steps, ok := obj[k].(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: want an object of step id → entry, got %s", path, kind(obj[k]))
			}
			al.Steps = make(map[string]Entry, len(steps))
			for _, step := range sortedKeys(steps) {
				if step == "" {
					return nil, fmt.Errorf("%s: a step id must not be empty", path)
				}
				e, err := parseEntry(steps[step], path+"."+step)
				if err != nil {
					return nil, err
				}
				al.Steps[step] = e
			}
		case "default":
			e, err := parseEntry(obj[k], path)
			if err != nil {
				return nil, err
			}
			al.Default = &e
		default:
			return nil, fmt.Errorf("%s: unknown field %q; allowed: steps, default", Key, k)
		}
	}
	return al, nil
}

func parseEntry(v any, path string) (Entry, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return Entry{}, fmt.Errorf("%s: want an object {\"rpc\": [...], \"internal\": [...] or {...}}, got %s", path, kind(v))
	}
	var e Entry
	for _, k := range sortedKeys(obj) {
		switch k {
		case "rpc":
			list, err := addressList(obj[k], path+".rpc", false)
			if err != nil {
				return Entry{}, err
			}
			e.RPC = list
		case "internal":
			in, err := parseInternal(obj[k], path+".internal")
			if err != nil {
				return Entry{}, err
			}
			e.Internal = in
		default:
			return Entry{}, fmt.Errorf("%s: unknown scope %q; allowed: rpc, internal", path, k)
		}
	}
	return e, nil
}

func parseInternal(v any, path string) (*Internal, error) {
	if _, isList := v.([]any); isList {
		allow, err := addressList(v, path, true)
		if err != nil {
			return nil, err
		}
		return &Internal{Allow: allow}, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want a list of addresses or {\"allow\": [...], \"fromXRC137\": [...]}, got %s", path, kind(v))
	}
	in := &Internal{}
	if _, ok := obj["allow"]; !ok {
		return nil, fmt.Errorf("%s: the object form needs \"allow\" (a list of addresses, \"*\" for any)", path)
	}
	for _, k := range sortedKeys(obj) {
		var err error
		switch k {
		case "allow":
			in.Allow, err = addressList(obj[k], path+".allow", true)
		case "fromXRC137":
			in.Bound = true
			in.FromXRC137, err = addressList(obj[k], path+".fromXRC137", false)
		default:
			err = fmt.Errorf("%s: unknown field %q; allowed: allow, fromXRC137", path, k)
		}
		if err != nil {
			return nil, err
		}
	}
	return in, nil
}

// addressList reads a list of addresses; wildcards ("*" or the zero
// address) only where allowed.
func addressList(v any, path string, wildcards bool) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: want a list of 0x addresses, got %s", path, kind(v))
	}
	out := make([]string, 0, len(list))
	for i, x := range list {
		s, ok := x.(string)
		at := fmt.Sprintf("%s[%d]", path, i)
		switch {
		case !ok:
			return nil, fmt.Errorf("%s: want an 0x address string, got %s", at, kind(x))
		case s == "*" || strings.EqualFold(s, ZeroAddress):
			if !wildcards {
				return nil, fmt.Errorf("%s: wildcard %q is not allowed here (only in internal allow lists)", at, s)
			}
		case !IsAddress(s):
			return nil, fmt.Errorf("%s: %q is not an address (want 0x and 40 hex digits)", at, s)
		}
		out = append(out, s)
	}
	return out, nil
}

// Caller is who asks to wake.
type Caller struct {
	Scope Scope
	// Address is the waking session's owner (internal) or the permit
	// signer / named caller (rpc).
	Address string
	// Rule is the XRC-137 contract that emitted an internal wake-up ("" when
	// the rule did not come from a contract).
	Rule string
}

// Decision is the outcome of Authorize.
type Decision struct {
	Allowed bool
	// Reason says why, for the timeline and the caller.
	Reason string
}

func deny(format string, a ...any) Decision {
	return Decision{Reason: fmt.Sprintf(format, a...)}
}

// Authorize decides whether c may wake a process of runner (the session
// owner) that waits on step and whose payload is plain. The runner itself
// always may; anyone else only through the process's allow list. For the
// rpc scope the step's entry, else the default entry, decides (endpoint
// reference §12: a step entry overrides the default); for the internal
// scope either the step's or the default's internal list may allow (rule
// spec §8.5.2: "default.internal or steps[stepId].internal").
func Authorize(runner, step string, plain map[string]any, c Caller) Decision {
	if c.Address != "" && strings.EqualFold(c.Address, runner) {
		return Decision{Allowed: true, Reason: "the caller is the session's runner"}
	}
	raw, ok := plain[Key]
	if !ok {
		return deny("%s is not the runner and the process has no %s allow list", orNone(c.Address), Key)
	}
	al, err := Parse(raw)
	if err != nil {
		return deny("the allow list does not parse (%v): denied", err)
	}
	e, where := al.entry(step)
	if e == nil {
		return deny("%s has no entry for step %q and no default", Key, step)
	}
	switch c.Scope {
	case ScopeInternal:
		return al.authorizeInternal(step, c)
	case ScopeRPC:
		if e.RPC == nil {
			return deny("%s has no rpc scope", where)
		}
		if contains(e.RPC, c.Address, false) {
			return Decision{Allowed: true, Reason: where + ".rpc lists " + c.Address}
		}
		return deny("%s.rpc does not list %s", where, orNone(c.Address))
	}
	return deny("unknown scope %q", c.Scope)
}

// authorizeInternal decides an internal wake-up by the union the rule
// spec §8.5.2 gives: "ResumePlain.__wakeUp.default.internal or
// ResumePlain.__wakeUp.steps[stepId].internal". Either list, each with its
// own fromXRC137 binding, may allow the caller; a step entry does not hide
// the default's internal scope (as it does for rpc, endpoint reference
// §12).
func (al *AllowList) authorizeInternal(step string, c Caller) Decision {
	type scoped struct {
		in    *Internal
		where string
	}
	var lists []scoped
	if e, ok := al.Steps[step]; ok && e.Internal != nil {
		lists = append(lists, scoped{e.Internal, Key + ".steps." + step})
	}
	if al.Default != nil && al.Default.Internal != nil {
		lists = append(lists, scoped{al.Default.Internal, Key + ".default"})
	}
	if len(lists) == 0 {
		_, where := al.entry(step)
		return deny("%s has no internal scope (nor has the default)", where)
	}
	var why []string
	for _, l := range lists {
		d := internalDecision(l.in, l.where, c)
		if d.Allowed {
			return d
		}
		why = append(why, d.Reason)
	}
	return deny("%s", strings.Join(why, "; "))
}

// internalDecision applies one internal list (at where) to c.
func internalDecision(in *Internal, where string, c Caller) Decision {
	if !contains(in.Allow, c.Address, true) {
		return deny("%s.internal does not allow %s", where, orNone(c.Address))
	}
	if in.Bound {
		if len(in.FromXRC137) == 0 {
			return deny("%s.internal.fromXRC137 is empty, which denies every wake-up", where)
		}
		if c.Rule == "" || !contains(in.FromXRC137, c.Rule, false) {
			rule := c.Rule
			if rule == "" {
				rule = "(none: the rule is not a contract)"
			}
			return deny("%s.internal.fromXRC137 does not list the emitting rule %s", where, rule)
		}
	}
	return Decision{Allowed: true, Reason: where + ".internal allows " + c.Address}
}

// entry is the step's entry, else the default; where names it.
func (al *AllowList) entry(step string) (*Entry, string) {
	if e, ok := al.Steps[step]; ok {
		return &e, Key + ".steps." + step
	}
	if al.Default != nil {
		return al.Default, Key + ".default"
	}
	return nil, ""
}

func contains(list []string, addr string, wildcards bool) bool {
	for _, s := range list {
		if wildcards && (s == "*" || strings.EqualFold(s, ZeroAddress)) {
			return true
		}
		if addr != "" && strings.EqualFold(s, addr) {
			return true
		}
	}
	return false
}

func orNone(s string) string {
	if s == "" {
		return "(no caller)"
	}
	return s
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Merge is the payload a woken process resumes with (rule spec §8.5.3):
// its own payload, overlaid by base (the producing step's output) and then
// by overlay (the wake-up's own payload); keys of base and overlay that
// start with "_" are dropped, so a waker can never change the allow list
// or other engine-reserved keys. The inputs are not modified.
func Merge(plain, base, overlay map[string]any) map[string]any {
	out := make(map[string]any, len(plain)+len(base)+len(overlay))
	for k, v := range plain {
		out[k] = v
	}
	for _, m := range []map[string]any{base, overlay} {
		for k, v := range m {
			if !strings.HasPrefix(k, "_") {
				out[k] = v
			}
		}
	}
	return out
}
