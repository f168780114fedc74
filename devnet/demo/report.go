package demo

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// MaxResult is how many characters of a result the table shows.
const MaxResult = 72

// Label names a session (owner, root id) in the demo's output: its root
// id when its owner is home (the owner most sessions have, the
// registry's), else "<id> of <owner>" with the owner shortened to
// 0x1234…abcd.
func Label(owner string, id int64, home string) string {
	n := strconv.FormatInt(id, 10)
	if strings.EqualFold(owner, home) {
		return n
	}
	return n + " of " + ShortAddress(owner)
}

// ShortAddress shortens a 0x address to its first and last four digits.
func ShortAddress(a string) string {
	if len(a) != 42 {
		return a
	}
	return a[:6] + "…" + a[38:]
}

// FinishedLine is the line printed as a session ends:
// "session 7 finished (ok, 8 steps, 312ms)".
func FinishedLine(s Session, home string) string {
	steps := "steps"
	if s.Steps == 1 {
		steps = "step"
	}
	return fmt.Sprintf("session %s finished (%s, %d %s, %s)", Label(s.Owner, s.ID, home), s.Status, s.Steps, steps, Duration(s.Duration))
}

// Duration shows a session's duration rounded to the millisecond.
func Duration(d time.Duration) string {
	return d.Round(time.Millisecond).String()
}

// Sort orders sessions for the table: home's first, then by owner, then by
// root id.
func Sort(list []Session, home string) {
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i], list[j]
		ah, bh := strings.EqualFold(a.Owner, home), strings.EqualFold(b.Owner, home)
		if ah != bh {
			return ah
		}
		if a.Owner != b.Owner {
			return a.Owner < b.Owner
		}
		return a.ID < b.ID
	})
}

// WriteTable writes the summary table: session, flow, status, steps,
// duration and result, one row per session in the given order.
func WriteTable(w io.Writer, list []Session, home string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tFLOW\tSTATUS\tSTEPS\tDURATION\tRESULT")
	for _, s := range list {
		d := "-"
		if s.Finished() {
			d = Duration(s.Duration)
		}
		r := s.Result
		if r == "" {
			r = "-"
		}
		if n := []rune(r); len(n) > MaxResult {
			r = string(n[:MaxResult-1]) + "…"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", Label(s.Owner, s.ID, home), s.Flow, s.Status, s.Steps, d, r)
	}
	return tw.Flush()
}
