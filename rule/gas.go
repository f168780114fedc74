package rule

import (
	"math"
	"strconv"
)

// Validation gas: the public engine heuristic v0.2 (XRC-137_Validation_Gas.md)
// over a parsed document. It prices the engine's own work for one step —
// payload checks, contract reads, API calls, rules, the outcome payload,
// execution preparation, encrypted logs and branch waits — never EVM gas.
// The weights below are the guide's table (§4), named as there.
const (
	GasBase                 = 10_000  // gBase: every step
	GasPerRequiredInput     = 1_000   // gPerRequiredInput: an input without a default
	GasPerOptionalInput     = 200     // gPerOptionalInput: an input with a default
	GasPerRuleBase          = 1_200   // gPerRuleBase: each rule
	GasPerOp                = 600     // gPerOp: an operator in a rule, outcome, read or execution expression
	GasPerFunc              = 800     // gPerFunc: a call "name(" in the same places
	GasPerPlaceholder       = 250     // gPerPlaceholder: a "[Key]" in the same places
	GasRegexSurcharge       = 4_000   // gRegexSurcharge: a rule or outcome calling matches( or regex(
	GasPerReadBase          = 6_000   // gPerReadBase: each contract read
	GasPerReadArg           = 600     // gPerReadArg: each read argument
	GasPerReadSave          = 400     // gPerReadSave: each saveAs slot
	GasPerReadDefault       = 250     // gPerReadDefault: each saveAs slot with a default
	GasPerAPICallBase       = 8_000   // gPerAPICallBase: each API call
	GasPerAPIPlaceholder    = 200     // gPerAPIPlaceholder: a placeholder in urlTemplate or bodyTemplate
	GasPerAPIExtract        = 600     // gPerAPIExtract: each extractMap alias
	GasPerAPIExtractFunc    = 400     // gPerAPIExtractFunc: a call in an extract expression
	GasPerAPIExtractOp      = 500     // gPerAPIExtractOp: an operator in an extract expression
	GasAPIMatchesSurcharge  = 4_000   // gAPIMatchesSurcharge: an extract calling matches( or regex(
	GasPerOutcomeKey        = 400     // gPerOutcomeKey: each key of the branch payload
	GasPerOutcomeExpr       = 600     // gPerOutcomeExpr: an outcome value evaluated as an expression
	GasPerExecBase          = 1_200   // gPerExecBase: a branch execution (preparation only)
	GasPerExecArg           = 700     // gPerExecArg: each execution argument
	GasPerExecValue         = 800     // gPerExecValue: an execution value
	GasPerEncryptLogs       = 2_000   // gPerEncryptLogs: a branch with encryptLogs
	GasWaitPerHourPerSpawn  = 200     // gWaitGasPerHourPerSpawn: per started hour of waitSec, per spawned child
	GasMin                  = 15_000  // gMin: the clamp's floor
	GasMax                  = 300_000 // gMax: the clamp's ceiling
	GasHeuristicVersion     = "v0.2"
	gasSecondsPerWaitPeriod = 3600
)

// GasOptions are what the rule document alone does not say.
type GasOptions struct {
	// ValidSpawns and InvalidSpawns are how many children the orchestration
	// step spawns on onValid and onInvalid; they multiply the wait gas.
	ValidSpawns, InvalidSpawns int
	// EncryptLogs is the encryptLogs of a branch that does not set it.
	EncryptLogs bool
}

// GasTokens are the complexity counts of one expression.
type GasTokens struct {
	Ops          int  `json:"ops"`
	Funcs        int  `json:"funcs"`
	Placeholders int  `json:"placeholders"`
	Regex        bool `json:"regex"`
}

// exprGas prices tokens at the rule, outcome, read and execution weights
// (without the regex surcharge, which only rules and outcomes carry).
func (t GasTokens) exprGas() uint64 {
	return satAdd(satAdd(satMul(uint64(t.Ops), GasPerOp), satMul(uint64(t.Funcs), GasPerFunc)),
		satMul(uint64(t.Placeholders), GasPerPlaceholder))
}

