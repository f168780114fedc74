package rule

import (
	"fmt"
	"sync"
	"testing"
)

func TestDocumentCache(t *testing.T) {
	var c DocumentCache
	raw := readFixture(t, quorumFixture)
	a, err := c.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := c.Parse(append([]byte{}, raw...))
	if a != b || c.Len() != 1 {
		t.Errorf("same bytes parsed twice (len %d)", c.Len())
	}
	if _, err := c.Parse([]byte(`{`)); err == nil || c.Len() != 1 {
		t.Errorf("a rejected document was cached or accepted: %v", err)
	}
	small := DocumentCache{Max: 4}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				if _, err := small.Parse([]byte(fmt.Sprintf(`{"payload": {}, "rules": ["%d == %d"]}`, g, i))); err != nil {
					t.Error(err)
				}
			}
		}(g)
	}
	wg.Wait()
	if small.Len() > 4 {
		t.Errorf("cache grew to %d over its bound 4", small.Len())
	}
}
