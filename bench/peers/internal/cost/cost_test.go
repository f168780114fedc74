package cost

import (
	"testing"
	"time"
)

func TestBetweenCountsCommandsEvalsAndCPU(t *testing.T) {
	before, err := ParseInfo("# Commandstats\r\ncmdstat_info:calls=1,usec=5\r\ncmdstat_evalsha:calls=2,usec=9\r\n# CPU\r\nused_cpu_sys:1.5\r\nused_cpu_user:0.5\r\n")
	if err != nil {
		t.Fatal(err)
	}
	after, err := ParseInfo("cmdstat_info:calls=3,usec=9\r\ncmdstat_evalsha:calls=5,usec=20\r\ncmdstat_hset:calls=4,usec=1\r\nused_cpu_sys:2.0\r\nused_cpu_user:0.75\r\n")
	if err != nil {
		t.Fatal(err)
	}
	cmds, evals, cpu := Between(before, after)
	if cmds != 7 || evals != 3 || cpu != 750*time.Millisecond {
		t.Errorf("Between = %d commands, %d evals, %s; want 7, 3, 750ms", cmds, evals, cpu)
	}
	if _, err := ParseInfo("cmdstat_get:calls=x\r\n"); err == nil {
		t.Error("calls=x parsed without error")
	}
}
