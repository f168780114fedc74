package rule

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

// MaxResponseBytes bounds the API response body the core decodes; HTTPCaller
// applies the same default when reading.
const MaxResponseBytes = 1 << 20

// apiCall performs one API call and materialises its aliases.
func (e *evaluation) apiCall(i int, c *APICall) error {
	t := e.now()
	rep := CallReport{Name: c.Name, Method: c.Method}
	defer func() {
		rep.Duration = e.since(t)
		e.res.Calls = append(e.res.Calls, rep)
	}()
	base := jsondoc.Path("apiCalls").Index(i)
	req, missing, hard := e.renderCall(base, c)
	if hard != nil {
		rep.Error = hard.Err.Error()
		return hard
	}
	resp, failure := e.request(req, missing, &rep)
	if failure != nil && isCapError(failure) {
		rep.Error = failure.Error()
		return &HardError{Stage: "apiCalls", Path: string(base), Err: failure}
	}
	if failure != nil {
		rep.Error = failure.Error()
		for _, x := range c.Extract {
			e.fallback(&rep.Defaulted, &rep.SoftInvalid, x.Alias, x.Type, x.Default, x.HasDefault, x.Save,
				string(base.Key("extractMap").Key(x.Alias)), "API call "+strconv.Quote(c.Name)+" failed: "+failure.Error())
		}
		return nil
	}
	savedOut, had := e.env.out["resp"]
	savedCEL := e.env.cel["resp"]
	e.env.set("resp", resp, resp)
	defer func() {
		if had {
			e.env.set("resp", savedOut, savedCEL)
		} else {
			e.env.del("resp")
		}
	}()
	for _, x := range c.Extract {
		path := string(base.Key("extractMap").Key(x.Alias))
		raw, v, err := x.Expr.eval(e.ctx, e.env.cel)
		if err == nil && x.Type != TypeInvalid {
			v, err = Cast(x.Type, v)
		}
		if err != nil {
			if isCapError(err) {
				return &HardError{Stage: "apiCalls", Path: path, Err: err}
			}
			e.fallback(&rep.Defaulted, &rep.SoftInvalid, x.Alias, x.Type, x.Default, x.HasDefault, x.Save, path, err.Error())
			continue
		}
		if x.Type == TypeInvalid {
			// The string form stores the value as evaluated: expressions
			// see the CEL value itself (a big integer stays one).
			e.env.set(x.Alias, v, raw)
		} else {
			e.env.setTyped(x.Alias, x.Type, v)
		}
		if x.Save {
			e.res.Extracted[x.Alias] = v
		}
	}
	return nil
}

// fallback applies a key's default (cast to t) or marks it soft-invalid
// (and missing).
func (e *evaluation) fallback(defaulted, soft *[]string, key string, t Type, def any, hasDef, save bool, path, why string) {
	if hasDef {
		e.env.setTyped(key, t, def)
		if save {
			e.res.Extracted[key] = def
		}
		*defaulted = append(*defaulted, key)
		return
	}
	e.env.del(key)
	*soft = append(*soft, key)
	e.soft = true
	e.reason(ReasonSoftInvalid, path, []string{key}, fmt.Sprintf("[%s] has no value and no default: %s", key, why))
}

// lookup is the value a call template renders for key: the plain value,
// or for uint256 / int256 values the exact integer expressions see, so that
// a whole-value body placeholder renders a JSON number.
func (e *evaluation) lookup(key string) (any, bool) {
	v, ok := e.env.out[key]
	if !ok {
		return nil, false
	}
	switch x := e.env.cel[key].(type) {
	case u256, i256:
		return x, true
	}
	return v, true
}

// renderCall renders the call's templates, each placeholder escaped for
// where it stands (see CallTemplate). A value that cannot stand there
// safely is a hard error at the template's path; missing keys are
// returned for the caller to fail the call.
func (e *evaluation) renderCall(base jsondoc.Path, c *APICall) (APIRequest, []string, *HardError) {
	hard := func(p jsondoc.Path, err error) *HardError {
		return &HardError{Stage: "apiCalls", Path: string(p), Err: err}
	}
	var missing []string
	url, miss, err := c.URL.render(e.lookup)
	if err != nil {
		return APIRequest{}, nil, hard(base.Key("urlTemplate"), err)
	}
	missing = append(missing, miss...)
	req := APIRequest{Name: c.Name, Method: c.Method, URL: url, Timeout: c.Timeout}
	if c.Body != nil {
		body, miss, err := c.Body.render(e.lookup)
		if err != nil {
			return APIRequest{}, nil, hard(base.Key("bodyTemplate"), err)
		}
		missing = append(missing, miss...)
		req.Body = []byte(body)
	}
	for _, h := range c.Headers {
		v, miss, err := h.Value.render(e.lookup)
		if err != nil {
			return APIRequest{}, nil, hard(base.Key("headers").Key(h.Name), err)
		}
		missing = append(missing, miss...)
		req.Headers = append(req.Headers, RenderedHeader{Name: h.Name, Value: v})
	}
	return req, missing, nil
}

// request performs a rendered call and decodes the JSON response
// (numbers as celValue gives them to expressions).
// A returned error is a failed call, except for a response that breaks
// MaxListCap, which is a hard error (guide §5.5.4).
func (e *evaluation) request(req APIRequest, missing []string, rep *CallReport) (any, error) {
	if len(missing) > 0 {
		return nil, &MissingKeysError{Keys: dedupe(missing)}
	}
	rep.URL = req.URL
	if e.src.API == nil {
		return nil, ErrNoAPICaller
	}
	resp, err := e.src.API.CallAPI(e.ctx, req)
	rep.Status = resp.Status
	if err != nil {
		return nil, err
	}
	if resp.Status < 200 || resp.Status > 299 {
		return nil, fmt.Errorf("HTTP status %d", resp.Status)
	}
	if len(resp.Body) > MaxResponseBytes {
		return nil, fmt.Errorf("response of %d bytes exceeds %d", len(resp.Body), MaxResponseBytes)
	}
	var decoded any
	dec := json.NewDecoder(bytes.NewReader(resp.Body))
	dec.UseNumber()
	if err := dec.Decode(&decoded); err != nil {
		return nil, fmt.Errorf("response is not JSON: %v", err)
	}
	if dec.More() {
		return nil, errors.New("response has data after the JSON value")
	}
	n, err := normalize(decoded)
	if err != nil {
		return nil, fmt.Errorf("response: %w", err)
	}
	return celValue(n, true), nil
}

func dedupe(keys []string) []string {
	var out []string
	for _, k := range keys {
		out = appendOnce(out, k)
	}
	return out
}
