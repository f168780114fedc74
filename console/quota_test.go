package console

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// Issue 40: the console shows an owner's usage against the quotas its
// store enforces (a reload through SetQuotas shows at once), and refuses
// a query without an owner address.
func TestQuotaUsage(t *testing.T) {
	hs, _, store := newTestConsole(t, false)
	store.SetQuotas(joinstore.Quotas{Default: joinstore.Quota{LiveSessions: 5, StartsPerMinute: 10}})
	code, body := do(t, http.MethodGet, hs.URL+"/ui/api/quota?owner="+strings.ToUpper(testOwner[:2])[:1]+testOwner[1:], "", false)
	var u joinstore.OwnerUsage
	if err := json.Unmarshal([]byte(body), &u); code != 200 || err != nil {
		t.Fatalf("%d %v %s", code, err, body)
	}
	if u.Owner != testOwner || u.LiveSessions != 1 || u.Quota.LiveSessions != 5 || u.Quota.StartsPerMinute != 10 {
		t.Errorf("usage: %+v", u)
	}
	if code, body := do(t, http.MethodGet, hs.URL+"/ui/api/quota?owner=nobody", "", false); code != 400 || !strings.Contains(body, "want an EVM address") {
		t.Errorf("a bad owner: %d %s", code, body)
	}
}
