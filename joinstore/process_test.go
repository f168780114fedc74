package joinstore

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// A record with every field a running process has (the root process, with
// step limits), and one with every field of a join target.
var (
	runningFields = map[string]string{
		"pid": "7:1", "parentPid": "", "threadHeadPid": "7:1", "status": "running", "paused": "0",
		"resumeStep": "A1", "lastStep": "A0", "lastEvalValid": "1", "abortReason": "",
		"resumePlain": `{"n":18446744073709551617}`, "joinGroupId": "0",
		"nextWakeAt": "1800000000100", "createdAt": "1800000000000", "updatedAt": "1800000000200", "killedAt": "",
		"lease": "12", "leaseUntil": "1800000030000", "worker": "r1", "reserved": "3:2", "reserve": "2", "bypass": "1",
	}
	targetFields = map[string]string{
		"pid": "7:4", "parentPid": "7:1", "threadHeadPid": "7:1", "status": "aborted", "paused": "1",
		"resumeStep": "J1", "lastEvalValid": "0", "abortReason": "killed", "resumePlain": `{}`, "joinGroupId": "2",
		"nextWakeAt": "5", "createdAt": "4", "updatedAt": "6", "killedAt": "6",
		"target": "1", "joinFromGroupId": "4", "expect": `["B1","C1","D1"]`, "requireWhen": `{"B1":"valid","C1":"invalid","D1":"any"}`,
		"k": "2", "policy": "kill", "inbox": `{"B1":{"b":0.10000000000000000001}}`, "fromSeen": `{"7:5":true}`,
		"fail": `{"C1":"aborted"}`, "closed": "1", "closedAt": "6",
	}
)

