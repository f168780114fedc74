// Package execution carries out a step's XRC-137 execution: the inner
// contract call a selected branch asks for (XRC-137 Rule Document Spec §2
// step 8, §8.3). It checks the operator's policy (targets and their
// functions, plain transfers, value, gas caps; the session's budget and
// the owner's daily gas, value and spend, reserved atomically in Redis)
// and the runner's authority, then hands the call to
// the transaction manager (package txmanager), which sends it on chain
// exactly once per idempotency key.
//
// The session machine (package reactor) sees this package only through
// the Actuator interface: it asks to send a step's call under a key and
// polls the key's outcome until it is final.
package execution
