// Package console is xgr's operator web console: JSON read models of the
// sessions in Redis (the list, one session's process graph, its
// orchestration with the processes overlaid, its timeline, the chain index),
// a server-sent event stream that tells open pages to refresh, the actions
// an operator may take (kill a session, wake a waiting process: through the
// JSON-RPC gateway with permits the page's wallet signs, or directly on a
// replica started for it), and the embedded page that shows them (web/,
// plain ES modules and CSS, nothing fetched from elsewhere).
//
// `xgr run` and `xgr dev` mount Handler under /ui on their --listen address.
// The read models reuse the store's inspection reads (joinstore) and the
// reactor's summaries; the pure parts (layout, graphs, timeline, sorting)
// are separate from the HTTP handlers.
package console
