package chain

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"

	"github.com/ethereum/go-ethereum/rpc"
)

// IsTransient tells whether err is a failure of the node or of the way to
// it, which may pass: the connection failed or broke (refused, reset,
// EOF), the call timed out or was cancelled, the node answered HTTP 408,
// 429 or 5xx, or a JSON-RPC "limit exceeded" (-32005) or "internal error"
// (-32603). A definite answer is not transient: a revert, no code at the
// address, data that does not decode, a JSON-RPC error about the request.
func IsTransient(err error) bool {
	if err == nil {
		return false
	}
	if _, ok := AsRevert("", err); ok {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var he rpc.HTTPError
	if errors.As(err, &he) {
		return he.StatusCode == http.StatusRequestTimeout || he.StatusCode == http.StatusTooManyRequests || he.StatusCode >= 500
	}
	var hep *rpc.HTTPError
	if errors.As(err, &hep) && hep != nil {
		return hep.StatusCode == http.StatusRequestTimeout || hep.StatusCode == http.StatusTooManyRequests || hep.StatusCode >= 500
	}
	var re rpc.Error
	if errors.As(err, &re) {
		switch re.ErrorCode() {
		case -32005, -32603:
			return true
		}
		return false
	}
	var ne net.Error
	return errors.As(err, &ne)
}
