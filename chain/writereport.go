package chain

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/xgr-sidecar/xgr/registry"
)

// The reports below are what xgr says about a contract's state or a write
// to it: one struct per command, whose JSON is the --json output and
// whose Fields are the text lines. Each checks the hash the contract
// recorded against keccak256 of the bytes xgr sent or read (Recorded).

// Recorded is a hash a contract recorded next to keccak256 of the bytes
// it was given (LocalHash); Match tells whether they agree.
type Recorded struct {
	Hash      common.Hash `json:"hash"`
	LocalHash common.Hash `json:"localHash"`
	Match     bool        `json:"match"`
}

// Record compares onChain with keccak256 of text (registry.Hash).
func Record(onChain common.Hash, text []byte) Recorded {
	local := registry.Hash(text)
	return Recorded{Hash: onChain, LocalHash: local, Match: onChain == local}
}

// RuleWriteReport is what a rule deployment or update recorded.
type RuleWriteReport struct {
	Rule common.Address `json:"rule"`
	TxSummary
	Version   uint64 `json:"version"`
	Encrypted bool   `json:"encrypted"`
	Recorded
}

// Report is the write of text to the rule contract at rule.
func (w RuleWrite) Report(rule common.Address, text []byte) RuleWriteReport {
	return RuleWriteReport{Rule: rule, TxSummary: Summarize(w.Receipt), Version: w.Version, Encrypted: w.Encrypted, Recorded: Record(w.Hash, text)}
}

// Fields lists the report as output lines.
func (r RuleWriteReport) Fields() []Field {
	f := append([]Field{{"rule", r.Rule.Hex()}}, r.TxSummary.Fields()...)
	f = append(f, Field{"version", fmt.Sprint(r.Version)}, Field{"encrypted", fmt.Sprint(r.Encrypted)})
	return append(f, HashFields(r.Hash, r.LocalHash, "local")...)
}

// RuleView is a rule contract's state (Info) with keccak256 of the text it
// stores.
type RuleView struct {
	RuleInfo
	TextHash common.Hash `json:"textHash"`
}

// View adds the hash of the stored text to the contract's state.
func (i RuleInfo) View() RuleView {
	return RuleView{RuleInfo: i, TextHash: registry.Hash([]byte(i.Text))}
}

// Match reports whether the recorded hash is the stored text's.
func (v RuleView) Match() bool { return v.Hash == v.TextHash }

// Fields lists the view as output lines (the text itself left out).
func (v RuleView) Fields() []Field {
	execs := []string{"none"}
	if len(v.Executors) > 0 {
		execs = execs[:0]
	}
	for _, e := range v.Executors {
		execs = append(execs, e.Hex())
	}
	f := []Field{
		{"rule", v.Address.Hex()},
		{"block", fmt.Sprint(v.Block)},
		{"owner", v.Owner.Hex()},
		{"name", v.Name + " (" + v.SchemaVersion + ")"},
		{"version", fmt.Sprint(v.Version)},
	}
	f = append(f, HashFields(v.Hash, v.TextHash, "local, of stored text")...)
	f = append(f, Field{"encrypted", fmt.Sprint(v.Encrypted)})
	if v.Encrypted {
		f = append(f, Field{"  rid", v.Encryption.RID.Hex()}, Field{"  suite", v.Encryption.Suite}, Field{"  encDEK", hexutil.Encode(v.Encryption.EncDEK)})
	}
	return append(f, Field{"executors", strings.Join(execs, " ")}, Field{"bytes", fmt.Sprint(len(v.Text))})
}

// OSTCWriteReport is what setOSTC recorded.
type OSTCWriteReport struct {
	Registry common.Address `json:"registry"`
	ID       string         `json:"id"`
	TxSummary
	Version uint64 `json:"version"`
	Recorded
}

// Report is the write of text to the registry at reg.
func (w OSTCWrite) Report(reg common.Address, text []byte) OSTCWriteReport {
	return OSTCWriteReport{Registry: reg, ID: w.ID, TxSummary: Summarize(w.Receipt), Version: w.Version, Recorded: Record(w.Hash, text)}
}

// Fields lists the report as output lines.
func (r OSTCWriteReport) Fields() []Field {
	f := append([]Field{{"registry", r.Registry.Hex()}, {"id", r.ID}}, r.TxSummary.Fields()...)
	f = append(f, Field{"version", fmt.Sprint(r.Version)})
	return append(f, HashFields(r.Hash, r.LocalHash, "local")...)
}

// OSTCDeletionReport is what deleteOSTC removed.
type OSTCDeletionReport struct {
	Registry common.Address `json:"registry"`
	Deleted  string         `json:"deleted"`
	TxSummary
	PreviousVersion uint64      `json:"previousVersion"`
	PreviousHash    common.Hash `json:"previousHash"`
}

// Report is the deletion from the registry at reg.
func (d OSTCDeletion) Report(reg common.Address) OSTCDeletionReport {
	return OSTCDeletionReport{Registry: reg, Deleted: d.ID, TxSummary: Summarize(d.Receipt), PreviousVersion: d.PreviousVersion, PreviousHash: d.PreviousHash}
}

// Fields lists the report as output lines.
func (r OSTCDeletionReport) Fields() []Field {
	f := append([]Field{{"registry", r.Registry.Hex()}, {"deleted", r.Deleted}}, r.TxSummary.Fields()...)
	return append(f, Field{"previous version", fmt.Sprint(r.PreviousVersion)}, Field{"previous hash", r.PreviousHash.Hex()})
}

