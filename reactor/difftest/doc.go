// Package difftest holds the differential test of the session's two
// drivers: reactor.Runner (xgr simulate) and the replicas (reactor.Manager,
// xgr run). Its tests run the same orchestration with the same scripted
// outcomes through both, on a real redis-server, and compare the final
// process trees; a difference fails with a shrunk reproduction. The
// orchestrations are the examples in examples/ostc and seeded random ones
// within the registry's rules. How the comparison is made well defined
// while the replicas run concurrently is in docs/testing.md
// ("Differential test of the drivers").
//
// The package has no API: everything is in its tests.
package difftest
