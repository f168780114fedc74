package authority

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/rulesource"
)

// RegistryCheck is what CheckRegistry checks, and with what.
type RegistryCheck struct {
	// Registry is the XRC-729 registry whose orchestrations are checked.
	Registry *chain.Registry
	// IDs are the orchestrations to check; empty: every id of the registry.
	IDs []string
	// Runner is the account that would run the sessions.
	Runner common.Address
	// Backend is the node the registry, the rule contracts and their
	// facts are read from.
	Backend chain.Backend
	// ReadKey is xgr's read key; nil when none is given.
	ReadKey *envelope.ReadKey
	// Account is the account xgr's read key is registered for (a
	// normalized address, grant.NormalizeAddress; "" for none): its READ
	// grants (scope 1) open encrypted rules.
	Account string
	// Grants opens the grant store that holds Account's grants. It is
	// called once, at the first encrypted rule, and only when Account is
	// set; its error is returned as is.
	Grants func() (*grant.Store, error)
	// Now is the clock grants are judged live by.
	Now func() time.Time
}

// RegistryReport is a runner's coverage on a registry's orchestrations
// (the OPS "Rule Executor Coverage" panel) together with whether xgr can
// open every encrypted rule they use. Its JSON is `xgr ostc coverage
// --json`.
type RegistryReport struct {
	RegistryAddress common.Address `json:"registryAddress"`
	Orchestrations  []string       `json:"orchestrations"`
	Coverage
	// Problems are orchestrations that could not be checked (their text
	// does not parse).
	Problems []DocumentProblem `json:"problems,omitempty"`
	Missing  int               `json:"missing"`
	// Encrypted are the rule contracts holding an encrypted document, with
	// whether xgr can decrypt it; Undecryptable counts those it cannot.
	Encrypted     []EncryptedRule `json:"encrypted"`
	Undecryptable int             `json:"undecryptable"`
	// Unread are rule contracts whose stored document could not be read
	// (not an XRC-137 contract xgr can load): not checked for encryption.
	Unread []DocumentProblem `json:"unread,omitempty"`
	OK     bool              `json:"ok"`
}

// EncryptedRule is a rule contract holding an encrypted document and
// whether xgr can decrypt it (Reason says why not, or how it was judged;
// Checked says what was tried).
type EncryptedRule struct {
	Contract common.Address `json:"contract"`
	RID      string         `json:"rid"`
	Decrypts bool           `json:"decrypts"`
	Reason   string         `json:"reason,omitempty"`
	Uses     []Use          `json:"uses,omitempty"`
	Checked  string         `json:"checked"`
}

// DocumentProblem is a document that could not be checked: an
// orchestration id, or a rule contract's address, and why.
type DocumentProblem struct {
	OstcID string `json:"ostcId"`
	Error  string `json:"error"`
}

// ErrGrantStore wraps an error of the grant store: it gave no answer on
// a grant of Account.
var ErrGrantStore = errors.New("grant store")

// CheckRegistry reads the orchestrations of the registry (an unparsable
// one is a Problem), decides the runner's coverage on the registry and on
// every rule contract they reference by address (Checker.Check at one
// block), and judges every rule contract that holds an encrypted document
// (an XGR1 envelope) as xgr run would open it: with ReadKey, the key a
// live READ grant of Account wraps for it, else the contract's own
// encryption header (rulesource.NewKeyOpener). Without ReadKey only the
// presence of Account's grant is checked. Nothing opened is kept.
//
// Errors: a chain read that fails (including a grant lookup that gave no
// answer while opening, rule.ErrUnavailable), the error of Grants, or
// ErrGrantStore.
func CheckRegistry(ctx context.Context, in RegistryCheck) (RegistryReport, error) {
	g := in.Registry
	ids := in.IDs
	if len(ids) == 0 {
		var err error
		if ids, err = g.IDs(ctx); err != nil {
			return RegistryReport{}, err
		}
	}
	rep := RegistryReport{RegistryAddress: g.Address, Orchestrations: ids}
	var orchs []*registry.Orchestration
	for _, id := range ids {
		text, err := g.Get(ctx, id)
		if err != nil {
			return RegistryReport{}, err
		}
		o, err := registry.Parse(text)
		if err != nil {
			rep.Problems = append(rep.Problems, DocumentProblem{OstcID: id, Error: err.Error()})
			continue
		}
		orchs = append(orchs, o)
	}
	cov, err := NewChecker(NewChainReader(in.Backend)).Check(ctx, in.Runner, PlanFor(&g.Address, orchs...))
	if err != nil {
		return RegistryReport{}, err
	}
	rep.Coverage = cov
	rep.Missing = len(cov.Missing())
	if err := in.checkDecryption(ctx, &rep); err != nil {
		return RegistryReport{}, err
	}
	rep.OK = rep.Missing == 0 && len(rep.Problems) == 0 && rep.Undecryptable == 0
	return rep, nil
}

// checkDecryption fills the report's Encrypted, Undecryptable and Unread.
func (in RegistryCheck) checkDecryption(ctx context.Context, rep *RegistryReport) error {
	rep.Encrypted = []EncryptedRule{}
	var grants *grant.Store
	for _, r := range rep.Rules {
		st, err := chain.NewRule(r.Contract, in.Backend).Stored(ctx)
		if err != nil {
			rep.Unread = append(rep.Unread, DocumentProblem{OstcID: r.Contract.Hex(), Error: err.Error()})
			continue
		}
		if !st.Encrypted && !envelope.IsSealed([]byte(st.Text)) {
			continue
		}
		e := EncryptedRule{Contract: r.Contract, Uses: r.Uses}
		sealed, perr := envelope.ParseSealed(st.Text, envelope.MaxRuleBytes)
		if perr != nil {
			e.Reason, e.Checked = "its envelope is unusable: "+perr.Error(), "envelope"
			rep.Encrypted = append(rep.Encrypted, e)
			rep.Undecryptable++
			continue
		}
		e.RID = sealed.RID.String()
		if grants == nil && in.Account != "" {
			if grants, err = in.Grants(); err != nil {
				return err
			}
		}
		if err := in.judge(ctx, &e, grants, st.Text, sealed.RID); err != nil {
			return err
		}
		if !e.Decrypts {
			rep.Undecryptable++
		}
		rep.Encrypted = append(rep.Encrypted, e)
	}
	return nil
}