// OSTCMetaReport is what the registry records about one id, checked
// against the text it returns and, optionally, against a local file.
type OSTCMetaReport struct {
	Registry  common.Address `json:"registry"`
	ID        string         `json:"id"`
	Version   uint64         `json:"version"`
	UpdatedAt time.Time      `json:"updatedAt"`
	Hash      common.Hash    `json:"hash"`
	TextHash  common.Hash    `json:"textHash"`
	File      string         `json:"file,omitempty"`
	FileHash  *common.Hash   `json:"fileHash,omitempty"`
	// Match: the recorded hash is the stored text's and (with a file) the
	// file's.
	Match bool `json:"match"`
}

// CheckMeta reads the meta and text of id at one block and compares the
// recorded hash with keccak256 of the text and, when file is not "", of
// fileText.
func (g *Registry) CheckMeta(ctx context.Context, id, file string, fileText []byte) (OSTCMetaReport, error) {
	m, text, err := g.Snapshot(ctx, id)
	if err != nil {
		return OSTCMetaReport{}, err
	}
	r := OSTCMetaReport{Registry: g.Address, ID: id, Version: m.Version, UpdatedAt: m.UpdatedAt, Hash: m.Hash, TextHash: registry.Hash(text), File: file}
	r.Match = r.TextMatch()
	if file != "" {
		fh := registry.Hash(fileText)
		r.FileHash = &fh
		r.Match = r.Match && fh == m.Hash
	}
	return r, nil
}

// TextMatch reports whether the recorded hash is the stored text's.
func (r OSTCMetaReport) TextMatch() bool { return r.TextHash == r.Hash }

// Fields lists the report as output lines.
func (r OSTCMetaReport) Fields() []Field {
	f := []Field{
		{"registry", r.Registry.Hex()},
		{"id", r.ID},
		{"version", fmt.Sprint(r.Version)},
		{"updated at", r.UpdatedAt.Format(time.RFC3339)},
	}
	f = append(f, HashFields(r.Hash, r.TextHash, "local, of stored text")...)
	if r.FileHash != nil {
		f = append(f, HashFields(r.Hash, *r.FileHash, r.File)[1])
	}
	return f
}

// Metas reads the meta of every id of the registry, in the registry's
// order.
func (g *Registry) Metas(ctx context.Context) ([]OSTCMeta, error) {
	ids, err := g.IDs(ctx)
	if err != nil {
		return nil, err
	}
	metas := make([]OSTCMeta, 0, len(ids))
	for _, id := range ids {
		m, err := g.Meta(ctx, id)
		if err != nil {
			return nil, err
		}
		metas = append(metas, m)
	}
	return metas, nil
}

// MetaFields lists metas as output lines: one per id with its version,
// hash and update time.
func MetaFields(metas []OSTCMeta) []Field {
	f := make([]Field, 0, len(metas))
	for _, m := range metas {
		f = append(f, Field{m.ID, fmt.Sprintf("v%d  %s  %s", m.Version, m.Hash.Hex(), m.UpdatedAt.Format(time.RFC3339))})
	}
	return f
}

// RegistryDeployReport is what a registry deployment created: the
// registry, its owner, the transaction, the documents stored at
// deployment (with their recorded hashes) and the executors.
type RegistryDeployReport struct {
	Registry common.Address `json:"registry"`
	Owner    common.Address `json:"owner"`
	TxSummary
	OSTC      []StoredOSTC     `json:"ostc"`
	Executors []common.Address `json:"executors"`
}

// StoredOSTC is one document stored at deployment.
type StoredOSTC struct {
	ID      string `json:"id"`
	Version uint64 `json:"version"`
	Recorded
}

// DeployReport reports the deployment of g in r by owner with init.
func (g *Registry) DeployReport(r *types.Receipt, owner common.Address, init RegistryInit) RegistryDeployReport {
	rep := RegistryDeployReport{Registry: g.Address, Owner: owner, TxSummary: Summarize(r), OSTC: []StoredOSTC{}, Executors: init.Executors}
	if rep.Executors == nil {
		rep.Executors = []common.Address{}
	}
	for i, m := range g.Updates(r) {
		rep.OSTC = append(rep.OSTC, StoredOSTC{ID: m.ID, Version: m.Version, Recorded: Record(m.Hash, init.JSONs[i])})
	}
	return rep
}

// Match reports whether every stored document's recorded hash is its
// text's.
func (r RegistryDeployReport) Match() bool {
	for _, s := range r.OSTC {
		if !s.Match {
			return false
		}
	}
	return true
}

// Fields lists the report as output lines.
func (r RegistryDeployReport) Fields() []Field {
	f := append([]Field{{"registry", r.Registry.Hex()}, {"owner", r.Owner.Hex()}}, r.TxSummary.Fields()...)
	for _, s := range r.OSTC {
		hf := HashFields(s.Hash, s.LocalHash, "local")
		f = append(f, Field{"ostc " + s.ID, fmt.Sprintf("version %d", s.Version)}, Field{"  " + hf[0].Name, hf[0].Value}, Field{"  " + hf[1].Name, hf[1].Value})
	}
	for _, e := range r.Executors {
		f = append(f, Field{"executor", e.Hex()})
	}
	return f
}
