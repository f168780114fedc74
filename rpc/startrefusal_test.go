package rpc

import (
	"testing"

	"github.com/xgr-sidecar/xgr/session"
)

// Every kind of the start use case has a gateway answer.
func TestStartRefusalsCoverEveryKind(t *testing.T) {
	for _, k := range session.Kinds {
		if r, ok := startRefusals[k]; !ok || r.code == 0 || r.reason == "" {
			t.Errorf("kind %s: no gateway answer", k)
		}
	}
}
