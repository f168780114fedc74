package rpc

// noMetadata replaces go-ethereum's built-in "rpc" namespace, which every
// gethrpc.Server registers: rpc_modules would list the gateway's
// namespaces to anyone. The gateway describes itself in its docs only, so
// the method answers as a method that does not exist.
type noMetadata struct{}

// Modules answers rpc_modules as an unknown method.
func (noMetadata) Modules() (map[string]string, error) {
	return nil, methodNotFound("rpc_modules")
}

// methodNotFound is JSON-RPC's "method not found" (-32601), worded as
// go-ethereum words it for methods that are not registered.
type methodNotFound string

func (m methodNotFound) Error() string {
	return "the method " + string(m) + " does not exist/is not available"
}

// ErrorCode implements go-ethereum's rpc.Error.
func (methodNotFound) ErrorCode() int { return -32601 }
