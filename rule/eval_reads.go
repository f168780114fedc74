package rule

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

// contractRead resolves, performs and maps one contract read.
func (e *evaluation) contractRead(i int, r *ContractRead) error {
	t := e.now()
	rep := ReadReport{Index: i, Function: r.Function}
	defer func() {
		rep.Duration = e.since(t)
		e.res.Reads = append(e.res.Reads, rep)
	}()
	base := jsondoc.Path("contractReads").Index(i)
	fail := func(why string) {
		rep.Error = why
		for _, s := range r.SaveAs {
			e.fallback(&rep.Defaulted, &rep.SoftInvalid, s.Key, s.Type, s.Default, s.HasDefault, true,
				string(base.Key("saveAs").Key(strconv.Itoa(s.Index))), "contract read failed: "+why)
		}
	}
	to, err := e.resolve(r.To)
	var mk *MissingKeysError
	if errors.As(err, &mk) {
		fail("to: " + mk.Error())
		return nil
	}
	if err != nil {
		return &HardError{Stage: "contractReads", Path: string(base.Key("to")), Err: err}
	}
	addr, ok := to.(string)
	if !ok || !IsAddress(addr) {
		return &HardError{Stage: "contractReads", Path: string(base.Key("to")), Err: fmt.Errorf("resolved to %s, not an address", describeValue(to))}
	}
	rep.To = addr
	req := ReadRequest{Index: i, RPC: r.RPC, To: addr, Function: r.Function, Returns: r.returns}
	for j, a := range r.Args {
		ap := string(base.Key("args").Index(j))
		v, err := e.resolve(a.Value)
		if errors.As(err, &mk) {
			if !a.HasDefault {
				fail(fmt.Sprintf("args[%d]: %v", j, mk))
				return nil
			}
			v, err = a.Default, nil
		}
		if err != nil {
			return &HardError{Stage: "contractReads", Path: ap, Err: err}
		}
		c, err := Cast(a.Type, v)
		if err != nil {
			return &HardError{Stage: "contractReads", Path: ap, Err: err}
		}
		req.Args = append(req.Args, ReadArg{Type: a.Type, Value: c})
	}
	if e.src.Reads == nil {
		fail(ErrNoContractReader.Error())
		return nil
	}
	outs, err := e.src.Reads.ReadContract(e.ctx, req)
	if errors.Is(err, ErrInvalidRead) || errors.Is(err, ErrUnavailable) {
		rep.Error = err.Error()
		return &HardError{Stage: "contractReads", Path: string(base), Err: err}
	}
	if err != nil {
		fail(err.Error())
		return nil
	}
	for _, s := range r.SaveAs {
		path := string(base.Key("saveAs").Key(strconv.Itoa(s.Index)))
		if s.Index >= len(outs) {
			e.fallback(&rep.Defaulted, &rep.SoftInvalid, s.Key, s.Type, s.Default, s.HasDefault, true, path,
				fmt.Sprintf("the read returned %d values", len(outs)))
			continue
		}
		v := outs[s.Index]
		if slotErr, ok := v.(error); ok {
			e.fallback(&rep.Defaulted, &rep.SoftInvalid, s.Key, s.Type, s.Default, s.HasDefault, true, path, slotErr.Error())
			continue
		}
		c, err := Cast(s.Type, v)
		if err != nil {
			e.fallback(&rep.Defaulted, &rep.SoftInvalid, s.Key, s.Type, s.Default, s.HasDefault, true, path, err.Error())
			continue
		}
		e.env.setTyped(s.Key, s.Type, c)
		e.res.Extracted[s.Key] = c
	}
	return nil
}