func TestParseProcess(t *testing.T) {
	yes, no := true, false
	with := func(m map[string]string, k, v string) map[string]string {
		out := map[string]string{}
		for key, val := range m {
			out[key] = val
		}
		if v == "-" {
			delete(out, k)
		} else {
			out[k] = v
		}
		return out
	}
	cases := []struct {
		name   string
		fields map[string]string
		want   Process
	}{
		{"every field of a running process", runningFields, Process{
			Iter: 1, Pid: "7:1", ThreadHeadPid: "7:1", Status: StatusRunning, ResumeStep: "A1", LastStep: "A0", Valid: &yes,
			ResumePlain: json.RawMessage(`{"n":18446744073709551617}`), JoinGroupID: "0",
			NextWakeAt: time.UnixMilli(1800000000100), CreatedAt: time.UnixMilli(1800000000000), UpdatedAt: time.UnixMilli(1800000000200),
			Lease:   &Lease{Token: 12, Holder: "r1", Until: time.UnixMilli(1800000030000), FirstChild: 3, Reserved: 2},
			Reserve: 2, Bypass: true,
		}},
		{"every field of a join target", targetFields, Process{
			Iter: 4, Pid: "7:4", ParentPid: "7:1", ThreadHeadPid: "7:1", Status: StatusAborted, Paused: true, ResumeStep: "J1",
			Valid: &no, AbortReason: "killed", ResumePlain: json.RawMessage(`{}`), JoinGroupID: "2",
			NextWakeAt: time.UnixMilli(5), CreatedAt: time.UnixMilli(4), UpdatedAt: time.UnixMilli(6), KilledAt: time.UnixMilli(6),
			Join: &JoinTarget{FromGroupID: "4", K: 2, Policy: registry.PolicyKill,
				From:  []registry.From{{Node: "B1", When: registry.WhenValid}, {Node: "C1", When: registry.WhenInvalid}, {Node: "D1"}},
				Inbox: json.RawMessage(`{"B1":{"b":0.10000000000000000001}}`), FromSeen: json.RawMessage(`{"7:5":true}`),
				Fail: json.RawMessage(`{"C1":"aborted"}`), Closed: true, ClosedAt: time.UnixMilli(6)},
		}},
		{"no fields", map[string]string{}, Process{}},
		{"a committed process: the lease fields cleared", with(with(with(with(runningFields, "lease", ""), "leaseUntil", ""), "worker", ""), "reserved", ""),
			Process{Iter: 1, Pid: "7:1", ThreadHeadPid: "7:1", Status: StatusRunning, ResumeStep: "A1", LastStep: "A0", Valid: &yes,
				ResumePlain: json.RawMessage(`{"n":18446744073709551617}`), JoinGroupID: "0",
				NextWakeAt: time.UnixMilli(1800000000100), CreatedAt: time.UnixMilli(1800000000000), UpdatedAt: time.UnixMilli(1800000000200),
				Reserve: 2, Bypass: true}},
		{"a target missing its optional fields", map[string]string{"pid": "7:4", "target": "1", "policy": "drain"},
			Process{Iter: 4, Pid: "7:4", Join: &JoinTarget{}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseProcess(c.fields)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
				if got.Join != nil && c.want.Join != nil {
					t.Errorf("join got  %+v\njoin want %+v", *got.Join, *c.want.Join)
				}
			}
		})
	}

	bad := []struct{ field, value string }{
		{"pid", "7"}, {"status", "finished"}, {"paused", "yes"}, {"lastEvalValid", "true"},
		{"resumePlain", `{"n":`}, {"nextWakeAt", "soon"}, {"createdAt", "1.5e12"}, {"updatedAt", "x"}, {"killedAt", "now"},
		{"lease", "twelve"}, {"leaseUntil", "later"}, {"reserved", "3"}, {"reserved", "a:2"}, {"reserve", "two"}, {"bypass", "2"},
	}
	for _, b := range bad {
		name := "7:1"
		if b.field == "pid" {
			name = b.value
		}
		if _, err := ParseProcess(with(runningFields, b.field, b.value)); !errors.Is(err, ErrBadRecord) ||
			!strings.Contains(err.Error(), "process "+name+": field "+b.field+" "+strconv.Quote(b.value)) {
			t.Errorf("%s %q: %v, want an error naming the process, the field and the value", b.field, b.value, err)
		}
	}
	badTarget := []struct{ field, value string }{
		{"target", "yes"}, {"k", "two"}, {"policy", "wait"}, {"expect", `"B1"`}, {"requireWhen", `["B1"]`},
		{"requireWhen", `{"B1":"sometimes"}`}, {"inbox", "{"}, {"fromSeen", "["}, {"fail", "}"}, {"closed", "true"}, {"closedAt", "x"},
	}
	for _, b := range badTarget {
		if _, err := ParseProcess(with(targetFields, b.field, b.value)); !errors.Is(err, ErrBadRecord) ||
			!strings.Contains(err.Error(), "process 7:4: field "+b.field+" ") {
			t.Errorf("%s %q: %v, want an error naming the process and the field", b.field, b.value, err)
		}
	}
	// A record without a pid is named by what the caller knows of it.
	if _, err := parseProcess("7:9", map[string]string{"k": "x", "target": "1"}); err == nil || !strings.Contains(err.Error(), "process 7:9: field k") {
		t.Errorf("a record without pid: %v", err)
	}
}