// InputGas is the payload part: required and optional inputs.
type InputGas struct {
	Required int    `json:"required"`
	Optional int    `json:"optional"`
	Gas      uint64 `json:"gas"`
}

// ExprGas is the price of one rule, extract or outcome key.
type ExprGas struct {
	// Path is where the expression stands ("rules[0]",
	// "apiCalls[0].extractMap.Price", "onValid.payload.net").
	Path string `json:"path"`
	GasTokens
	// Expression is set for an outcome value evaluated as CEL (the
	// outcome expression surcharge applies); always set for rules and
	// extracts.
	Expression bool   `json:"expression"`
	Gas        uint64 `json:"gas"`
}

// ReadGas is the price of one contract read.
type ReadGas struct {
	Path      string    `json:"path"`
	Args      int       `json:"args"`
	ArgTokens GasTokens `json:"argTokens"`
	Saves     int       `json:"saves"`
	Defaults  int       `json:"defaults"`
	Gas       uint64    `json:"gas"`
}

// APIGas is the price of one API call.
type APIGas struct {
	Path         string    `json:"path"`
	Placeholders int       `json:"placeholders"`
	Extracts     []ExprGas `json:"extracts"`
	Gas          uint64    `json:"gas"`
}

// ExecGas is the preparation price of a branch execution.
type ExecGas struct {
	Args        int       `json:"args"`
	ArgTokens   GasTokens `json:"argTokens"`
	Value       bool      `json:"value"`
	ValueTokens GasTokens `json:"valueTokens"`
	Gas         uint64    `json:"gas"`
}

// WaitGas is the wait part of a branch: ceil(waitSec/3600) × 200 × spawns.
type WaitGas struct {
	WaitSec uint64 `json:"waitSec"`
	Hours   uint64 `json:"hours"`
	Spawns  int    `json:"spawns"`
	Gas     uint64 `json:"gas"`
}

// BranchGas is what one branch adds to the common part, and the step's
// validation gas when the branch is taken.
type BranchGas struct {
	Outcome        []ExprGas `json:"outcome"`
	OutcomeGas     uint64    `json:"outcomeGas"`
	Execution      *ExecGas  `json:"execution,omitempty"`
	Wait           WaitGas   `json:"wait"`
	EncryptLogs    bool      `json:"encryptLogs"`
	EncryptLogsGas uint64    `json:"encryptLogsGas"`
	// Gas is the branch's own part (outcome + execution + wait + logs).
	Gas uint64 `json:"gas"`
	// Unclamped is common + Gas; Total is Unclamped clamped to
	// [GasMin, GasMax].
	Unclamped uint64 `json:"unclamped"`
	Total     uint64 `json:"total"`
}

// GasBreakdown is the validation gas of a document, component by component.
type GasBreakdown struct {
	Version       string    `json:"version"`
	Base          uint64    `json:"base"`
	Inputs        InputGas  `json:"inputs"`
	ContractReads []ReadGas `json:"contractReads"`
	ReadsGas      uint64    `json:"readsGas"`
	APICalls      []APIGas  `json:"apiCalls"`
	APIGas        uint64    `json:"apiGas"`
	Rules         []ExprGas `json:"rules"`
	RulesGas      uint64    `json:"rulesGas"`
	// Common is what every step of the rule costs whatever its outcome:
	// base, inputs, reads, API calls and rules, unclamped.
	Common uint64 `json:"common"`
	// NoBranch is Common clamped: the price of a step that ends before a
	// branch is taken (aborted, cancelled, failed).
	NoBranch  uint64    `json:"noBranch"`
	OnValid   BranchGas `json:"onValid"`
	OnInvalid BranchGas `json:"onInvalid"`
	// WorstCase is the larger of the two branch totals: the quote.
	WorstCase uint64 `json:"worstCase"`
}

