package redisstat

import (
	"testing"
)

func TestParseSubWithoutCPU(t *testing.T) {
	before, err := Parse("# Commandstats\r\ncmdstat_evalsha:calls=10,usec=400,usec_per_call=40.00\r\ncmdstat_hset:calls=30,usec=120,usec_per_call=4.00\r\n")
	if err != nil {
		t.Fatal(err)
	}
	after, err := Parse("cmdstat_evalsha:calls=20,usec=800,usec_per_call=40.00\r\ncmdstat_hset:calls=60,usec=240\r\ncmdstat_hget:calls=5,usec=10\r\ncmdstat_info:calls=2,usec=50\r\nused_memory:1\r\n")
	if err != nil {
		t.Fatal(err)
	}
	d := after.Sub(before).Without(map[string]int64{"hget": 5})
	if d.Calls() != 40 || d["evalsha"].Calls != 10 || d["hset"].Calls != 30 || d["info"].Calls != 0 || d["hget"].Calls != 0 {
		t.Fatalf("delta %+v", d)
	}
	// The script's commands run inside its EVALSHA: only what was sent
	// from outside counts as Redis CPU.
	if got := d.CPU(map[string]int64{"evalsha": 10}); got != 400 {
		t.Fatalf("CPU %v, want 400 (the EVALSHAs' time, not their hsets' again)", got)
	}
	if got := d.Usec(); got != 520 {
		t.Fatalf("Usec %v, want 520", got)
	}
}

func TestParseRejectsBadNumbers(t *testing.T) {
	if _, err := Parse("cmdstat_get:calls=x,usec=1\r\n"); err == nil {
		t.Fatal("a calls field that is not a number was accepted")
	}
}