// Process JSON: the stored names, numbers as numbers, flags as booleans,
// times in RFC 3339 with milliseconds in UTC, payloads as JSON (digits as
// stored), the lease and the join fields as objects.
func TestProcessJSON(t *testing.T) {
	run, err := ParseProcess(runningFields)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	const wantRun = `{"iter":1,"pid":"7:1","parentPid":"","threadHeadPid":"7:1","status":"running","paused":false,"resumeStep":"A1",` +
		`"lastStep":"A0","lastEvalValid":true,"resumePlain":{"n":18446744073709551617},"joinGroupId":"0",` +
		`"nextWakeAt":"2027-01-15T08:00:00.100Z","createdAt":"2027-01-15T08:00:00.000Z","updatedAt":"2027-01-15T08:00:00.200Z",` +
		`"lease":{"token":12,"holder":"r1","until":"2027-01-15T08:00:30.000Z","firstChild":3,"reserved":2},"reserve":2,"bypass":true}`
	if string(b) != wantRun {
		t.Errorf("running process:\n%s\nwant\n%s", b, wantRun)
	}
	target, err := ParseProcess(targetFields)
	if err != nil {
		t.Fatal(err)
	}
	if b, err = json.Marshal(target); err != nil {
		t.Fatal(err)
	}
	const wantTarget = `{"iter":4,"pid":"7:4","parentPid":"7:1","threadHeadPid":"7:1","status":"aborted","paused":true,"resumeStep":"J1",` +
		`"lastEvalValid":false,"abortReason":"killed","resumePlain":{},"joinGroupId":"2",` +
		`"nextWakeAt":"1970-01-01T00:00:00.005Z","createdAt":"1970-01-01T00:00:00.004Z","updatedAt":"1970-01-01T00:00:00.006Z","killedAt":"1970-01-01T00:00:00.006Z",` +
		`"join":{"fromGroupId":"4","expect":["B1","C1","D1"],"requireWhen":{"B1":"valid","C1":"invalid","D1":"any"},"k":2,"policy":"kill",` +
		`"inbox":{"B1":{"b":0.10000000000000000001}},"fromSeen":{"7:5":true},"fail":{"C1":"aborted"},"closed":true,"closedAt":"1970-01-01T00:00:00.006Z"}}`
	if string(b) != wantTarget {
		t.Errorf("join target:\n%s\nwant\n%s", b, wantTarget)
	}
	if b, _ = json.Marshal(Process{}); string(b) != `{"iter":0,"pid":"","parentPid":"","status":"","paused":false,"resumeStep":"","lastEvalValid":null,"joinGroupId":""}` {
		t.Errorf("an empty record: %s", b)
	}
}

// Process and Processes read records through ParseProcess: a field that
// does not parse is an error naming the process and the field.
func TestStoreReadsTypedProcesses(t *testing.T) {
	ctx := context.Background()
	rdb := testenv.StartRedis(t).Client()
	s := New(rdb, Config{SessionTTL: time.Hour})
	t0 := time.UnixMilli(1_800_000_000_000)
	a, err := s.Start(ctx, StartRequest{Owner: "0x00000000000000000000000000000000000000aa", StartStep: "A1", Now: t0,
		Payload: json.RawMessage(`{"n":18446744073709551617}`)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Process(ctx, a.Root, 1)
	if err != nil || p.Iter != 1 || p.Pid != a.Root.Pid(1) || p.Status != StatusWaiting || !p.CreatedAt.Equal(t0) ||
		!p.NextWakeAt.Equal(t0) || p.Lease != nil || p.Join != nil || p.Valid != nil || string(p.ResumePlain) != `{"n":18446744073709551617}` {
		t.Fatalf("the root process: %+v %v", p, err)
	}
	if all, err := s.Processes(ctx, a.Root); err != nil || len(all) != 1 || !reflect.DeepEqual(all[0], p) {
		t.Fatalf("processes: %+v %v", all, err)
	}
	rdb.HSet(ctx, keysOf(a.Root).proc(1), "nextWakeAt", "soon")
	want := "process " + a.Root.Pid(1) + ": field nextWakeAt"
	if _, err := s.Process(ctx, a.Root, 1); !errors.Is(err, ErrBadRecord) || !strings.Contains(err.Error(), want) {
		t.Errorf("Process of a broken record: %v", err)
	}
	if _, err := s.Processes(ctx, a.Root); !errors.Is(err, ErrBadRecord) || !strings.Contains(err.Error(), want) {
		t.Errorf("Processes of a broken record: %v", err)
	}
}