// Branch returns the breakdown of onValid (valid) or onInvalid.
func (g *GasBreakdown) Branch(valid bool) *BranchGas {
	if valid {
		return &g.OnValid
	}
	return &g.OnInvalid
}

// ClampGas applies the heuristic's corridor [GasMin, GasMax].
func ClampGas(g uint64) uint64 { return min(max(g, GasMin), GasMax) }

// Gas computes the validation gas of the document. It is pure: the same
// document and options give the same breakdown.
func (d *Document) Gas(opt GasOptions) GasBreakdown {
	g := GasBreakdown{Version: GasHeuristicVersion, Base: GasBase}
	for _, f := range d.Payload {
		if f.HasDefault {
			g.Inputs.Optional++
		} else {
			g.Inputs.Required++
		}
	}
	g.Inputs.Gas = uint64(g.Inputs.Required)*GasPerRequiredInput + uint64(g.Inputs.Optional)*GasPerOptionalInput
	for i, r := range d.ContractReads {
		rg := ReadGas{Path: "contractReads[" + strconv.Itoa(i) + "]", Args: len(r.Args), Saves: len(r.SaveAs)}
		for _, a := range r.Args {
			rg.ArgTokens = rg.ArgTokens.plus(valueTokens(a.Value))
		}
		for _, s := range r.SaveAs {
			if s.HasDefault {
				rg.Defaults++
			}
		}
		rg.Gas = GasPerReadBase + uint64(rg.Args)*GasPerReadArg + rg.ArgTokens.exprGas() +
			uint64(rg.Saves)*GasPerReadSave + uint64(rg.Defaults)*GasPerReadDefault
		g.ReadsGas = satAdd(g.ReadsGas, rg.Gas)
		g.ContractReads = append(g.ContractReads, rg)
	}
	for i, c := range d.APICalls {
		ag := APIGas{Path: "apiCalls[" + strconv.Itoa(i) + "]"}
		if c.URL != nil {
			ag.Placeholders += len(c.URL.Keys())
		}
		if c.Body != nil {
			ag.Placeholders += len(c.Body.Keys())
		}
		ag.Gas = GasPerAPICallBase + uint64(ag.Placeholders)*GasPerAPIPlaceholder
		for _, x := range c.Extract {
			eg := ExprGas{Path: ag.Path + ".extractMap." + x.Alias, Expression: true}
			if x.Expr != nil {
				eg.GasTokens = CountGasTokens(x.Expr.Source)
			}
			eg.Gas = GasPerAPIExtract + uint64(eg.Ops)*GasPerAPIExtractOp + uint64(eg.Funcs)*GasPerAPIExtractFunc
			if eg.Regex {
				eg.Gas += GasAPIMatchesSurcharge
			}
			ag.Gas = satAdd(ag.Gas, eg.Gas)
			ag.Extracts = append(ag.Extracts, eg)
		}
		g.APIGas = satAdd(g.APIGas, ag.Gas)
		g.APICalls = append(g.APICalls, ag)
	}
	for _, r := range d.Rules {
		eg := ExprGas{Path: "rules[" + strconv.Itoa(r.Index) + "]", Expression: true}
		if r.Expr != nil {
			eg.GasTokens = CountGasTokens(r.Expr.Source)
		}
		eg.Gas = GasPerRuleBase + eg.exprGas()
		if eg.Regex {
			eg.Gas += GasRegexSurcharge
		}
		g.RulesGas = satAdd(g.RulesGas, eg.Gas)
		g.Rules = append(g.Rules, eg)
	}
	g.Common = satAdd(satAdd(satAdd(satAdd(g.Base, g.Inputs.Gas), g.ReadsGas), g.APIGas), g.RulesGas)
	g.NoBranch = ClampGas(g.Common)
	g.OnValid = branchGas(d.OnValid, "onValid", opt.ValidSpawns, opt.EncryptLogs, g.Common)
	g.OnInvalid = branchGas(d.OnInvalid, "onInvalid", opt.InvalidSpawns, opt.EncryptLogs, g.Common)
	g.WorstCase = max(g.OnValid.Total, g.OnInvalid.Total)
	return g
}