// judge decides whether xgr can decrypt the rule e, holding blob with rid.
func (in RegistryCheck) judge(ctx context.Context, e *EncryptedRule, grants *grant.Store, blob string, rid envelope.RID) error {
	switch {
	case in.ReadKey != nil:
		plain, err := rulesource.NewKeyOpener(in.ReadKey, grants, in.Account, in.Backend, in.Now).OpenRule(ctx, e.Contract, blob)
		clear(plain)
		e.Checked = "opened with xgr's read key"
		switch {
		case errors.Is(err, rule.ErrUnavailable):
			return err
		case err != nil:
			e.Reason = err.Error()
		default:
			e.Decrypts, e.Reason = true, "opens with xgr's read key"
		}
	case in.Account != "":
		e.Checked = "grant only (no read key given: not opened)"
		_, ok, err := rulesource.StoreGrant(grants, in.Account, in.Now)(ctx, e.Contract, rid)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrGrantStore, err)
		}
		if ok {
			e.Decrypts, e.Reason = true, fmt.Sprintf("%s holds a live READ grant with a wrapped key (not opened: give xgr's read key to check that it opens)", in.Account)
		} else {
			e.Reason = fmt.Sprintf("%s holds no live READ grant (scope 1) on its RID", in.Account)
		}
	default:
		e.Checked = "none"
		e.Reason = fmt.Sprintf("xgr has no read key (--read-key-file, $%s) and no --read-key-account: xgr run refuses encrypted rules", envelope.ReadKeyEnv)
	}
	return nil
}

// Failure says why the report is not OK, in one sentence ("" when it is):
// missing authority, undecryptable rules, orchestrations not checked.
func (r RegistryReport) Failure() string {
	switch {
	case r.Missing > 0 && r.Undecryptable > 0:
		return fmt.Sprintf("runner %s is missing on %d of %d contracts, and xgr cannot decrypt %d encrypted rule(s)", r.Runner.Hex(), r.Missing, len(r.Rules)+1, r.Undecryptable)
	case r.Missing > 0:
		return fmt.Sprintf("runner %s is missing on %d of %d contracts", r.Runner.Hex(), r.Missing, len(r.Rules)+1)
	case r.Undecryptable > 0:
		return fmt.Sprintf("xgr cannot decrypt %d of %d encrypted rule(s)", r.Undecryptable, len(r.Encrypted))
	case len(r.Problems) > 0:
		return fmt.Sprintf("%d orchestration(s) could not be checked", len(r.Problems))
	}
	return ""
}

// WriteText prints the report for a terminal: one row per contract as the
// OPS panel's table (kind, contract, owner, status, the steps that use
// it), then what was not checked, the verdict on each encrypted rule and
// the counts.
func (r RegistryReport) WriteText(out io.Writer) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "runner %s, registry %s, %d orchestration(s)\n", r.Runner.Hex(), r.RegistryAddress.Hex(), len(r.Orchestrations))
	fmt.Fprintln(w, "KIND\tCONTRACT\tOWNER\tSTATUS\tUSED BY")
	row := func(x Row) {
		owner := "no owner()"
		if x.Owner != nil {
			owner = x.Owner.Hex()
		}
		if !x.ExecutorList {
			owner += " (owner-only)"
		}
		uses := make([]string, len(x.Uses))
		for i, u := range x.Uses {
			uses[i] = u.OstcID + ": " + strings.Join(u.Steps, ", ")
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", x.Kind, x.Contract.Hex(), owner, x.Status.Label(), strings.Join(uses, "; "))
	}
	if r.Registry != nil {
		row(*r.Registry)
	}
	for _, x := range r.Rules {
		row(x)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for _, u := range r.Unresolved {
		fmt.Fprintf(out, "not checked: %s step %s: rule %q names no contract address\n", u.OstcID, u.Step, u.Rule)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(out, "not checked: %s: %s\n", p.OstcID, p.Error)
	}
	for _, e := range r.Encrypted {
		verdict := "xgr decrypts it"
		if !e.Decrypts {
			verdict = "xgr CANNOT decrypt it"
		}
		fmt.Fprintf(out, "encrypted rule %s (rid %s): %s: %s\n", e.Contract.Hex(), e.RID, verdict, e.Reason)
	}
	for _, u := range r.Unread {
		fmt.Fprintf(out, "not checked for encryption: rule %s: %s\n", u.OstcID, u.Error)
	}
	if len(r.Encrypted) > 0 {
		fmt.Fprintf(out, "%d encrypted rule(s): %d xgr cannot decrypt\n", len(r.Encrypted), r.Undecryptable)
	}
	counts := map[Status]int{}
	for _, x := range r.Rules {
		counts[x.Status]++
	}
	_, err := fmt.Fprintf(out, "%d rule contract(s): %d has executor, %d owner (implicit), %d missing; registry: %s\n",
		len(r.Rules), counts[StatusExecutor], counts[StatusOwner], counts[StatusMissing], r.Registry.Status.Label())
	return err
}
