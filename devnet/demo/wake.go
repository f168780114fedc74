package demo

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The two orchestrations of the wake-up flow (examples/ostc/wake_*.json):
// a session of WaitingFlow opens a case and then waits at WaitingStep;
// a session of WakingFlow, started by another owner, checks out an order
// and its XRC-137 rule's wakeUps wake the waiting process with the order.
const (
	WaitingFlow = "kyc_review"
	WaitingStep = "await_order"
	WakingFlow  = "shop_checkout"
)

// WaitingPayload is the start payload of the waiting session: the
// customer, and the "__wakeUp" allow list that lets sessions of waker
// (another owner) wake WaitingStep, but only by the XRC-137 contract
// wakerRule (the rule whose wakeUps may do it). Addresses are 0x hex.
func WaitingPayload(customer, waker, wakerRule string) (json.RawMessage, error) {
	if customer == "" {
		return nil, fmt.Errorf("wake flow: the customer is empty")
	}
	for name, a := range map[string]string{"waker": waker, "waker rule": wakerRule} {
		if !isAddress(a) {
			return nil, fmt.Errorf("wake flow: %s %q: want a 0x-prefixed 20-byte hex address", name, a)
		}
	}
	return json.Marshal(map[string]any{
		"customer": customer,
		"__wakeUp": map[string]any{
			"steps": map[string]any{
				WaitingStep: map[string]any{
					"internal": map[string]any{
						"allow":      []string{strings.ToLower(waker)},
						"fromXRC137": []string{strings.ToLower(wakerRule)},
					},
				},
			},
		},
	})
}

// WakingPayload is the start payload of the waking session: the order and
// the session to wake (its owner, the runner, and its root id).
func WakingPayload(orderID, target string, targetSession int64) (json.RawMessage, error) {
	if orderID == "" {
		return nil, fmt.Errorf("wake flow: the order id is empty")
	}
	if !isAddress(target) {
		return nil, fmt.Errorf("wake flow: target owner %q: want a 0x-prefixed 20-byte hex address", target)
	}
	if targetSession <= 0 {
		return nil, fmt.Errorf("wake flow: target session %d: want a root id of 1 or more", targetSession)
	}
	return json.Marshal(map[string]any{
		"orderId":      orderID,
		"KycRunner":    strings.ToLower(target),
		"KycSessionId": targetSession,
	})
}

func isAddress(s string) bool {
	h, ok := strings.CutPrefix(s, "0x")
	if !ok || len(h) != 40 {
		return false
	}
	for _, c := range strings.ToLower(h) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
