package testenv

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// RPCRequest is one JSON-RPC request as a proxy sees it.
type RPCRequest struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      json.RawMessage   `json:"id"`
	Method  string            `json:"method"`
	Params  []json.RawMessage `json:"params"`
}

// RPCResponse is one JSON-RPC answer as a proxy sees it.
type RPCResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// RPCProxy says what a proxy started by StartRPCProxy does besides
// forwarding.
type RPCProxy struct {
	// Answer, when set, may answer a request itself (ok true) instead of
	// forwarding it, alone or inside a batch.
	Answer func(req RPCRequest) (res RPCResponse, ok bool)
	// Rewrite, when set, may change the upstream's answer to a forwarded
	// request.
	Rewrite func(req RPCRequest, res *RPCResponse)
	// RefuseBatch, when set, may refuse a whole batch (a non-nil error):
	// the answer is then that one error object instead of an array, as a
	// node with a batch request limit answers.
	RefuseBatch func(reqs []RPCRequest) *RPCError
}

// StartRPCProxy serves JSON-RPC over HTTP on a loopback port and forwards
// every request, single or in a batch, to upstream, except where p answers
// or rewrites it; a batch's answers keep the order of its requests. It
// returns the proxy's URL and the number of requests it answered itself,
// and stops when the test ends.
func StartRPCProxy(t testing.TB, upstream string, p RPCProxy) (string, *atomic.Int64) {
	var answered atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		batch := bytes.HasPrefix(bytes.TrimSpace(body), []byte("["))
		var reqs []RPCRequest
		if batch {
			if err := json.Unmarshal(body, &reqs); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
		} else {
			var one RPCRequest
			if err := json.Unmarshal(body, &one); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			reqs = []RPCRequest{one}
		}
		if batch && p.RefuseBatch != nil {
			if e := p.RefuseBatch(reqs); e != nil {
				w.Header().Set("Content-Type", "application/json")
				json.NewEncoder(w).Encode(RPCResponse{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: e})
				return
			}
		}
		out := make([]RPCResponse, len(reqs))
		var forward []int
		for i, q := range reqs {
			if p.Answer != nil {
				if res, ok := p.Answer(q); ok {
					res.JSONRPC, res.ID = "2.0", q.ID
					out[i] = res
					answered.Add(1)
					continue
				}
			}
			forward = append(forward, i)
		}
		if len(forward) > 0 {
			fwd := make([]RPCRequest, len(forward))
			for k, i := range forward {
				fwd[k] = reqs[i]
			}
			var raw []byte
			if batch {
				raw, _ = json.Marshal(fwd)
			} else {
				raw, _ = json.Marshal(fwd[0])
			}
			resp, err := http.Post(upstream, "application/json", bytes.NewReader(raw))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var ress []RPCResponse
			if batch {
				err = json.Unmarshal(got, &ress)
			} else {
				var one RPCResponse
				err = json.Unmarshal(got, &one)
				ress = []RPCResponse{one}
			}
			if err != nil {
				http.Error(w, "upstream: "+err.Error(), http.StatusBadGateway)
				return
			}
			byID := map[string]RPCResponse{}
			for _, res := range ress {
				byID[string(res.ID)] = res
			}
			for _, i := range forward {
				res := byID[string(reqs[i].ID)]
				if p.Rewrite != nil {
					p.Rewrite(reqs[i], &res)
				}
				out[i] = res
			}
		}
		w.Header().Set("Content-Type", "application/json")
		if batch {
			json.NewEncoder(w).Encode(out)
		} else {
			json.NewEncoder(w).Encode(out[0])
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &answered
}

// RefuseDeployless answers every eth_call without `to` with an
// invalid-argument error, as a node or gateway that insists on `to` may;
// everything else is forwarded. Pass it as RPCProxy.Answer.
func RefuseDeployless(req RPCRequest) (RPCResponse, bool) {
	if !IsDeployless(req) {
		return RPCResponse{}, false
	}
	return RPCResponse{Error: &RPCError{Code: -32602, Message: "invalid argument 0: the transaction has no to address"}}, true
}

// IsDeployless reports whether req is an eth_call without `to`.
func IsDeployless(req RPCRequest) bool {
	if req.Method != "eth_call" || len(req.Params) == 0 {
		return false
	}
	var call map[string]json.RawMessage
	if json.Unmarshal(req.Params[0], &call) != nil {
		return false
	}
	to, ok := call["to"]
	return !ok || string(to) == "null"
}
