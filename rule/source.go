package rule

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// APIRequest is an API call of a rule document with its templates rendered.
type APIRequest struct {
	// Name is the call's "name", for reports.
	Name    string
	Method  string
	URL     string
	Headers []RenderedHeader
	// Body is the rendered bodyTemplate; nil when there is none.
	Body []byte
	// Timeout is the call's timeoutMs; zero means the caller's default.
	Timeout time.Duration
}

// RenderedHeader is a request header with its value rendered.
type RenderedHeader struct {
	Name  string
	Value string
}

// APIResponse is what came back: the status code and the raw body.
type APIResponse struct {
	Status int
	Body   []byte
}

// APICaller performs the HTTP requests of apiCalls. Implementations decide
// transport, timeouts, response size and which hosts may be reached;
// HTTPCaller is the net/http one. An error or a non-2xx status is a failed
// call: the aliases of the call take their defaults (or are soft-invalid).
type APICaller interface {
	CallAPI(ctx context.Context, req APIRequest) (APIResponse, error)
}

// APICallerFunc adapts a function to APICaller.
type APICallerFunc func(ctx context.Context, req APIRequest) (APIResponse, error)

// CallAPI calls f.
func (f APICallerFunc) CallAPI(ctx context.Context, req APIRequest) (APIResponse, error) {
	return f(ctx, req)
}

// StaticAPI answers API calls by call name with responses fetched earlier
// (recorded, replayed or stubbed). A name it does not hold is a failed call.
type StaticAPI map[string]APIResponse

// CallAPI returns the stored response for req.Name.
func (s StaticAPI) CallAPI(_ context.Context, req APIRequest) (APIResponse, error) {
	r, ok := s[req.Name]
	if !ok {
		return APIResponse{}, fmt.Errorf("no stored response for API call %q", req.Name)
	}
	return r, nil
}

// ReadRequest is a contract read with its address and arguments resolved
// and cast to their XRC types.
type ReadRequest struct {
	// Index is the read's position in "contractReads".
	Index int
	// RPC selects the backend ("rpc"); empty for the default.
	RPC string
	// To is the contract address.
	To string
	// Function is the signature as written, e.g. "balanceOf(address)" or,
	// with the return types, "balanceOf(address)(uint256)".
	Function string
	Args     []ReadArg
	// Returns lists the return slots saveAs names with their types, by
	// ascending index. The spec lets saveAs decide how a signature without
	// return types is decoded.
	Returns []ReturnSlot
}

// ReturnSlot is one return value a read stores.
type ReturnSlot struct {
	Index int
	Type  Type
}

// ReadArg is one resolved argument.
type ReadArg struct {
	Type  Type
	Value any
}

// ContractReader performs eth_call-style reads: ABI-encode, call, decode.
// It returns the decoded return values in order (integers as *big.Int or Go
// integers, addresses and byte strings as 0x hex strings); an element that
// is an error is a slot that could not be decoded, and only that slot takes
// its default (or is soft-invalid). An error wrapping ErrInvalidRead means
// the request cannot be encoded (an argument that does not fit its ABI
// parameter type, a count mismatch): a hard error, as the spec makes casts
// without a conversion path. An error wrapping ErrUnavailable means the
// backend gave no answer (see ErrUnavailable): Evaluate stops with a
// *HardError wrapping it, which a caller may retry. Any other error is a
// failed read (a revert, no code at the address, an unknown backend):
// every saveAs target takes its default (or is soft-invalid).
type ContractReader interface {
	ReadContract(ctx context.Context, req ReadRequest) ([]any, error)
}

// StaticReads answers contract reads by their index in "contractReads"
// with return values fetched earlier. An index it does not hold is a
// failed read.
type StaticReads map[int][]any

// ReadContract returns the stored values for req.Index.
func (s StaticReads) ReadContract(_ context.Context, req ReadRequest) ([]any, error) {
	v, ok := s[req.Index]
	if !ok {
		return nil, fmt.Errorf("no stored result for contractReads[%d]", req.Index)
	}
	return v, nil
}

// ContractReaderFunc adapts a function to ContractReader.
type ContractReaderFunc func(ctx context.Context, req ReadRequest) ([]any, error)

// ReadContract calls f.
func (f ContractReaderFunc) ReadContract(ctx context.Context, req ReadRequest) ([]any, error) {
	return f(ctx, req)
}

// ErrInvalidRead marks a contract read that cannot be encoded; see
// ContractReader.
var ErrInvalidRead = errors.New("invalid contract read")

// ErrUnavailable marks a source that did not answer (the node is down, the
// call timed out, the node refused for rate limits or failed with a server
// error): no definite answer, one that may come on a retry. A contract read
// failing so stops the evaluation with an error wrapping it (taking the
// defaults would make an outcome of the outage, not of the chain); rule
// sources wrap it for rules that cannot be loaded for the same reasons.
var ErrUnavailable = errors.New("source unavailable (node down, timeout, rate limit or server error); retry later")

// Errors of missing sources; a read or call that meets them has failed.
var (
	ErrNoAPICaller      = errors.New("no API caller configured")
	ErrNoContractReader = errors.New("no contract reader configured (contract reads need a chain backend)")
)

// Sources are what Evaluate may consult besides the document and payload.
// All fields are optional.
type Sources struct {
	// API performs apiCalls; nil fails every call.
	API APICaller
	// Reads performs contractReads; nil fails every read.
	Reads ContractReader
	// Clock measures Result.Timings; nil leaves them zero. Evaluation
	// never reads the time otherwise.
	Clock func() time.Time
	// Meta holds the engine's read-only runtime values (e.g. "__sessionId"
	// as a uint64, "__owner", "__pid", "__stepId", "__ostcId"). Rules,
	// templates, expressions and branch payloads read them as [__sessionId]
	// like any key; a payload key of the same name does not override one
	// (the engine's value wins). They are not reported in Result.Inputs and
	// reach the output only where a branch payload writes one to an output
	// key. nil: no meta values (a placeholder for one is a missing key,
	// unless the payload has it).
	Meta map[string]any
}
