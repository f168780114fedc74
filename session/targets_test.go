package session

import (
	"reflect"
	"strings"
	"testing"
)

// Every argument names a session (ROOTPID) or a process (ROOTPID:ITER),
// never a bare iteration: "245 244 243" is three sessions, and the
// documented "7 7:3" is process 7:3.
func TestParseTargets(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []Target
	}{
		{[]string{"245", "244", "243"}, []Target{{RootPid: 245}, {RootPid: 244}, {RootPid: 243}}},
		{[]string{"7"}, []Target{{RootPid: 7}}},
		{[]string{"7", "7:3", "7:4"}, []Target{{RootPid: 7, Iters: []int64{3, 4}}}},
		{[]string{"7:3", "8:1", "7:4"}, []Target{{RootPid: 7, Iters: []int64{3, 4}}, {RootPid: 8, Iters: []int64{1}}}},
	} {
		got, err := ParseTargets(c.args)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: %+v %v, want %+v", c.args, got, err, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "name a session (ROOTPID) or processes (ROOTPID:ITER)"},
		{[]string{"7", "8:3"}, "pid 8:3 is not in session 7"},
		{[]string{"7", "8", "7:3"}, "name whole sessions (ROOTPID…) or processes (ROOTPID:ITER…), not both"},
		{[]string{"7:3", "7"}, "not both"},
		{[]string{"7", "x"}, `"x": want a session's root pid`},
		{[]string{"7", "0"}, `"0": want a session's root pid`},
		{[]string{"7", "7:0"}, `pid "7:0": want <rootPid>:<iter>`},
		{[]string{"7", "7"}, "7 is named twice"},
		{[]string{"7:3", "7:3"}, "7:3 is named twice"},
	} {
		if _, err := ParseTargets(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}
