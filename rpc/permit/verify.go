package permit

import (
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

// MaxEnvelopeBytes bounds the JSON text of one permit. Real permits are
// well under 2 KiB.
const MaxEnvelopeBytes = 16 << 10

// MaxSkew bounds Expect.Skew.
const MaxSkew = 24 * time.Hour

// DefaultMaxLifetime is the lifetime cap when Expect.MaxLifetime is 0: a
// permit's expiry may lie at most this far beyond now (plus the skew).
const DefaultMaxLifetime = time.Hour

// MaxLifetimeCap bounds Expect.MaxLifetime.
const MaxLifetimeCap = 30 * 24 * time.Hour

// maxDepth bounds nesting: envelope → types → list → entry is 4 levels.
const maxDepth = 8

// Expect is what a permit must match on this node, and the clock to judge
// its expiry by.
type Expect struct {
	// ChainID is the chain this node serves (positive; required).
	ChainID *big.Int
	// ControlContract is the control-domain verifying contract: the engine
	// "precompile" address that xgr_getCoreAddrs reports. Required to
	// verify ControlPermit and ControlPermitV2; unused otherwise.
	ControlContract common.Address
	// Now is the current time (required; Verify reads no clock).
	Now time.Time
	// Skew is the clock skew allowed past a permit's expiry (0..MaxSkew):
	// a permit is valid while Now <= expiry + Skew.
	Skew time.Duration
	// MaxLifetime caps how far in the future a permit's expiry may be:
	// expiry <= Now + Skew + MaxLifetime (0: DefaultMaxLifetime; at most
	// MaxLifetimeCap). A permit past the cap is refused (CodeExpiryTooFar):
	// a leaked permit stays usable for at most this long.
	MaxLifetime time.Duration
	// Kinds are the kinds accepted here; every kind when empty.
	Kinds []Kind
	// RequireBound refuses an unbound kind (SessionPermit, ControlPermit,
	// ControlPermitV2) with CodeUnbound where its bound version
	// (Kind.BoundVersion) is accepted here too. Kinds without an accepted
	// bound version (kill, allow-mode listing) are not affected.
	RequireBound bool
	// Request is the request the permit comes with. A bound permit
	// (SessionPermitV2, ControlPermitV3, GrantPermit) must match it (CodeRequestMismatch);
	// verifying a bound permit without a Request is CodeConfig. Unbound
	// kinds ignore it.
	Request *Request
	// Path is the JSON path of the permit in the request, the root of every
	// Error.Path ("permit" when empty; "controlPermit" for example).
	Path string
}

// Request is what a bound permit signs of the request it authorizes.
type Request struct {
	// Registry is xgr_validateDataTransfer's orchestration: the XRC-729
	// registry (SessionPermitV2.registry).
	Registry common.Address
	// Step is xgr_validateDataTransfer's stepId (SessionPermitV2.startStep).
	Step string
	// Pid is xgr_wakeUpProcess's processId, "" in step mode
	// (ControlPermitV3.pid).
	Pid string
	// Payload is the request's payload as received (JSON text; empty or
	// null counts as {}): its PayloadHash must be the signed payloadHash
	// (SessionPermitV2, ControlPermitV3).
	Payload []byte
	// RID is xgr_manageGrants's rid (GrantPermit.rid).
	RID common.Hash
	// Scope is xgr_manageGrants's scope, 1 or 2 (GrantPermit.scope).
	Scope uint8
	// EntriesHash is EntriesHash of xgr_manageGrants's entries and
	// references (GrantPermit.entriesHash).
	EntriesHash common.Hash
}

// Domain is a verified permit's EIP-712 domain.
type Domain struct {
	// Name and Version are the domain's name and version.
	Name, Version string
	// ChainID equals Expect.ChainID.
	ChainID *big.Int
	// VerifyingContract equals Expect.ControlContract for control permits
	// and is zero for the other kinds (their domain has none).
	VerifyingContract common.Address
}

// Verified is a permit that passed every check. Exactly one of Session
// (SessionPermit, SessionPermitV2), Control (ControlPermit, V2, V3), Xdala
// and Grant is set, according to Kind.
type Verified struct {
	// Kind is the permit's primaryType.
	Kind Kind
	// Signer is the recovered signer; it equals message.from.
	Signer common.Address
	// Domain is the permit's domain.
	Domain Domain
	// Session is the message of a SessionPermit.
	Session *SessionMsg
	// Control is the message of a ControlPermit or ControlPermitV2.
	Control *ControlMsg
	// Xdala is the message of an xdalaPermit.
	Xdala *XdalaMsg
	// Grant is the message of a GrantPermit.
	Grant *GrantMsg
	// SessionID is the root session id the permit binds (message.sessionId,
	// range-checked to 1..2^63-1); 0 for an xdalaPermit and a GrantPermit.
	SessionID int64
	// Expiry is message.expiry as a time; expiries past year 10^11 are
	// clamped there.
	Expiry time.Time
	// Digest is the EIP-712 digest that was signed:
	// keccak256("\x19\x01" ‖ domainSeparator ‖ hashStruct(message)). It
	// identifies the permit (the gateway records it against replay); it
	// does not depend on how numbers or addresses were spelled.
	Digest common.Hash
}

// Verify parses a permit envelope strictly, checks its kind, types, domain
// and message against want, recovers the signer from the signature and
// checks that it is message.from and that the permit has not expired.
//
// Checks run in this order, and the first failure is returned: JSON shape,
// primaryType (and RequireBound), types, domain (name, version, chainId,
// verifyingContract), message values, signature form, signer, expiry,
// lifetime cap, and for a bound permit its request. A changed signed field
// therefore shows as CodeSignerMismatch unless the new value is itself
// invalid. Every error is an *Error; see the Code constants.
//
// Verify does not check authority (that the signer owns the orchestration
// or session) nor replay: both are the gateway's, with Digest as the key.
func Verify(raw []byte, want Expect) (*Verified, error) {
	c, err := newChecker(want, true)
	if err != nil {
		return nil, err
	}
	p, err := c.parse(raw, true)
	if err != nil {
		return nil, err
	}
	v, err := c.finish(p)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// checker holds one verification's expectations. Its methods return *Error
// (never a non-nil error interface holding a nil pointer: callers test the
// pointer).
type checker struct {
	want Expect
	root jsondoc.Path
}

func newChecker(want Expect, clock bool) (*checker, *Error) {
	cfg := func(format string, args ...any) *Error {
		return &Error{Code: CodeConfig, Msg: "permit check misconfigured: " + fmt.Sprintf(format, args...)}
	}
	switch {
	case want.ChainID == nil || want.ChainID.Sign() <= 0:
		return nil, cfg("Expect.ChainID must be a positive chain id, got %v", want.ChainID)
	case clock && want.Now.IsZero():
		return nil, cfg("Expect.Now is not set: pass the current time")
	case want.Skew < 0 || want.Skew > MaxSkew:
		return nil, cfg("Expect.Skew must be between 0 and %v, got %v", MaxSkew, want.Skew)
	case want.MaxLifetime < 0 || want.MaxLifetime > MaxLifetimeCap:
		return nil, cfg("Expect.MaxLifetime must be between 0 (the default, %v) and %v, got %v", DefaultMaxLifetime, MaxLifetimeCap, want.MaxLifetime)
	}
	if want.MaxLifetime == 0 {
		want.MaxLifetime = DefaultMaxLifetime
	}
	for _, k := range want.Kinds {
		if _, ok := knownKind(string(k)); !ok {
			return nil, cfg("Expect.Kinds names %q, which is not a permit kind (kinds: %s)", k, kindList(Kinds()))
		}
	}
	root := want.Path
	if root == "" {
		root = "permit"
	}
	return &checker{want: want, root: jsondoc.Path(root)}, nil
}

func (c *checker) fail(code Code, path jsondoc.Path, format string, args ...any) *Error {
	return &Error{Code: code, Path: string(path), Msg: fmt.Sprintf(format, args...)}
}

// parsed is an envelope whose shape, types, domain and message passed.
type parsed struct {
	kind    Kind
	dom     Domain
	session *SessionMsg
	control *ControlMsg
	xdala   *XdalaMsg
	grant   *GrantMsg
	from    common.Address
	expiry  *big.Int
	td      apitypes.TypedData
	sig     *jsondoc.Value // nil when the envelope has none (signing)
}

var envelopeMembers = []string{"domain", "types", "primaryType", "message", "signature"}

// parse checks everything but the signature and the expiry. needSig
// requires a signature member (it is absent while signing).
func (c *checker) parse(raw []byte, needSig bool) (*parsed, *Error) {
	if len(raw) > MaxEnvelopeBytes {
		return nil, c.fail(CodeMalformed, c.root, "is %d bytes; a permit may have at most %d", len(raw), MaxEnvelopeBytes)
	}
	doc, err := jsondoc.Parse(raw, maxDepth)
	if err != nil {
		return nil, c.fail(CodeMalformed, c.root, "is not valid JSON: %v", err)
	}
	if doc.Kind != jsondoc.Object {
		return nil, c.fail(CodeMalformed, c.root, "is a JSON %s; a permit is an object with %s", doc.Kind, strings.Join(envelopeMembers, ", "))
	}
	top, e := c.members(doc, c.root, envelopeMembers, CodeMalformed, "a permit envelope")
	if e != nil {
		return nil, e
	}
	for _, name := range envelopeMembers {
		if name == "signature" && !needSig {
			continue
		}
		if top[name] == nil {
			return nil, c.fail(CodeMissing, c.root.Key(name), "is missing; a permit has %s", strings.Join(envelopeMembers, ", "))
		}
	}

	p := &parsed{sig: top["signature"]}
	if p.kind, e = c.primaryType(top["primaryType"]); e != nil {
		return nil, e
	}
	variant, e := c.types(p.kind, top["types"])
	if e != nil {
		return nil, e
	}
	if e = c.domain(p, top["domain"]); e != nil {
		return nil, e
	}
	msg, e := c.message(p, variant, top["message"])
	if e != nil {
		return nil, e
	}
	p.td = apitypes.TypedData{
		Types: apitypes.Types{
			string(p.kind): variant,
			"EIP712Domain": p.kind.domainTypes(),
		},
		PrimaryType: string(p.kind),
		Domain: apitypes.TypedDataDomain{
			Name:    p.dom.Name,
			Version: p.dom.Version,
			ChainId: (*math.HexOrDecimal256)(p.dom.ChainID),
		},
		Message: msg,
	}
	if p.kind.isControl() {
		p.td.Domain.VerifyingContract = p.dom.VerifyingContract.Hex()
	}
	return p, nil
}

// finish hashes, checks the signature and the expiry.
func (c *checker) finish(p *parsed) (*Verified, *Error) {
	digest, e := c.digest(p)
	if e != nil {
		return nil, e
	}
	sigPath := c.root.Key("signature")
	sig, e := c.signature(p.sig, sigPath)
	if e != nil {
		return nil, e
	}
	pub, err := crypto.SigToPub(digest[:], sig)
	if err != nil {
		return nil, c.fail(CodeSignature, sigPath, "does not recover to a public key (%v): it is not a signature of this permit by any key", err)
	}
	signer := crypto.PubkeyToAddress(*pub)
	if signer != p.from {
		return nil, c.fail(CodeSignerMismatch, sigPath,
			"was made by %s, not by message.from %s: the permit was signed by another key, or a signed field (domain or message) was changed after signing",
			signer.Hex(), p.from.Hex())
	}
	cutoff := c.want.Now.Add(-c.want.Skew)
	if cmp := big.NewInt(cutoff.Unix()).Cmp(p.expiry); cmp > 0 || cmp == 0 && cutoff.Nanosecond() > 0 {
		return nil, c.fail(CodeExpired, c.root.Key("message").Key("expiry"),
			"the permit expired at %s (unix %s); now is %s (allowed skew %v): sign a new permit with a later expiry",
			expiryTime(p.expiry).UTC().Format(time.RFC3339), p.expiry, c.want.Now.UTC().Format(time.RFC3339Nano), c.want.Skew)
	}
	if limit := c.want.Now.Add(c.want.Skew + c.want.MaxLifetime); big.NewInt(limit.Unix()).Cmp(p.expiry) < 0 {
		return nil, c.fail(CodeExpiryTooFar, c.root.Key("message").Key("expiry"),
			"is %s (%s), beyond the lifetime cap: a permit may be valid for at most %v from now (%s, allowed skew %v), i.e. until unix %d; sign one with an earlier expiry",
			clip(p.expiry.String()), expiryTime(p.expiry).UTC().Format(time.RFC3339), c.want.MaxLifetime,
			c.want.Now.UTC().Format(time.RFC3339), c.want.Skew, limit.Unix())
	}
	if p.kind.Bound() {
		if e := c.bind(p); e != nil {
			return nil, e
		}
	}
	v := &Verified{
		Kind:    p.kind,
		Signer:  signer,
		Domain:  p.dom,
		Session: p.session,
		Control: p.control,
		Xdala:   p.xdala,
		Grant:   p.grant,
		Expiry:  expiryTime(p.expiry),
		Digest:  digest,
	}
	switch {
	case p.session != nil:
		v.SessionID = p.session.SessionID.Int64()
	case p.control != nil:
		v.SessionID = p.control.SessionID.Int64()
	}
	return v, nil
}

// digest hashes the typed data with go-ethereum's EIP-712 implementation.
// The parser has already made the data well formed; a failure here would
// be a gap in the parser, reported as malformed rather than a panic.
func (c *checker) digest(p *parsed) (common.Hash, *Error) {
	h, _, err := apitypes.TypedDataAndHash(p.td)
	if err != nil {
		return common.Hash{}, c.fail(CodeMalformed, c.root, "cannot be hashed as EIP-712 typed data: %v", err)
	}
	return common.BytesToHash(h), nil
}

// maxExpiryUnix keeps time.Unix and time arithmetic far from overflow.
const maxExpiryUnix = 1 << 62

func expiryTime(e *big.Int) time.Time {
	if e.IsInt64() && e.Int64() <= maxExpiryUnix {
		return time.Unix(e.Int64(), 0)
	}
	return time.Unix(maxExpiryUnix, 0)
}

// members indexes an object's members, refusing duplicates and names not in
// allowed (with unknownCode). what names the object in messages.
func (c *checker) members(v *jsondoc.Value, path jsondoc.Path, allowed []string, unknownCode Code, what string) (map[string]*jsondoc.Value, *Error) {
	out := make(map[string]*jsondoc.Value, len(v.Members))
	for _, m := range v.Members {
		at := path.Key(m.Name)
		if _, dup := out[m.Name]; dup {
			return nil, c.fail(CodeMalformed, at, "appears twice; each member may appear once")
		}
		known := false
		hint := ""
		for _, a := range allowed {
			if a == m.Name {
				known = true
				break
			}
			if strings.EqualFold(a, m.Name) {
				hint = fmt.Sprintf(" (member names are case-sensitive: %q)", a)
			}
		}
		if !known {
			return nil, c.fail(unknownCode, at, "is not a member of %s%s; allowed: %s", what, hint, strings.Join(allowed, ", "))
		}
		if m.Value.Kind == jsondoc.Null {
			continue // null counts as absent
		}
		out[m.Name] = m.Value
	}
	return out, nil
}

func (c *checker) primaryType(v *jsondoc.Value) (Kind, *Error) {
	path := c.root.Key("primaryType")
	if v.Kind != jsondoc.String {
		return "", c.fail(CodeMalformed, path, "is a JSON %s; it must be a string naming the permit kind (%s)", v.Kind, kindList(c.accepted()))
	}
	k, ok := knownKind(v.Text)
	if !ok {
		return "", c.fail(CodeUnknownPrimaryType, path, "%q is not a permit kind; allowed: %s", v.Text, kindList(c.accepted()))
	}
	if !c.accepts(k) {
		return "", c.fail(CodeUnknownPrimaryType, path, "%s is not accepted here; allowed: %s", k, kindList(c.accepted()))
	}
	if b := k.BoundVersion(); c.want.RequireBound && b != "" && c.accepts(b) {
		return "", c.fail(CodeUnbound, path,
			"%s does not sign the request it authorizes (%s), so whoever relays it could use it for another; this gateway requires the bound %s",
			k, unboundWhat(k), b)
	}
	return k, nil
}

func (c *checker) accepts(k Kind) bool {
	for _, a := range c.accepted() {
		if a == k {
			return true
		}
	}
	return false
}

// unboundWhat names what an unbound kind leaves unsigned.
func unboundWhat(k Kind) string {
	switch k {
	case KindSession:
		return "registry, start step, payload"
	case KindXdala:
		return "RID, scope, grant entries"
	}
	return "process id, payload"
}

func (c *checker) accepted() []Kind {
	if len(c.want.Kinds) > 0 {
		return c.want.Kinds
	}
	return Kinds()
}

func kindList(ks []Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// types checks that types holds exactly the canonical definitions of kind
// and EIP712Domain, and returns the matched variant of kind.
func (c *checker) types(kind Kind, v *jsondoc.Value) ([]field, *Error) {
	path := c.root.Key("types")
	if v.Kind != jsondoc.Object {
		return nil, c.fail(CodeMalformed, path, "is a JSON %s; it must be an object with the definitions of %s and EIP712Domain", v.Kind, kind)
	}
	allowed := []string{string(kind), "EIP712Domain"}
	defs, e := c.members(v, path, allowed, CodeTypesMismatch, "types of a "+string(kind)+" (other types are not allowed)")
	if e != nil {
		return nil, e
	}
	allowedVariants := variants[kind]
	var want strings.Builder
	for i, fs := range allowedVariants {
		if i > 0 {
			want.WriteString(" or ")
		}
		want.WriteString(describe(fs))
	}
	pdef := defs[string(kind)]
	if pdef == nil {
		return nil, c.fail(CodeTypesMismatch, path.Key(string(kind)), "is missing; it must be %s", want.String())
	}
	got, e := c.fieldList(pdef, path.Key(string(kind)), want.String())
	if e != nil {
		return nil, e
	}
	var variant []field
	for _, fs := range allowedVariants {
		if sameFields(got, fs) {
			variant = fs
			break
		}
	}
	if variant == nil {
		return nil, c.fail(CodeTypesMismatch, path.Key(string(kind)), "is %s; the canonical %s is %s (names, types and order must match)", describe(got), kind, want.String())
	}
	ddef := defs["EIP712Domain"]
	dwant := describe(kind.domainTypes())
	if ddef == nil {
		return nil, c.fail(CodeTypesMismatch, path.Key("EIP712Domain"), "is missing; a %s's domain type is %s", kind, dwant)
	}
	dgot, e := c.fieldList(ddef, path.Key("EIP712Domain"), dwant)
	if e != nil {
		return nil, e
	}
	if !sameFields(dgot, kind.domainTypes()) {
		return nil, c.fail(CodeTypesMismatch, path.Key("EIP712Domain"), "is %s; a %s's domain type is %s (names, types and order must match)", describe(dgot), kind, dwant)
	}
	return variant, nil
}

// fieldList reads [{"name":..,"type":..}, ...].
func (c *checker) fieldList(v *jsondoc.Value, path jsondoc.Path, want string) ([]field, *Error) {
	if v.Kind != jsondoc.Array {
		return nil, c.fail(CodeTypesMismatch, path, "is a JSON %s; it must be the list %s of {\"name\", \"type\"} objects", v.Kind, want)
	}
	out := make([]field, 0, len(v.Items))
	for i, it := range v.Items {
		at := path.Index(i)
		if it.Kind != jsondoc.Object {
			return nil, c.fail(CodeTypesMismatch, at, "is a JSON %s; each entry is an object {\"name\": ..., \"type\": ...}", it.Kind)
		}
		ms, e := c.members(it, at, []string{"name", "type"}, CodeTypesMismatch, "a type entry")
		if e != nil {
			return nil, e
		}
		var f field
		for _, k := range []string{"name", "type"} {
			m := ms[k]
			if m == nil || m.Kind != jsondoc.String {
				return nil, c.fail(CodeTypesMismatch, at.Key(k), "must be a string; the definition is %s", want)
			}
			if k == "name" {
				f.Name = m.Text
			} else {
				f.Type = m.Text
			}
		}
		out = append(out, f)
	}
	return out, nil
}

func (c *checker) domain(p *parsed, v *jsondoc.Value) *Error {
	path := c.root.Key("domain")
	if v.Kind != jsondoc.Object {
		return c.fail(CodeMalformed, path, "is a JSON %s; it must be an object with %s", v.Kind, describe(p.kind.domainTypes()))
	}
	names := make([]string, 0, 4)
	for _, f := range p.kind.domainTypes() {
		names = append(names, f.Name)
	}
	ms, e := c.members(v, path, names, CodeDomainMismatch, "a "+string(p.kind)+" domain")
	if e != nil {
		return e
	}
	for _, k := range []string{"name", "version"} {
		m := ms[k]
		at := path.Key(k)
		if m == nil {
			return c.fail(CodeMissing, at, "is missing; %s", domainRule(p.kind, k))
		}
		if m.Kind != jsondoc.String {
			return c.fail(CodeInvalidValue, at, "is a JSON %s; %s", m.Kind, domainRule(p.kind, k))
		}
		name, version := p.kind.domainOf()
		if want := map[string]string{"name": name, "version": version}[k]; m.Text != want {
			return c.fail(CodeDomainMismatch, at, "is %q; %s", clip(m.Text), domainRule(p.kind, k))
		}
		if k == "name" {
			p.dom.Name = m.Text
		} else {
			p.dom.Version = m.Text
		}
	}
	at := path.Key("chainId")
	m := ms["chainId"]
	if m == nil {
		return c.fail(CodeMissing, at, "is missing; it must be this node's chain id %s", c.want.ChainID)
	}
	id, e := c.uint256(m, at)
	if e != nil {
		return e
	}
	if id.Cmp(c.want.ChainID) != 0 {
		return c.fail(CodeChainIDMismatch, at, "is %s; this node serves chain %s (%#x): sign for that chain", id, c.want.ChainID, c.want.ChainID)
	}
	p.dom.ChainID = id
	if !p.kind.isControl() {
		return nil
	}
	if c.want.ControlContract == (common.Address{}) {
		return &Error{Code: CodeConfig, Msg: "permit check misconfigured: Expect.ControlContract is not set, so " + string(p.kind) + " cannot be verified"}
	}
	at = path.Key("verifyingContract")
	addr, e := c.address(ms["verifyingContract"], at, "the control-domain contract "+c.want.ControlContract.Hex())
	if e != nil {
		return e
	}
	if addr != c.want.ControlContract {
		return c.fail(CodeVerifyingContractMismatch, at, "is %s; control permits must name the engine's control-domain contract %s (xgr_getCoreAddrs precompile)", addr.Hex(), c.want.ControlContract.Hex())
	}
	p.dom.VerifyingContract = addr
	return nil
}

func domainRule(k Kind, member string) string {
	name, version := k.domainOf()
	if member == "name" {
		return fmt.Sprintf("a %s's domain name is %q", k, name)
	}
	return fmt.Sprintf("a %s's domain version is %q", k, version)
}

// message reads the message fields of the matched variant and returns them
// in the form apitypes hashes.
func (c *checker) message(p *parsed, variant []field, v *jsondoc.Value) (apitypes.TypedDataMessage, *Error) {
	path := c.root.Key("message")
	if v.Kind != jsondoc.Object {
		return nil, c.fail(CodeMalformed, path, "is a JSON %s; it must be an object with the fields %s", v.Kind, describe(variant))
	}
	names := make([]string, len(variant))
	for i, f := range variant {
		names[i] = f.Name
	}
	ms, e := c.members(v, path, names, CodeMalformed, "a "+string(p.kind)+" as its types define it")
	if e != nil {
		return nil, e
	}
	out := make(apitypes.TypedDataMessage, len(variant))
	addrs := map[string]common.Address{}
	ints := map[string]*big.Int{}
	strs := map[string]string{}
	hashes := map[string]common.Hash{}
	for _, f := range variant {
		at := path.Key(f.Name)
		m := ms[f.Name]
		switch f.Type {
		case "address":
			a, e := c.address(m, at, "the "+f.Name+" address")
			if e != nil {
				return nil, e
			}
			if a == (common.Address{}) {
				return nil, c.fail(CodeAddress, at, "is the zero address; it must name an account")
			}
			addrs[f.Name] = a
			out[f.Name] = a.Hex()
		case "uint256":
			if m == nil {
				return nil, c.fail(CodeMissing, at, "is missing; it must be an unsigned integer")
			}
			n, e := c.uint256(m, at)
			if e != nil {
				return nil, e
			}
			ints[f.Name] = n
			out[f.Name] = n
		case "string", "bytes32":
			if m == nil {
				return nil, c.fail(CodeMissing, at, "is missing; it must be a string")
			}
			if m.Kind != jsondoc.String {
				return nil, c.fail(CodeInvalidValue, at, "is a JSON %s; it must be a string", m.Kind)
			}
			strs[f.Name] = m.Text
			out[f.Name] = m.Text
			if f.Type == "bytes32" || f.Name == "ostcHash" { // ostcHash typed string must be a bytes32 too
				h, ok := hexBytes(m.Text, common.HashLength)
				if !ok {
					return nil, c.fail(CodeInvalidValue, at, "is %q; it must be a bytes32: \"0x\" followed by 64 hex digits", clip(m.Text))
				}
				hashes[f.Name] = common.BytesToHash(h)
				if f.Type == "bytes32" {
					out[f.Name] = h
				}
			}
		}
	}
	p.from = addrs["from"]
	p.expiry = ints["expiry"]
	switch p.kind {
	case KindSession, KindSessionV2:
		if p.kind == KindSessionV2 && strs["startStep"] == "" {
			return nil, c.fail(CodeInvalidValue, path.Key("startStep"), "is empty; it must be the step the session starts at")
		}
		p.session = &SessionMsg{From: p.from, Registry: addrs["registry"], OstcID: strs["ostcId"], OstcHash: hashes["ostcHash"],
			StartStep: strs["startStep"], PayloadHash: hashes["payloadHash"],
			SessionID: ints["sessionId"], MaxTotalGas: ints["maxTotalGas"], Expiry: p.expiry}
	case KindControl, KindControlV2, KindControlV3:
		runner := p.from
		if p.kind != KindControl {
			runner = addrs["runner"]
		}
		action := strs["action"]
		if !validAction(action) {
			return nil, c.fail(CodeInvalidValue, path.Key("action"), "is %q; allowed: %s", clip(action), actionList())
		}
		p.control = &ControlMsg{From: p.from, Runner: runner, SessionID: ints["sessionId"],
			Action: Action(action), StepID: strs["stepId"], Pid: strs["pid"], PayloadHash: hashes["payloadHash"], Expiry: p.expiry}
	case KindXdala:
		p.xdala = &XdalaMsg{From: p.from, Expiry: p.expiry}
	case KindGrant:
		scope := ints["scope"]
		if !scope.IsUint64() || scope.Uint64() < 1 || scope.Uint64() > 2 {
			return nil, c.fail(CodeOutOfRange, path.Key("scope"), "is %s; a grant scope is 1 (rules) or 2 (logs)", clip(scope.String()))
		}
		p.grant = &GrantMsg{From: p.from, RID: hashes["rid"], Scope: uint8(scope.Uint64()), EntriesHash: hashes["entriesHash"], Expiry: p.expiry}
	}
	if id, ok := ints["sessionId"]; ok {
		if id.Sign() <= 0 || !id.IsInt64() {
			return nil, c.fail(CodeOutOfRange, path.Key("sessionId"), "is %s; a root session id is between 1 and %d", clip(id.String()), int64(1<<63-1))
		}
	}
	return out, nil
}

func actionList() string {
	s := make([]string, 0, 4)
	for _, a := range Actions() {
		s = append(s, string(a))
	}
	return strings.Join(s, ", ")
}

// clip shortens long values quoted in messages.
func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// address reads "0x" and 40 hex digits; mixed case must be a valid EIP-55
// checksum. what names the address in messages.
func (c *checker) address(v *jsondoc.Value, path jsondoc.Path, what string) (common.Address, *Error) {
	const form = "\"0x\" followed by 40 hex digits (all lowercase, or EIP-55 checksummed)"
	if v == nil {
		return common.Address{}, c.fail(CodeAddress, path, "is missing; it must be %s: %s", what, form)
	}
	if v.Kind != jsondoc.String {
		return common.Address{}, c.fail(CodeAddress, path, "is a JSON %s; it must be %s: %s", v.Kind, what, form)
	}
	b, ok := hexBytes(v.Text, common.AddressLength)
	if !ok {
		return common.Address{}, c.fail(CodeAddress, path, "is %q; it must be %s: %s", clip(v.Text), what, form)
	}
	a := common.BytesToAddress(b)
	digits := v.Text[2:]
	if strings.ToLower(digits) != digits && strings.ToUpper(digits) != digits && a.Hex() != v.Text {
		return common.Address{}, c.fail(CodeAddress, path, "is %q, whose mixed case fails the EIP-55 checksum (%s); write it all lowercase or correctly checksummed", v.Text, a.Hex())
	}
	return a, nil
}

// hexBytes decodes "0x" followed by exactly 2*n hex digits.
func hexBytes(s string, n int) ([]byte, bool) {
	if len(s) != 2+2*n || s[0] != '0' || s[1] != 'x' {
		return nil, false
	}
	out := make([]byte, n)
	for i := 0; i < n; i++ {
		hi, ok1 := unhex(s[2+2*i])
		lo, ok2 := unhex(s[3+2*i])
		if !ok1 || !ok2 {
			return nil, false
		}
		out[i] = hi<<4 | lo
	}
	return out, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// uint256 reads an unsigned 256-bit integer written as a JSON number (an
// exact integer, e.g. 5, 5.0 or 5e3) or as a decimal ("123") or hex ("0x7b")
// string, the forms eth_signTypedData_v4 clients and apitypes accept.
func (c *checker) uint256(v *jsondoc.Value, path jsondoc.Path) (*big.Int, *Error) {
	const forms = "an unsigned integer: a JSON number, a decimal string (\"123\") or a hex string (\"0x7b\")"
	var n *big.Int
	switch v.Kind {
	case jsondoc.Number:
		var why string
		if n, why = jsonInteger(v.Text); n == nil {
			return nil, c.fail(CodeInvalidValue, path, "is %s, %s; it must be %s", clip(v.Text), why, forms)
		}
	case jsondoc.String:
		s := v.Text
		n = new(big.Int)
		ok := false
		if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
			ok = allDigits(s[2:], 16) && setString(n, s[2:], 16)
		} else {
			ok = allDigits(s, 10) && setString(n, s, 10)
		}
		if !ok {
			return nil, c.fail(CodeInvalidValue, path, "is %q; it must be %s", clip(s), forms)
		}
	default:
		return nil, c.fail(CodeInvalidValue, path, "is a JSON %s; it must be %s", v.Kind, forms)
	}
	if n.Sign() < 0 {
		return nil, c.fail(CodeOutOfRange, path, "is %s; it must not be negative (uint256)", clip(n.String()))
	}
	if n.BitLen() > 256 {
		return nil, c.fail(CodeOutOfRange, path, "is %s, wider than 256 bits (uint256)", clip(n.String()))
	}
	return n, nil
}

func setString(n *big.Int, s string, base int) bool {
	_, ok := n.SetString(s, base)
	return ok
}

func allDigits(s string, base int) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if _, ok := unhex(s[i]); !ok || base == 10 && s[i] > '9' {
			return false
		}
	}
	return true
}

// jsonInteger converts a JSON number literal to an exact integer, or says
// why it is not one. Exponents are bounded (three digits) so that
// "1e999999999" cannot make it compute a huge power.
func jsonInteger(lit string) (*big.Int, string) {
	if allDigits(strings.TrimPrefix(lit, "-"), 10) {
		if n, ok := new(big.Int).SetString(lit, 10); ok {
			return n, ""
		}
		return nil, "which is not a number"
	}
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		exp := strings.TrimLeft(lit[i+1:], "+-")
		if len(exp) > 3 || !allDigits(exp, 10) {
			return nil, "whose exponent is too large (write the integer in plain digits)"
		}
	}
	r, ok := new(big.Rat).SetString(lit)
	if !ok {
		return nil, "which is not a number"
	}
	if !r.IsInt() {
		return nil, "which is not an integer"
	}
	return new(big.Int).Set(r.Num()), ""
}

