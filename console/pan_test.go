package console

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// The flow view pans, zooms and fits: keys + - 0 on the focused graph, the
// mouse wheel zooms around the pointer, a drag pans (and is no click on
// the node it starts on), Fit shows every node again, the view survives the
// live redraws, and a plain click on a node still selects it.
func TestFlowPanZoomInBrowser(t *testing.T) {
	env := newBrowserEnv(t, false)
	r := env.finished[0]
	env.open(fmt.Sprintf("#/session/%s/%d", r.Owner, r.RootPid))
	env.wait("the flow graph", `document.querySelectorAll('#flow svg.graph g.node').length === 5`)
	scale := func() float64 {
		return eval[float64](env, `Number(document.querySelector('#flow svg.graph').dataset.scale)`)
	}
	allVisible := `(() => { const w = document.getElementById('flow').getBoundingClientRect();
	  return [...document.querySelectorAll('#flow g.node rect.box')].every(b => { const r = b.getBoundingClientRect();
	    return r.left >= w.left - 1 && r.right <= w.right + 1 && r.top >= w.top - 1 && r.bottom <= w.bottom + 1; }); })()`
	if !eval[bool](env, allVisible) {
		t.Errorf("the first view does not show every node")
	}
	s0 := scale()

	// Keys on the focused graph.
	env.do("focus the graph", chromedp.Focus(chromedp.ID("flow")), chromedp.KeyEvent("+"))
	if s := scale(); math.Abs(s-s0*1.25) > 1e-9 {
		t.Errorf("+ : scale %v, want %v", s, s0*1.25)
	}
	if got := eval[string](env, `document.querySelector('[data-zoom="level"]').textContent`); got != fmt.Sprintf("%d%%", int(math.Round(s0*125))) {
		t.Errorf("zoom level shown: %q", got)
	}
	env.do("zoom out", chromedp.KeyEvent("-"))
	if s := scale(); math.Abs(s-s0) > 1e-9 {
		t.Errorf("- : scale %v, want %v", s, s0)
	}

	// graphAt is the graph point under a page point.
	type pt struct{ X, Y float64 }
	graphAt := func(p pt) pt {
		return eval[pt](env, fmt.Sprintf(`(() => { const s = document.querySelector('#flow svg.graph');
		  const q = new DOMPoint(%f, %f).matrixTransform(s.getScreenCTM().inverse()); return {X: q.x, Y: q.y}; })()`, p.X, p.Y))
	}
	near := func(a, b pt) bool { return math.Abs(a.X-b.X) < 0.5 && math.Abs(a.Y-b.Y) < 0.5 }
	mouse := func(what string, p input.DispatchMouseEventParams) {
		t.Helper()
		env.do(what, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, input.DispatchMouseEvent, p)
			return err
		}))
	}
	// The wheel zooms around the pointer: the graph point under it stays.
	a1 := eval[pt](env, `(() => { const r = document.querySelector('#flow g.node rect.box').getBoundingClientRect(); return {X: r.left + r.width / 2, Y: r.top + r.height / 2}; })()`)
	before := graphAt(a1)
	mouse("wheel", input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseWheel, X: a1.X, Y: a1.Y, DeltaX: 1e-9, DeltaY: -300}) // DeltaX 0 would be left out, and the protocol wants it
	env.wait("the wheel zoom", fmt.Sprintf(`Number(document.querySelector('#flow svg.graph').dataset.scale) > %f`, s0*1.5))
	if after := graphAt(a1); !near(before, after) {
		t.Errorf("wheel zoom moved the point under the pointer: %v → %v", before, after)
	}

	// A drag from the first node pans by the drag and opens no process.
	hash := eval[string](env, `location.hash`)
	to := pt{a1.X + 120, a1.Y + 60}
	mouse("press", input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMousePressed, X: a1.X, Y: a1.Y, Button: input.MouseButtonLeft, Buttons: 1, ClickCount: 1})
	for i := 1; i <= 6; i++ {
		mouse("move", input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: a1.X + 20*float64(i), Y: a1.Y + 10*float64(i), Button: input.MouseButtonLeft, Buttons: 1})
	}
	mouse("release", input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseReleased, X: to.X, Y: to.Y, Button: input.MouseButtonLeft, Buttons: 0, ClickCount: 1})
	if after := graphAt(to); !near(before, after) {
		t.Errorf("the drag did not carry the graph along: %v under the start, %v under the end", before, after)
	}
	time.Sleep(300 * time.Millisecond)
	if h := eval[string](env, `location.hash`); h != hash {
		t.Errorf("a drag from a node opened %s", h)
	}

	// Zoomed far in, nodes leave the view; Fit brings every one back.
	env.do("zoom in", chromedp.Focus(chromedp.ID("flow")))
	for i := 0; i < 5; i++ {
		env.do("+", chromedp.KeyEvent("+"))
	}
	if eval[bool](env, allVisible) {
		t.Fatalf("zoomed in %vx every node is still in view: the test cannot tell Fit works", scale())
	}
	env.do("fit", chromedp.Click(chromedp.CSS(`button[data-zoom="fit"]`)))
	if !eval[bool](env, allVisible) {
		t.Errorf("after Fit some node is out of view")
	}
	env.do("zoom in and 0", chromedp.Focus(chromedp.ID("flow")), chromedp.KeyEvent("+"), chromedp.KeyEvent("+"), chromedp.KeyEvent("+"), chromedp.KeyEvent("0"))
	if !eval[bool](env, allVisible) {
		t.Errorf("after the key 0 some node is out of view")
	}

	// The view survives the live redraws.
	env.do("zoom in", chromedp.KeyEvent("+"))
	vb := eval[string](env, `(window.__oldSvg = document.querySelector('#flow svg.graph')).getAttribute('viewBox')`)
	env.wait("a redraw", `document.querySelector('#flow svg.graph') !== window.__oldSvg`)
	if got := eval[string](env, `document.querySelector('#flow svg.graph').getAttribute('viewBox')`); got != vb {
		t.Errorf("a redraw reset the view: %s → %s", vb, got)
	}
	env.shot("flow-zoomed")

	// A click (no drag) on a node still opens its process.
	env.do("fit", chromedp.KeyEvent("0"))
	c := eval[pt](env, `(() => { const r = document.querySelector('#flow g.node[data-id="1:1"] rect.box').getBoundingClientRect(); return {X: r.left + r.width / 2, Y: r.top + r.height / 2}; })()`)
	env.do("click the node", chromedp.MouseClickXY(c.X, c.Y))
	env.wait("process 1:1 opened", `location.hash.endsWith('/1:1') && !!document.getElementById('proc-title')`)
	if !strings.Contains(eval[string](env, `document.getElementById('proc-title').textContent`), "1:1") {
		t.Errorf("the click opened another process")
	}
}