func branchGas(b *Branch, path string, spawns int, encryptDefault bool, common uint64) BranchGas {
	bg := BranchGas{}
	if b == nil {
		b = &Branch{}
	}
	for _, o := range b.Payload {
		eg := ExprGas{Path: path + ".payload." + o.Key}
		t := valueTokens(o.Value)
		eg.GasTokens = t
		eg.Gas = GasPerOutcomeKey + uint64(t.Placeholders)*GasPerPlaceholder
		// Only a value the engine evaluates as CEL and that does some work
		// outside its placeholders carries the expression surcharge; a lone
		// "[Key]" is passed through like a template.
		if o.Value != nil && !o.Value.IsLiteral && o.Value.Kind == KindExpression && t.Ops+t.Funcs > 0 {
			eg.Expression = true
			eg.Gas += GasPerOutcomeExpr + uint64(t.Ops)*GasPerOp + uint64(t.Funcs)*GasPerFunc
			if t.Regex {
				eg.Gas += GasRegexSurcharge
			}
		}
		bg.OutcomeGas = satAdd(bg.OutcomeGas, eg.Gas)
		bg.Outcome = append(bg.Outcome, eg)
	}
	if x := b.Execution; x != nil {
		eg := &ExecGas{Args: len(x.Args)}
		for _, a := range x.Args {
			eg.ArgTokens = eg.ArgTokens.plus(valueTokens(a.Value))
		}
		eg.Gas = GasPerExecBase + uint64(eg.Args)*GasPerExecArg + eg.ArgTokens.exprGas()
		if x.Value != nil {
			eg.Value = true
			eg.ValueTokens = valueTokens(x.Value.Value)
			eg.Gas += GasPerExecValue + eg.ValueTokens.exprGas()
		}
		bg.Execution = eg
	}
	bg.Wait = WaitGas{WaitSec: b.WaitSec, Spawns: max(spawns, 0)}
	bg.Wait.Hours = b.WaitSec / gasSecondsPerWaitPeriod
	if b.WaitSec%gasSecondsPerWaitPeriod != 0 {
		bg.Wait.Hours++
	}
	bg.Wait.Gas = satMul(satMul(bg.Wait.Hours, GasWaitPerHourPerSpawn), uint64(bg.Wait.Spawns))
	bg.EncryptLogs = encryptDefault
	if b.EncryptLogs != nil {
		bg.EncryptLogs = *b.EncryptLogs
	}
	if bg.EncryptLogs {
		bg.EncryptLogsGas = GasPerEncryptLogs
	}
	bg.Gas = bg.OutcomeGas
	if bg.Execution != nil {
		bg.Gas = satAdd(bg.Gas, bg.Execution.Gas)
	}
	bg.Gas = satAdd(satAdd(bg.Gas, bg.Wait.Gas), bg.EncryptLogsGas)
	bg.Unclamped = satAdd(common, bg.Gas)
	bg.Total = ClampGas(bg.Unclamped)
	return bg
}

// valueTokens counts a branch, read or execution value: nothing for a JSON
// literal, the placeholders of a template (rendered as text, never
// evaluated), the full counts of an expression.
func valueTokens(v *Value) GasTokens {
	switch {
	case v == nil || v.IsLiteral:
		return GasTokens{}
	case v.Kind == KindTemplate && v.Template != nil:
		return GasTokens{Placeholders: len(v.Template.Keys())}
	}
	return CountGasTokens(v.Source)
}

func (t GasTokens) plus(u GasTokens) GasTokens {
	return GasTokens{Ops: t.Ops + u.Ops, Funcs: t.Funcs + u.Funcs, Placeholders: t.Placeholders + u.Placeholders, Regex: t.Regex || u.Regex}
}

func satAdd(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

func satMul(a, b uint64) uint64 {
	if a != 0 && b > math.MaxUint64/a {
		return math.MaxUint64
	}
	return a * b
}
