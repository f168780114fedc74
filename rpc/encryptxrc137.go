package rpc

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/rpc/permit"
)

// ReadKeySource reads an account's registered read public key (the
// 65-byte SEC1 key; empty when none): *chain.KeyRegistry.
type ReadKeySource interface {
	ReadKey(ctx context.Context, owner common.Address) ([]byte, error)
}

// Bounds of xgr_encryptXRC137's owner grant.
const (
	// DefaultRuleGrantDays is the owner grant's lifetime when the request
	// gives no grantExpireAt.
	DefaultRuleGrantDays = 365
	// MaxRuleGrantDays caps grantExpireAt.
	MaxRuleGrantDays = 3650
)

// EncryptXRC137Request is the parameter of xgr_encryptXRC137. The endpoint
// reference lists the method without a request; the members are the
// encryption guide's (address, owner, json, grantExpireAt) and xgr's
// (readKey, permit): see docs/rpc.md.
type EncryptXRC137Request struct {
	// Address is the rule contract the envelope is for (optional): the
	// owner grant's refAddr.
	Address string `json:"address,omitempty"`
	// Owner signs the permit and gets the owner grant.
	Owner string `json:"owner"`
	// JSON is the rule document (a JSON object, at most
	// envelope.MaxRuleBytes bytes).
	JSON string `json:"json"`
	// GrantExpireAt is the owner grant's expiry, unix seconds (0: in
	// DefaultRuleGrantDays).
	GrantExpireAt uint64 `json:"grantExpireAt,omitempty"`
	// ReadKey is the public key to wrap the data key for (0x and 130 hex
	// digits, the 65-byte SEC1 key); empty: the owner's registered one.
	ReadKey string          `json:"readKey,omitempty"`
	Permit  json.RawMessage `json:"permit"`
}

// EncryptXRC137Result is the result of xgr_encryptXRC137: the guide's rid,
// suite, blob and ownerEncDEK, and as `xgr rule encrypt --json` names them
// encDEK (the same wrapped key), encDEKHex (its bytes, as `xgr rule
// update --encdek` and setEncrypted take them), scope and readKey; the
// owner grant's expiry.
type EncryptXRC137Result struct {
	RID           string `json:"rid"`
	Suite         string `json:"suite"`
	Blob          string `json:"blob"`
	OwnerEncDEK   string `json:"ownerEncDEK"`
	EncDEK        string `json:"encDEK"`
	EncDEKHex     string `json:"encDEKHex"`
	Scope         int    `json:"scope"`
	ReadKey       string `json:"readKey"`
	GrantExpireAt int64  `json:"grantExpireAt"`
}

// EncryptXRC137 implements xgr_encryptXRC137: it seals the rule document
// under a fresh data key (XGR1), wraps the key for the owner's read key
// (XGRK2, scope 1) and stores the owner grant (rights 7, isOwner) on the
// envelope's fresh RID; the owner then stores the blob in its rule contract
// (setEncrypted). Authorized as the grant methods are: an xdalaPermit
// whose signer is owner. The request is checked (sizes first) before the
// permit; the document never appears in an error or a log.
func (s *Service) EncryptXRC137(ctx context.Context, req EncryptXRC137Request) (*EncryptXRC137Result, error) {
	release, err := s.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	if s.cfg.GrantStore == nil {
		return nil, notConfigured("xgr_encryptXRC137")
	}
	if len(req.JSON) > envelope.MaxRuleBytes {
		return nil, invalid("json", "%d bytes: an XRC-137 document has at most %d", len(req.JSON), envelope.MaxRuleBytes)
	}
	doc := []byte(req.JSON)
	switch t := bytes.TrimSpace(doc); {
	case len(t) == 0:
		return nil, invalid("json", "empty: want the rule document, a JSON object")
	case envelope.IsSealed(t):
		return nil, invalid("json", "already an XGR1 envelope: want the plaintext rule document")
	case t[0] != '{' || !json.Valid(t):
		return nil, invalid("json", "not a JSON object: want the rule document")
	}
	own, err := grant.NormalizeAddress(req.Owner)
	if err != nil {
		return nil, invalid("owner", "%v", err)
	}
	var ref string
	if req.Address != "" {
		if ref, err = grant.NormalizeAddress(req.Address); err != nil {
			return nil, invalid("address", "%v", err)
		}
	}
	now := s.cfg.Now()
	exp := now.Add(DefaultRuleGrantDays * 24 * time.Hour)
	if req.GrantExpireAt != 0 {
		if req.GrantExpireAt <= uint64(now.Unix()) || req.GrantExpireAt > uint64(now.Add(MaxRuleGrantDays*24*time.Hour).Unix()) {
			return nil, invalid("grantExpireAt", "%d: want a time (unix seconds) after now and within %d days", req.GrantExpireAt, MaxRuleGrantDays)
		}
		exp = time.Unix(int64(req.GrantExpireAt), 0)
	}
	to := req.ReadKey
	if to != "" {
		if _, err := envelope.ParsePublicHex(to); err != nil {
			return nil, invalid("readKey", "%v", err)
		}
	} else if s.cfg.ReadKeys == nil {
		return nil, invalid("readKey", "required: this gateway reads no key registry (give the owner's read public key, 0x and 130 hex digits)")
	}
	v, err := s.verify(req.Permit, "permit", permit.KindXdala)
	if err != nil {
		return nil, err
	}
	done, err := s.budget(v.Signer)
	if err != nil {
		return nil, err
	}
	out, err := s.encryptRule(ctx, own, ref, doc, to, exp, v)
	done(err)
	return out, err
}

