// Package httpserve hardens xgr's HTTP listeners (the ops/console listener
// of `xgr run` and `xgr dev`, and the JSON-RPC gateway): every server it
// makes has read, write and idle timeouts, a cap on open connections that
// sheds connections holding no request in progress before it makes a new
// client wait, a cap on long-lived streams (server-sent events,
// websockets), and a Host allow list against DNS rebinding.
//
// Long-lived handlers call OpenStream: it lifts the per-request deadlines
// of that one request (a stream outlives WriteTimeout) and counts the
// stream against the listener's cap.
package httpserve
