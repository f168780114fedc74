// Package e2e holds end-to-end tests: the real xgr binary against a real
// anvil and a real redis-server, both started by the tests.
package e2e