func (s *Service) encryptRule(ctx context.Context, own, ref string, doc []byte, to string, exp time.Time, v *permit.Verified) (*EncryptXRC137Result, error) {
	if owner(v.Signer) != own {
		return nil, fail(CodeUnauthorized, "owner-mismatch", "owner", "%s differs from the permit's signer %s: the owner signs", own, owner(v.Signer))
	}
	if to == "" {
		raw, err := s.cfg.ReadKeys.ReadKey(ctx, common.HexToAddress(own))
		if err != nil {
			return nil, internal("xgr_encryptXRC137: read key", err)
		}
		if len(raw) == 0 {
			return nil, fail(CodeNotFound, "no-read-key", "readKey", "%s has no read key registered (XRC-563): register one (xgr keys register) or give readKey", own)
		}
		to = "0x" + hex.EncodeToString(raw)
	}
	pub, err := envelope.ParsePublicHex(to)
	if err != nil {
		return nil, fail(CodeNotFound, "no-read-key", "readKey", "the read key registered for %s is unusable: %v", own, err)
	}
	sr, err := envelope.SealRule(doc, pub)
	if err != nil {
		return nil, internal("xgr_encryptXRC137", err)
	}
	rid := grant.RID(sr.Sealed.RID)
	if owner(v.Signer) != own {
		return nil, fail(CodeUnauthorized, "owner-mismatch", "owner", "%s differs from the permit's signer %s: the grant owner signs", own, owner(v.Signer))
	}
	// The RID is the one just sealed: fresh and unguessable, it has no
	// grant and nobody else knows it, so the signer's owner grant needs no
	// decision. Once the contract holds the RID, its grants follow the
	// contract's owner() (xgr_manageGrants), which this grant serves only
	// when the signer is that owner.
	now := s.cfg.Now()
	if err := s.cfg.GrantStore.Put(ctx, rid, grant.ScopeRule, []grant.Grant{{RID: rid, Scope: grant.ScopeRule, Grantee: own, Rights: grant.All,
		ExpireAt: exp, EncDEK: sr.Wrapped.String(), IsOwner: true, Owner: own, GrantedBy: own, RefAddr: ref, UpdatedAt: now}}, now); err != nil {
		return nil, internal("xgr_encryptXRC137", fmt.Errorf("the owner grant on %s: %w", rid, err))
	}
	s.cfg.Log.Info("rule sealed over RPC", "rid", rid, "owner", own, "refAddr", ref)
	return &EncryptXRC137Result{RID: rid.String(), Suite: envelope.Suite, Blob: sr.Sealed.String(), OwnerEncDEK: sr.Wrapped.String(),
		EncDEK: sr.Wrapped.String(), EncDEKHex: "0x" + hex.EncodeToString(sr.Wrapped.Bytes()), Scope: int(grant.ScopeRule),
		ReadKey: envelope.PublicHex(pub), GrantExpireAt: exp.Unix()}, nil
}
