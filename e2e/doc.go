// Package e2e holds end-to-end tests: the real xgr binary against a real
// anvil and a real redis-server, both started by the tests through
// testenv (local binaries or containers, see XGR_TEST_PROVIDER);
// the binary reaches them on 127.0.0.1 either way.
package e2e
