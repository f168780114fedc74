package reactor

import (
	"context"
	"sync/atomic"
)

// ioPool runs the root actors' IO yields on goroutines it keeps: a yield
// goes to an idle goroutine when one waits, else to a new one, which stays
// for the next yields (up to maxIdle idle ones) until the context ends. A
// kept goroutine has the stack the Redis client needs already grown;
// a fresh goroutine per yield paid for growing it on every step.
type ioPool struct {
	ctx  context.Context
	work chan func() // unbuffered: a send succeeds only into an idle goroutine
	idle atomic.Int32
}

// maxIdle bounds the goroutines an ioPool keeps waiting.
const maxIdle = 512

func newIOPool(ctx context.Context) *ioPool {
	return &ioPool{ctx: ctx, work: make(chan func())}
}

// run runs f on a pooled goroutine.
func (p *ioPool) run(f func()) {
	select {
	case p.work <- f:
	default:
		go p.serve(f)
	}
}

func (p *ioPool) serve(f func()) {
	for {
		f()
		if p.idle.Add(1) > maxIdle {
			p.idle.Add(-1)
			return
		}
		select {
		case f = <-p.work:
			p.idle.Add(-1)
		case <-p.ctx.Done():
			p.idle.Add(-1)
			return
		}
	}
}
