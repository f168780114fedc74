package benchmark

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseRedisInfo(t *testing.T) {
	for _, tc := range []struct {
		name, info string
		want       redisStats
		err        string
	}{
		{name: "sections", info: "# Commandstats\r\ncmdstat_evalsha:calls=12,usec=340,usec_per_call=28.33,rejected_calls=0,failed_calls=0\r\n" +
			"cmdstat_client|setinfo:calls=2,usec=3,usec_per_call=1.50,rejected_calls=0,failed_calls=0\r\n\r\n" +
			"# CPU\r\nused_cpu_sys:1.500000\r\nused_cpu_user:0.250000\r\nused_cpu_sys_children:9.000000\r\n\r\n" +
			"# Memory\r\nused_memory:1048576\r\nused_memory_human:1.00M\r\n",
			want: redisStats{calls: map[string]int64{"evalsha": 12, "client|setinfo": 2}, cpu: 1750 * time.Millisecond, memory: 1 << 20}},
		{name: "empty", info: "", want: redisStats{calls: map[string]int64{}}},
		{name: "bad calls", info: "cmdstat_get:calls=x,usec=1", err: "cmdstat_get: calls \"x\" is not a number"},
		{name: "bad cpu", info: "used_cpu_user:lots", err: "used_cpu_user \"lots\" is not a number"},
		{name: "bad memory", info: "used_memory:1M", err: "used_memory \"1M\" is not a number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseRedisInfo(tc.info)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v %v, want %+v", got, err, tc.want)
			}
		})
	}
}

func TestCommandsBetween(t *testing.T) {
	before := redisStats{calls: map[string]int64{"evalsha": 10, "info": 3, "zcard": 1}}
	after := redisStats{calls: map[string]int64{"evalsha": 40, "info": 5, "zcard": 51, "hget": 7, "ping": 1}}
	got := commandsBetween(before, after, map[string]int64{"zcard": 50, "ping": 1})
	want := map[string]int64{"evalsha": 30, "hget": 7}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v (INFO and the bench's own calls left out)", got, want)
	}
}

func TestPercentile(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		out := make([]time.Duration, len(ns))
		for i, n := range ns {
			out[i] = time.Duration(n) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	for _, tc := range []struct {
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{nil, 50, 0},
		{ms(7), 99, 7 * time.Millisecond},
		{ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{ms(hundred...), 50, 50 * time.Millisecond},
		{ms(hundred...), 99, 99 * time.Millisecond},
		{ms(hundred...), 100, 100 * time.Millisecond},
	} {
		if got := percentile(tc.sorted, tc.p); got != tc.want {
			t.Errorf("percentile(%d values, %v) = %v, want %v", len(tc.sorted), tc.p, got, tc.want)
		}
	}
}

func TestBenchReportFill(t *testing.T) {
	r := Report{Sessions: 10}
	r.fill(measure{steps: 100, elapsed: 2 * time.Second, roundTrips: 350, redisCPU: 5 * time.Millisecond, clientCPU: 7 * time.Millisecond, mallocs: 20000,
		memoryDelta: 4096, commands: map[string]int64{"evalsha": 200, "eval": 20, "hget": 400},
		latencies: ms3(3, 1, 2)})
	if r.StepsPerSec != 50 || r.SessionsPerSec != 5 || r.RoundtripsPerStep != 3.5 || r.RedisCPUUsPerStep != 50 || r.ClientCPUUsPerStep != 70 ||
		r.RedisCmdsPerStep != 6.2 || r.EvalshaPerStep != 2.2 || r.AllocsPerStep != 200 || r.LatencyP50Us != 2000 ||
		r.LatencyP99Us != 3000 || r.RedisMemoryBytes != 4096 || r.TopCommands[0].Command != "hget" {
		t.Errorf("report: %+v", r)
	}
	empty := Report{Sessions: 1}
	empty.fill(measure{elapsed: time.Second})
	if empty.StepsPerSec != 0 || empty.RoundtripsPerStep != 0 {
		t.Errorf("no steps: %+v", empty)
	}
}

func ms3(a, b, c int) []time.Duration {
	return []time.Duration{time.Duration(a) * time.Millisecond, time.Duration(b) * time.Millisecond, time.Duration(c) * time.Millisecond}
}
