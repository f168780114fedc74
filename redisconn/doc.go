// Package redisconn is the typed configuration of the Redis that holds
// xgr's state — one server by address or URL (rediss:// for TLS, unix://
// or a path for a socket), a Redis Cluster by its seed addresses, or a
// master through Sentinel — and how a client is opened from it. The CLI's
// --redis, --redis-cluster, --redis-sentinel, --redis-master and
// --redis-password-file flags fill a Config; the replica process opens it.
//
// Every error that can hold an address is free of the address's password
// (internal/redact), and a Redis that does not answer is reported in the
// operator's words: "Redis at 127.0.0.1:1 (--redis / XGR_REDIS):
// connection refused".
package redisconn
