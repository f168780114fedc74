package indexer

import (
	"fmt"
	"testing"
	"time"
)

func TestBackfillReport(t *testing.T) {
	t0 := time.Unix(1000, 0)
	r := &backfillReport{}
	steps := []struct {
		at   time.Duration
		p    Progress
		want string // the line's attributes, "" for none
	}{
		{0, Progress{From: 0, To: 1999, Head: 10000, Changes: 100}, ""},
		{3 * time.Second, Progress{From: 2000, To: 3999, Head: 10000, Changes: 100}, ""},
		{6 * time.Second, Progress{From: 4000, To: 5999, Head: 10000, Changes: 100},
			"[block 5999 head 10000 remaining 4001 blocks_per_s 999.8333333333334 entries 300 entries_per_s 50 range 2000]"},
		{7 * time.Second, Progress{From: 6000, To: 7999, Head: 10000, Changes: 50}, ""},
		// At the head: no line, however long since the last.
		{20 * time.Second, Progress{From: 8000, To: 10000, Head: 10000, Changes: 50}, ""},
		{27 * time.Second, Progress{From: 10001, To: 10500, Head: 12000, Changes: 0},
			"[block 10500 head 12000 remaining 1500 blocks_per_s 214.33333333333334 entries 100 entries_per_s 4.761904761904762 range 2000]"},
	}
	for i, s := range steps {
		attrs, ok := r.observe(s.p, t0.Add(s.at), 2000)
		got := ""
		if ok {
			got = fmt.Sprint(attrs)
		}
		if got != s.want {
			t.Errorf("step %d: line %q, want %q", i, got, s.want)
		}
	}
}
