package rule

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// allocated runs f and returns the bytes it allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// wantCapError checks a hard error at stage and path that wraps sentinel
// and names the cap.
func wantCapError(t *testing.T, err error, stage, path string, sentinel error, capName string) {
	t.Helper()
	var he *HardError
	if !errors.As(err, &he) || he.Stage != stage || he.Path != path || !errors.Is(err, sentinel) || !strings.Contains(err.Error(), capName) {
		t.Fatalf("got %v; want a hard error at %s %s wrapping %v and naming %s", err, stage, path, sentinel, capName)
	}
}

// The security review's amplifier: an 8190-character template repeating a
// 250 KB payload value 2730 times would render 650 MiB.
func TestTemplateRepeatingAValueIsRefused(t *testing.T) {
	tmpl := strings.Repeat("[A]", 2730)
	if len(tmpl) > MaxStringValueLen {
		t.Fatalf("template of %d characters is over MaxStringValueLen", len(tmpl))
	}
	d := mustParse(t, []byte(`{"payload": {}, "rules": ["true"], "onValid": {"payload": {"t": "`+tmpl+`"}}}`))
	in := map[string]any{"A": strings.Repeat("a", 250_000)}
	var err error
	alloc := allocated(func() { _, err = Evaluate(context.Background(), d, in, Sources{}) })
	wantCapError(t, err, "outcome", "onValid.payload.t", ErrValueTooLarge, "MaxValueBytes")
	if alloc > 16<<20 {
		t.Errorf("allocated %d MiB before refusing", alloc>>20)
	}
}

// The same amplifier in an API call's body and URL: refused before the
// call is made, with escaping counted (a query value of "&" is three times
// as long escaped).
func TestCallTemplateRepeatingAValueIsRefused(t *testing.T) {
	calls := 0
	api := APICallerFunc(func(context.Context, APIRequest) (APIResponse, error) {
		calls++
		return APIResponse{Status: 200, Body: []byte(`{"ok": true}`)}, nil
	})
	doc := func(url, body string) *Document {
		bodyField := ""
		if body != "" {
			bodyField = `"bodyTemplate": ` + fmt.Sprintf("%q", body) + `, `
		}
		return mustParse(t, []byte(`{"payload": {}, "apiCalls": [{"name": "p", "method": "POST", "urlTemplate": "`+url+`", `+bodyField+
			`"contentType": "json", "extractMap": {"Ok": {"type": "bool", "expr": "resp.ok", "default": false}}}],
  "rules": ["[Ok]"], "onValid": {"payload": {"ok": true}}}`))
	}
	body := `{"a": "` + strings.Repeat("[A]", (MaxBodyTemplateLen-10)/3) + `"}`
	d := doc("https://e.org/p", body)
	in := map[string]any{"A": strings.Repeat("a", 250_000)}
	var err error
	alloc := allocated(func() { _, err = Evaluate(context.Background(), d, in, Sources{API: api}) })
	wantCapError(t, err, "apiCalls", "apiCalls[0].bodyTemplate", ErrValueTooLarge, "MaxValueBytes")
	if alloc > 16<<20 {
		t.Errorf("body: allocated %d MiB before refusing", alloc>>20)
	}

	prefix := "https://e.org/p?q="
	d = doc(prefix+strings.Repeat("[A]", (MaxURLTemplateLen-len(prefix))/3), "")
	// 100 000 bytes of "&" escape to 300 000: the first placeholder is over.
	in = map[string]any{"A": strings.Repeat("&", 100_000)}
	alloc = allocated(func() { _, err = Evaluate(context.Background(), d, in, Sources{API: api}) })
	wantCapError(t, err, "apiCalls", "apiCalls[0].urlTemplate", ErrValueTooLarge, "MaxValueBytes")
	if alloc > 16<<20 {
		t.Errorf("URL: allocated %d MiB before refusing", alloc>>20)
	}
	if calls != 0 {
		t.Errorf("%d calls made with an oversized template", calls)
	}
}

// A template that renders exactly MaxValueBytes renders; one byte more is
// refused.
func TestTemplateAtTheCapRenders(t *testing.T) {
	tp, _ := ParseTemplate("x[A]-[B]")
	a := strings.Repeat("a", MaxValueBytes/2)
	b := strings.Repeat("b", MaxValueBytes-len(a)-2)
	out, miss, err := tp.Render(map[string]any{"A": a, "B": b})
	if err != nil || miss != nil || len(out) != MaxValueBytes {
		t.Fatalf("at the cap: %d bytes, %v, %v", len(out), miss, err)
	}
	if _, _, err := tp.Render(map[string]any{"A": a, "B": b + "b"}); !errors.Is(err, ErrValueTooLarge) || !strings.Contains(err.Error(), "[B]") {
		t.Fatalf("one byte over: %v", err)
	}

	body := mustBodyTemplate(t, `{"a": "[A]", "b": [B]}`)
	fixed := len(`{"a": "", "b": }`)
	a = strings.Repeat("a", 1000)
	// B's JSON form is a string: its quotes count.
	b = strings.Repeat("b", MaxValueBytes-fixed-len(a)-2)
	out, _, err = body.Render(map[string]any{"A": a, "B": b})
	if err != nil || len(out) != MaxValueBytes {
		t.Fatalf("body at the cap: %d bytes, %v", len(out), err)
	}
	// A quote in A is escaped (\"): one byte more after escaping.
	if _, _, err := body.Render(map[string]any{"A": a[1:] + `"`, "B": b}); !errors.Is(err, ErrValueTooLarge) {
		t.Fatalf("body one escaped byte over: %v", err)
	}
}

// A branch payload and each wake-up payload are capped at MaxOutputBytes
// in total: 30 values of 8 KiB (240 KiB) are kept, 40 (320 KiB) refused at
// the key that passes the cap, before the keys after it are built.
func TestOutputTotalIsCapped(t *testing.T) {
	const runner = "0x1234567890abcdef1234567890ABCDEF12345678"
	outputs := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, `"k%02d": "[V]"`, i)
		}
		return b.String()
	}
	doc := func(payloadKeys, wakeKeys int) *Document {
		return mustParse(t, []byte(`{"payload": {}, "rules": ["true"], "onValid": {
  "payload": {`+outputs(payloadKeys)+`},
  "wakeUps": [{"runner": "`+runner+`", "sessionId": 1, "stepId": "s", "payload": {`+outputs(wakeKeys)+`}}]}}`))
	}
	in := map[string]any{"V": strings.Repeat("v", 8<<10)}
	per := len(`"k00":`) + 8<<10 + 2 + 1 // key, value, comma
	over := (MaxOutputBytes-2)/per + 1   // the first key past the cap
	path := fmt.Sprintf("k%02d", over-1)

	r := eval(t, doc(30, 30), in, Sources{})
	if !r.Valid || len(r.Output) != 30 || len(r.WakeUps) != 1 || len(r.WakeUps[0].Payload) != 30 {
		t.Fatalf("30 keys of 8 KiB: valid %v, %d outputs, wake-ups %d", r.Valid, len(r.Output), len(r.WakeUps))
	}
	_, err := Evaluate(context.Background(), doc(40, 1), in, Sources{})
	wantCapError(t, err, "outcome", "onValid.payload."+path, ErrOutputTooLarge, "MaxOutputBytes")
	_, err = Evaluate(context.Background(), doc(1, 40), in, Sources{})
	wantCapError(t, err, "outcome", "onValid.wakeUps[0].payload."+path, ErrOutputTooLarge, "MaxOutputBytes")
}
