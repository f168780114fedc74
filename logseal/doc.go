// Package logseal holds the log-bundle sealer: it implements
// evidence.Sealer with package envelope (an XGR1 envelope under a fresh
// data key, the key wrapped per reader as XGRK2 in scope 2) and the read
// keys the readers registered in an XRC-563 key registry
// (chain.KeyRegistry). It fails closed: when the registry cannot
// be read, or encryption fails, it returns an error and nothing, so the
// bundle is not stored; a reader without a registered (valid) read key is
// reported in Sealed.Missing and gets no wrapped key.
package logseal
