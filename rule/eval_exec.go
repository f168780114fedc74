package rule

import (
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

// execution resolves the selected branch's execution (spec §2 step 8,
// §8.3) into the call the engine performs:
//
//   - the environment is the step's, overlaid by the branch's resolved
//     output payload (spec §1: the outcome payload is "an overlay for
//     execution resolution"); an output key whose value equals the
//     environment's keeps its typed view;
//   - "to" resolves by Eval-or-Render to 0x and 40 hex digits, not the
//     zero address;
//   - each args[i] resolves by Eval-or-Render (its default when keys are
//     missing), is cast to its XRC type and then converted to the ABI type
//     of parameter i of "function" (integers range-checked for their
//     size; strings and byte strings at most MaxStringValueLen characters);
//     calldata is the selector and the ABI encoding (go-ethereum's packer);
//   - "value" resolves and casts the same way, then must be a whole number
//     of wei in [0, 2^256-1];
//   - gas.limit is passed as it is (the operator's policy caps it).
//
// A missing key (without a default) is a missingAt, like a branch payload
// value: soft-invalid. Everything else that does not fit is a *HardError
// whose Path names the field, e.g. onValid.execution.args[1].
func (e *evaluation) execution(x *Execution, out map[string]any, base jsondoc.Path) (*execution.Call, *missingAt, error) {
	hard := func(p jsondoc.Path, err error) (*execution.Call, *missingAt, error) {
		return nil, nil, &HardError{Stage: "outcome", Path: string(p), Err: err}
	}
	sig := x.sig
	if sig == nil && x.Function != "" {
		var err error
		if sig, err = ParseExecSignature(x.Function); err != nil {
			return hard(base.Key("function"), err)
		}
	}
	if sig != nil && len(x.Args) != len(sig.Params) {
		return hard(base.Key("args"), fmt.Errorf("function %q takes %d argument(s), args has %d; give one {\"type\", \"value\"} per parameter, in order", x.Function, len(sig.Params), len(x.Args)))
	}
	if sig == nil && len(x.Args) > 0 {
		return hard(base.Key("args"), fmt.Errorf("%d args but no function; a plain value transfer takes no args", len(x.Args)))
	}
	if len(x.Args) > MaxExecArgs {
		return hard(base.Key("args"), fmt.Errorf("%d args; XRC-137 allows at most %d (MaxExecArgs)", len(x.Args), MaxExecArgs))
	}
	ov := e.overlay(out)
	missing := func(p jsondoc.Path, mk *MissingKeysError) (*execution.Call, *missingAt, error) {
		return nil, &missingAt{path: string(p), section: "execution", keys: mk.Keys}, nil
	}
	var mk *MissingKeysError

	if x.To == nil {
		return hard(base.Key("to"), errors.New("missing: an execution needs a target address"))
	}
	v, err := ov.resolve(x.To)
	if errors.As(err, &mk) {
		return missing(base.Key("to"), mk)
	}
	if err != nil {
		return hard(base.Key("to"), err)
	}
	to, ok := v.(string)
	switch {
	case ok && strings.HasPrefix(strings.TrimSpace(to), "${addr:"):
		return hard(base.Key("to"), fmt.Errorf("resolved to %s, an address placeholder nothing substituted; bind it (scenario testSetup.contracts, or write the 0x address)", describeValue(v)))
	case !ok || !IsAddress(to):
		return hard(base.Key("to"), fmt.Errorf("resolved to %s; the target is an address: 0x followed by 40 hex digits", describeValue(v)))
	}
	call := &execution.Call{To: common.HexToAddress(to), Function: x.Function}
	if call.To == (common.Address{}) {
		return hard(base.Key("to"), errors.New("resolved to the zero address; an execution calls a contract or account, never 0x0"))
	}
	if x.GasLimit != nil {
		call.GasLimit = *x.GasLimit
	}

	if sig != nil {
		vals := make([]any, len(x.Args))
		for i, a := range x.Args {
			p := base.Key("args").Index(i)
			c, mk, err := ov.typedArg(a)
			if mk != nil {
				return missing(p, mk)
			}
			if err != nil {
				return hard(p, err)
			}
			if vals[i], err = abiArg(sig.Params[i].Type, a.Type, c); err != nil {
				return hard(p, fmt.Errorf("parameter %d of %q: %w", i, x.Function, err))
			}
		}
		data, err := sig.encode(vals)
		if err != nil {
			return hard(base.Key("args"), fmt.Errorf("ABI encoding of %q: %w", x.Function, err))
		}
		call.Data = data
	} else {
		call.Data = []byte{}
	}

	if x.Value != nil {
		p := base.Key("value")
		c, mk, err := ov.typedArg(x.Value)
		if mk != nil {
			return missing(p, mk)
		}
		if err != nil {
			return hard(p, err)
		}
		wei, why := (*big.Int)(nil), "a boolean is no amount"
		if s, ok := c.(string); ok && len(s) > 80 {
			why = "more than 78 digits"
		} else if _, isBool := c.(bool); !isBool {
			wei, why = castInteger(c, zero, maxUint256)
		}
		if wei == nil {
			return hard(p, fmt.Errorf("resolved to %s (declared %s); the value is wei, a whole number in [0, 2^256-1]%s", describeValue(c), x.Value.Type, because(why)))
		}
		if wei.Sign() > 0 {
			call.Value = wei
		}
	}
	return call, nil, nil
}

// typedArg resolves a typed value (its default when keys are missing)
// and casts it to its XRC type. Strings over MaxStringValueLen are
// refused before they are cast.
func (e *evaluation) typedArg(a *TypedValue) (any, *MissingKeysError, error) {
	v, err := e.resolve(a.Value)
	var mk *MissingKeysError
	if errors.As(err, &mk) {
		if !a.HasDefault {
			return nil, mk, nil
		}
		v, err = a.Default, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if s, ok := v.(string); ok && len(s) > MaxStringValueLen {
		return nil, nil, fmt.Errorf("resolved to a string of %d characters; XRC-137 allows at most %d (MaxStringValueLen)", len(s), MaxStringValueLen)
	}
	c, err := Cast(a.Type, v)
	if err != nil {
		return nil, nil, err
	}
	return c, nil, nil
}

// overlay is the evaluation with the branch output laid over its
// environment (a copy; e is unchanged). Keys whose value equals the
// environment's keep the environment's typed view.
func (e *evaluation) overlay(out map[string]any) *evaluation {
	var changed []string
	for k, v := range out {
		if old, ok := e.env.out[k]; !ok || !reflect.DeepEqual(old, v) {
			changed = append(changed, k)
		}
	}
	if len(changed) == 0 {
		return e
	}
	ov := *e
	ov.env = newVars(len(e.env.out) + len(changed))
	for k, v := range e.env.out {
		ov.env.set(k, v, e.env.cel[k])
	}
	for _, k := range changed {
		n, err := normalize(out[k])
		if err != nil { // outputs passed checkOutput; keep the environment's view
			continue
		}
		ov.env.set(k, n, celValue(n, true))
	}
	return &ov
}