// secp256k1 curve order and half of it (go-ethereum keeps its own copies
// unexported).
var (
	curveN     = crypto.S256().Params().N
	curveHalfN = new(big.Int).Rsh(curveN, 1)
)

// signature reads "0x" and 130 hex digits (r ‖ s ‖ v) and returns the 65
// bytes with v normalised to 0 or 1, as crypto.SigToPub wants them.
func (c *checker) signature(v *jsondoc.Value, path jsondoc.Path) ([]byte, *Error) {
	const form = "\"0x\" followed by 130 hex digits (65 bytes: r, s, v)"
	if v == nil {
		return nil, c.fail(CodeMissing, path, "is missing; it must be %s", form)
	}
	if v.Kind != jsondoc.String {
		return nil, c.fail(CodeSignature, path, "is a JSON %s; it must be %s", v.Kind, form)
	}
	sig, ok := hexBytes(v.Text, crypto.SignatureLength)
	if !ok {
		return nil, c.fail(CodeSignature, path, "is not %s: got %d characters", form, len(v.Text))
	}
	switch sig[64] {
	case 0, 1:
	case 27, 28:
		sig[64] -= 27
	default:
		return nil, c.fail(CodeSignature, path, "has v = %d; allowed: 27 or 28 (or 0 or 1)", sig[64])
	}
	r := new(big.Int).SetBytes(sig[:32])
	s := new(big.Int).SetBytes(sig[32:64])
	switch {
	case r.Sign() == 0 || r.Cmp(curveN) >= 0:
		return nil, c.fail(CodeSignature, path, "has r out of range: it must be between 1 and the secp256k1 order - 1")
	case s.Sign() == 0:
		return nil, c.fail(CodeSignature, path, "has s = 0: not a signature")
	case s.Cmp(curveHalfN) > 0:
		return nil, c.fail(CodeSignature, path, "has s in the upper half of the secp256k1 order: a malleable signature; only the canonical low-s form (EIP-2) is accepted")
	case !crypto.ValidateSignatureValues(sig[64], r, s, true):
		return nil, c.fail(CodeSignature, path, "has r, s or v out of range")
	}
	return sig, nil
}

