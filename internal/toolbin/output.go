package toolbin

import (
	"bytes"
	"sync"
)

// Output collects what a child process prints: exec's copying goroutines
// write it while the caller reads it (a failed test prints it), so every
// access takes a lock.
type Output struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write implements io.Writer.
func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

// String is everything written so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}
