package demo

import (
	"strings"
	"testing"
	"time"
)

const (
	home  = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
	other = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"
)

func TestFinishedLine(t *testing.T) {
	for _, c := range []struct {
		s    Session
		want string
	}{
		{Session{Owner: home, ID: 7, Status: StatusOK, Steps: 8, Duration: 312400 * time.Microsecond}, "session 7 finished (ok, 8 steps, 312ms)"},
		{Session{Owner: other, ID: 1, Status: StatusOK, Steps: 1, Duration: 1500 * time.Millisecond}, "session 1 of 0x7099…79c8 finished (ok, 1 step, 1.5s)"},
		{Session{Owner: strings.ToUpper(home[:2]) + home[2:], ID: 2, Status: StatusFailed}, "session 2 finished (failed, 0 steps, 0s)"},
	} {
		if got := FinishedLine(c.s, home); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}

func TestWriteTable(t *testing.T) {
	list := []Session{
		{Owner: other, ID: 1, Flow: "shop_checkout", Status: StatusOK, Steps: 1, Duration: 20 * time.Millisecond, Result: "checked out"},
		{Owner: home, ID: 2, Flow: "nested_join_example", Status: StatusOK, Steps: 8, Duration: 300 * time.Millisecond, Result: strings.Repeat("x", 100)},
		{Owner: home, ID: 1, Flow: "kyc_review", Status: StatusLive, Steps: 1},
	}
	Sort(list, home)
	var b strings.Builder
	if err := WriteTable(&b, list, home); err != nil {
		t.Fatal(err)
	}
	want := "SESSION           FLOW                 STATUS  STEPS  DURATION  RESULT\n" +
		"1                 kyc_review           live    1      -         -\n" +
		"2                 nested_join_example  ok      8      300ms     " + strings.Repeat("x", MaxResult-1) + "…\n" +
		"1 of 0x7099…79c8  shop_checkout        ok      1      20ms      checked out\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWakePayloads(t *testing.T) {
	rule := "0x5FC8d32690cc91D4c39d9d3abcBD16989F875707"
	p, err := WaitingPayload("alice", other, rule)
	want := `{"__wakeUp":{"steps":{"await_order":{"internal":{"allow":["` + other + `"],"fromXRC137":["` + strings.ToLower(rule) + `"]}}}},"customer":"alice"}`
	if err != nil || string(p) != want {
		t.Errorf("WaitingPayload: %s, %v\nwant %s", p, err, want)
	}
	p, err = WakingPayload("order-1", home, 3)
	if err != nil || string(p) != `{"KycRunner":"`+home+`","KycSessionId":3,"orderId":"order-1"}` {
		t.Errorf("WakingPayload: %s, %v", p, err)
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{second(WaitingPayload("", other, rule)), "the customer is empty"},
		{second(WaitingPayload("alice", "0x12", rule)), `waker "0x12": want a 0x-prefixed 20-byte hex address`},
		{second(WaitingPayload("alice", other, "nope")), `waker rule "nope"`},
		{second(WakingPayload("", home, 1)), "the order id is empty"},
		{second(WakingPayload("o", "0xZZ97970c51812dc3a010c7d01b50e0d17dc79c8", 1)), "target owner"},
		{second(WakingPayload("o", home, 0)), "target session 0: want a root id of 1 or more"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%v, want %q", c.err, c.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }
