// Package authority decides whether a runner may run a session: the
// account that owns the session (the SessionPermit's signer, a CLI start's
// --owner, a trigger's owner) must be authorized on the XRC-729 registry
// and on every XRC-137 rule contract the orchestration references
// (XRC-729 §3.1 and §4.2).
//
// On each contract the runner is authorized as its owner (implicitly) or
// as a member of its executor list (getExecutorList()). A contract without
// getExecutorList() is owner-only; one that answers no owner() authorizes
// nobody. The statuses are the ones of the OPS "Rule Executor Coverage"
// panel: has executor, owner (implicit), missing.
//
// Every rule reference is resolved before authority is decided, exactly
// as the runtime will resolve it (a Resolver: the runtime's
// rulesource.Loader, whose Load reads rules through the same Resolve: the
// rule directory, the config's addresses: bindings, 0x addresses). A
// reference that does not resolve refuses the start (UnresolvedError);
// one that resolves to a local rule file needs no authority.
//
// The decision (Decide) is pure: it judges facts read from the chain. The
// facts come through a Reader; ChainReader reads them from a node at its
// head block and keeps them until the next block. Checker joins the two
// (Admit, Authorize); the start use case (package session) asks it before
// it creates a session, so a refused start creates nothing.
package authority
