// Package sched is a work-stealing scheduler for state machines: the
// session manager runs one root actor per live session on it.
//
// A Process is stepped with the events that arrived for it (yield
// completions, messages, cancellation) and answers with a status and
// yields, commands the scheduler hands to a Handler. The handler reports
// each outcome with CompleteYield, at once or later from any goroutine.
// Processes address each other by PID with Send.
//
// Workers (GOMAXPROCS by default) each own a Chase-Lev deque. A worker looks
// for work in its own deque first (LIFO, no lock), then in the global FIFO
// that takes submissions and wake-ups from outside (taking one process and
// moving up to 16 more into its deque), then steals half of a random
// victim's deque in one CAS. A worker without work spins (a tight retry,
// then runtime.Gosched) and then sleeps on a condition variable; the
// wake-up protocol in parking.go never leaves work queued while workers
// sleep.
//
// A process is Ready (queued), Running, Blocked, Idle or Complete; the
// transitions are pure functions (state.go) applied with compare-and-swap
// and checked over every interleaving with concurrent notifiers. An event
// that arrives while its process runs sets a wakeup flag, and the worker
// re-enqueues the process after dispatching its yields instead of parking
// it. Each process has an MPSC event queue: many producers, one consumer
// (the worker that runs it).
//
// Shutdown cancels every live process, waits for them or its context, stops
// the workers and reports the processes that did not finish.
package sched