// bind checks a bound permit against Expect.Request: the signed registry,
// start step, process id and payload hash, or RID, scope and entries hash,
// must be the request's.
func (c *checker) bind(p *parsed) *Error {
	req := c.want.Request
	if req == nil {
		return &Error{Code: CodeConfig, Msg: "permit check misconfigured: Expect.Request is not set, so the bound " + string(p.kind) + " cannot be matched to its request"}
	}
	msg := c.root.Key("message")
	mismatch := func(field, what, got, signed string) *Error {
		return c.fail(CodeRequestMismatch, msg.Key(field),
			"the request's %s is %s but the permit signs %s: a %s authorizes only the request it was signed for",
			what, clip(got), clip(signed), p.kind)
	}
	if g := p.grant; g != nil {
		switch {
		case req.RID != g.RID:
			return mismatch("rid", "rid", req.RID.Hex(), g.RID.Hex())
		case req.Scope != g.Scope:
			return mismatch("scope", "scope", fmt.Sprint(req.Scope), fmt.Sprint(g.Scope))
		case req.EntriesHash != g.EntriesHash:
			return mismatch("entriesHash", "entries hash (keccak256 of the ABI-encoded entries and references, see EntriesHash)",
				req.EntriesHash.Hex(), g.EntriesHash.Hex())
		}
		return nil
	}
	var signedHash common.Hash
	switch s, ctl := p.session, p.control; {
	case s != nil:
		if req.Registry != s.Registry {
			return mismatch("registry", "orchestration (XRC-729 registry)", req.Registry.Hex(), s.Registry.Hex())
		}
		if req.Step != s.StartStep {
			return mismatch("startStep", "stepId", fmt.Sprintf("%q", req.Step), fmt.Sprintf("%q", s.StartStep))
		}
		signedHash = s.PayloadHash
	case ctl != nil:
		if req.Pid != ctl.Pid {
			return mismatch("pid", "processId", fmt.Sprintf("%q", req.Pid), fmt.Sprintf("%q", ctl.Pid))
		}
		signedHash = ctl.PayloadHash
	}
	h, err := PayloadHash(req.Payload)
	if err != nil {
		return c.fail(CodeRequestMismatch, msg.Key("payloadHash"), "cannot be matched: the request's payload is not JSON (%v)", err)
	}
	if h != signedHash {
		return mismatch("payloadHash", "payload hash (keccak256 of its canonical text, see PayloadHash)", h.Hex(), signedHash.Hex())
	}
	return nil
}
