package joinstore

import (
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
)

// RootShards is the number of hash tags the global root index is spread
// over, so that a Redis Cluster balances it.
const RootShards = 16

// Root names one session: an owner and a root pid.
type Root struct {
	Owner   string
	RootPid int64
}

func (r Root) String() string { return r.Owner + ":" + strconv.FormatInt(r.RootPid, 10) }

// Pid returns the process id "<rootPid>:<iter>".
func (r Root) Pid(iter int64) string {
	return strconv.FormatInt(r.RootPid, 10) + ":" + strconv.FormatInt(iter, 10)
}

// ParsePid splits "<rootPid>:<iter>".
func ParsePid(pid string) (rootPid, iter int64, err error) {
	a, b, ok := strings.Cut(pid, ":")
	if ok {
		if rootPid, err = strconv.ParseInt(a, 10, 64); err == nil {
			if iter, err = strconv.ParseInt(b, 10, 64); err == nil && rootPid > 0 && iter > 0 {
				return rootPid, iter, nil
			}
		}
	}
	return 0, 0, fmt.Errorf("pid %q: want <rootPid>:<iter> with positive decimal numbers", pid)
}

// NormalizeOwner gives an 0x address owner its one key form, lower case, so
// that a checksummed and a lower-case spelling name the same sessions.
// Other owners are returned as they are.
func NormalizeOwner(owner string) string {
	if len(owner) == 42 && (strings.HasPrefix(owner, "0x") || strings.HasPrefix(owner, "0X")) {
		for _, c := range owner[2:] {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return owner
			}
		}
		return "0x" + strings.ToLower(owner[2:])
	}
	return owner
}

// CheckOwner rejects owners that are not EVM addresses in their key form
// (0x and 40 lower-case hex digits; NormalizeOwner gives that form).
func CheckOwner(owner string) error {
	if len(owner) != 42 || owner[:2] != "0x" || strings.Trim(owner[2:], "0123456789abcdef") != "" {
		return fmt.Errorf("owner %q: want an EVM address (0x and 40 hex digits)", owner)
	}
	return nil
}

// keys are the Redis keys of one session, all under one hash tag.
type keys struct{ prefix string }

func keysOf(r Root) keys {
	return keys{prefix: "xgr:{" + r.Owner + ":" + strconv.FormatInt(r.RootPid, 10) + "}:"}
}

func (k keys) meta() string    { return k.prefix + "meta" }
func (k keys) due() string     { return k.prefix + "due" }
func (k keys) run() string     { return k.prefix + "run" }
func (k keys) steps() string   { return k.prefix + "steps" }
func (k keys) targets() string { return k.prefix + "targets" }
func (k keys) lease() string   { return k.prefix + "lease" }
func (k keys) jpend() string   { return k.prefix + "jpend" }
func (k keys) wq() string      { return k.prefix + "wq" }
func (k keys) woken() string   { return k.prefix + "woken" }

// gone is the tombstone of a root pid a replica gave up before its session
// was created (forget_root.lua).
// SessionKeyPattern is the SCAN pattern of every key of one session (all
// under its hash tag, so on a cluster they live on one node).
func SessionKeyPattern(r Root) string { return keysOf(r).prefix + "*" }

// records are a session's own session-level records, in the order
// lua/lib/expire_records.lua documents (meta first): what expires when
// the session finishes.
func (k keys) records() []string {
	return []string{k.meta(), k.run(), k.due(), k.steps(), k.wq(), k.targets(), k.jpend(), k.woken()}
}

func (k keys) gone() string { return k.prefix + "gone" }
func (k keys) proc(iter int64) string {
	return k.prefix + "p:" + strconv.FormatInt(iter, 10)
}

// group is the live-member hash of a join group; the root group is "0" and
// the fresh group a join creates is named by its target's iter.
func (k keys) group(id string) string        { return k.prefix + "g:" + id }
func (k keys) joinQueue(target int64) string { return k.prefix + "jq:" + strconv.FormatInt(target, 10) }
func (k keys) joinLock(target int64) string  { return k.prefix + "jl:" + strconv.FormatInt(target, 10) }

// ownerKeys are the keys of one owner, under the tag {own:<owner>}.
type ownerKeys struct{ prefix string }

func ownerKeysOf(owner string) ownerKeys { return ownerKeys{prefix: "xgr:{own:" + owner + "}:"} }

func (k ownerKeys) seq() string    { return k.prefix + "seq" }
func (k ownerKeys) idem() string   { return k.prefix + "idem" }
func (k ownerKeys) roots() string  { return k.prefix + "roots" }
func (k ownerKeys) expire() string { return k.prefix + "expire" }
func (k ownerKeys) idemOf() string { return k.prefix + "idemof" }
func (k ownerKeys) slots() string  { return k.prefix + "slots" }
func (k ownerKeys) starts() string { return k.prefix + "starts" }
func (k ownerKeys) all() []string {
	return []string{k.seq(), k.idem(), k.roots(), k.expire(), k.idemOf(), k.slots(), k.starts()}
}

// rootShardKey is the global index shard that holds root r.
func rootShardKey(r Root) string {
	return shardKey(int(crc32.ChecksumIEEE([]byte(r.String())) % RootShards))
}

func shardKey(n int) string { return "xgr:{q:" + strconv.Itoa(n) + "}:roots" }
