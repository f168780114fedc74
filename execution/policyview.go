package execution

import (
	"fmt"
	"math/big"
	"strings"
)

// PolicyView is the executions: section as `xgr executions policy` and the
// start-up log show it: every limit with its effective value, and the
// settings that let a session owner make the executor key do more than
// call listed functions (Dangers).
type PolicyView struct {
	Enabled bool `json:"enabled"`
	// AnyTarget is targets: any (with allowAnyTarget).
	AnyTarget            bool         `json:"anyTarget"`
	Targets              []TargetView `json:"targets"`
	MaxGasLimit          uint64       `json:"maxGasLimit"`
	MaxFeePerGas         string       `json:"maxFeePerGas"`
	MaxSessionGas        uint64       `json:"maxSessionGas"`
	MaxGasPerOwnerPerDay uint64       `json:"maxGasPerOwnerPerDay"`
	// MaxSpendPerOwnerPerDay is "" when the section sets none;
	// SpendBoundPerOwnerPerDay is then what bounds it: maxGasPerOwnerPerDay
	// × maxFeePerGas + value.maxPerOwnerPerDay (wei).
	MaxSpendPerOwnerPerDay   string `json:"maxSpendPerOwnerPerDay,omitempty"`
	SpendBoundPerOwnerPerDay string `json:"spendBoundPerOwnerPerDay"`
	// Value caps in wei ("0": no value).
	ValueMaxPerExecution   string `json:"valueMaxPerExecution,omitempty"`
	ValueMaxPerSession     string `json:"valueMaxPerSession"`
	ValueMaxPerOwnerPerDay string `json:"valueMaxPerOwnerPerDay"`
	// Dangers are the settings to look at twice, one sentence each.
	Dangers []string `json:"dangers"`
}

// TargetView is one target of a PolicyView.
type TargetView struct {
	Address string `json:"address"`
	// Functions lists the allowed functions, or holds one entry "any" or
	// "any but token moves".
	Functions     []string `json:"functions"`
	PlainTransfer bool     `json:"plainTransfer"`
	// MaxValue is the target's value cap in wei; "" when it allows none.
	MaxValue string `json:"maxValue,omitempty"`
}

// View describes c.
func (c Config) View() PolicyView {
	p := c.Policy
	v := PolicyView{Enabled: c.Enabled, AnyTarget: p.AnyTarget, Targets: []TargetView{}, MaxGasLimit: p.MaxGasLimit,
		MaxFeePerGas: orZero(c.MaxFeePerGas).String(), MaxSessionGas: p.MaxSessionGas, MaxGasPerOwnerPerDay: p.MaxGasPerOwnerPerDay,
		ValueMaxPerSession: orZero(p.Value.MaxPerSession).String(), ValueMaxPerOwnerPerDay: orZero(p.Value.MaxPerOwnerPerDay).String(), Dangers: []string{}}
	if p.Value.MaxPerExecution != nil {
		v.ValueMaxPerExecution = p.Value.MaxPerExecution.String()
	}
	bound := new(big.Int).Mul(new(big.Int).SetUint64(p.MaxGasPerOwnerPerDay), orZero(c.MaxFeePerGas))
	v.SpendBoundPerOwnerPerDay = bound.Add(bound, orZero(p.Value.MaxPerOwnerPerDay)).String()
	if p.MaxSpendPerOwnerPerDay != nil {
		v.MaxSpendPerOwnerPerDay = p.MaxSpendPerOwnerPerDay.String()
		v.SpendBoundPerOwnerPerDay = p.MaxSpendPerOwnerPerDay.String()
	}
	if p.AnyTarget {
		v.Dangers = append(v.Dangers, "targets: any (allowAnyTarget: "+AllowAnyTargetAck+"): every session owner may make the executor key call any contract with any function "+
			"but the standard token moves (an approval scheme of its own, a withdrawal, a mint to themselves); list the targets instead")
	}
	for i, t := range p.Targets {
		tv := TargetView{Address: t.Address.Hex(), PlainTransfer: t.PlainTransfer}
		switch {
		case t.AnyFunction && len(t.Except) > 0:
			tv.Functions = []string{"any but token moves"}
		case t.AnyFunction:
			tv.Functions = []string{"any"}
			v.Dangers = append(v.Dangers, fmt.Sprintf("%s (%s): functions: any allows every function, token moves (transfer, approve, ...) included",
				TargetLimit(i, "functions"), t.Address.Hex()))
		default:
			for _, f := range t.Functions {
				tv.Functions = append(tv.Functions, f.Text)
			}
		}
		if t.Value {
			tv.MaxValue = orZero(t.MaxValue).String()
		}
		v.Targets = append(v.Targets, tv)
	}
	return v
}

// Text is the view as lines for a terminal, dangers first.
func (v PolicyView) Text() string {
	var b strings.Builder
	for _, d := range v.Dangers {
		fmt.Fprintf(&b, "DANGER  %s\n", d)
	}
	fmt.Fprintf(&b, "enabled                  %v\n", v.Enabled)
	if v.AnyTarget {
		fmt.Fprintf(&b, "targets                  any (no plain transfer, no value)\n")
	}
	for i, t := range v.Targets {
		value := "no value"
		if t.MaxValue != "" {
			value = "value up to " + t.MaxValue + " wei each"
		}
		plain := "no plain transfer"
		if t.PlainTransfer {
			plain = "plain transfers"
		}
		fmt.Fprintf(&b, "targets[%d]               %s: functions %s; %s; %s\n", i, t.Address, strings.Join(t.Functions, ", "), plain, value)
	}
	if !v.AnyTarget && len(v.Targets) == 0 {
		fmt.Fprintf(&b, "targets                  none (executions cannot start)\n")
	}
	fmt.Fprintf(&b, "maxGasLimit              %d gas per execution\n", v.MaxGasLimit)
	fmt.Fprintf(&b, "maxFeePerGas             %s wei\n", v.MaxFeePerGas)
	fmt.Fprintf(&b, "maxSessionGas            %d gas per session (a permit's maxTotalGas may lower it)\n", v.MaxSessionGas)
	fmt.Fprintf(&b, "maxGasPerOwnerPerDay     %d gas\n", v.MaxGasPerOwnerPerDay)
	if v.MaxSpendPerOwnerPerDay != "" {
		fmt.Fprintf(&b, "maxSpendPerOwnerPerDay   %s wei\n", v.MaxSpendPerOwnerPerDay)
	} else {
		fmt.Fprintf(&b, "maxSpendPerOwnerPerDay   not set; bounded by maxGasPerOwnerPerDay × maxFeePerGas + value: %s wei\n", v.SpendBoundPerOwnerPerDay)
	}
	if v.ValueMaxPerExecution != "" {
		fmt.Fprintf(&b, "value.maxPerExecution    %s wei\n", v.ValueMaxPerExecution)
	}
	fmt.Fprintf(&b, "value.maxPerSession      %s wei\n", v.ValueMaxPerSession)
	fmt.Fprintf(&b, "value.maxPerOwnerPerDay  %s wei\n", v.ValueMaxPerOwnerPerDay)
	return b.String()
}
