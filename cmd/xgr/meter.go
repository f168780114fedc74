package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// meterCommand is xgr meter: the billing meter, per owner per day.
func meterCommand() *cli.Command {
	return &cli.Command{
		Name:      "meter",
		Usage:     "show what owners' sessions used, per owner per day (billing)",
		ArgsUsage: "[ADDRESS]",
		Description: `Reads the meter xgr run keeps in Redis (docs/operating.md, "Metering and
billing"): for each owner and each UTC day, the sessions that finished
that day, their steps, validation gas, lifetimes and the bytes they held
in Redis at their end; the executions that became final that day, their
gas, the value they moved and the fees they paid (wei). With ADDRESS one
owner, without it every owner metered in the range. Days are kept 90
days.

Example:
   xgr meter --from 2026-11-01 --to 2026-11-30 --csv --redis redis://127.0.0.1:6379/0 > november.csv`,
		Flags: append(redisFlags(),
			&cli.StringFlag{Name: "from", Usage: "first UTC day, YYYY-MM-DD (default: --to)"},
			&cli.StringFlag{Name: "to", Usage: "last UTC day, YYYY-MM-DD (default: today)"},
			&cli.BoolFlag{Name: "csv", Usage: "print CSV with a header: day,owner,sessions,steps,validationGas,durationMs,bytes,executions,execGas,valueWei,feeWei"},
			jsonFlag()),
		Action: meterAction,
	}
}

func meterAction(c *cli.Context) error {
	if c.NArg() > 1 {
		return usageError("%s: name at most one owner ADDRESS", cmdName(c))
	}
	owner := ""
	if c.NArg() == 1 {
		owner = joinstore.NormalizeOwner(c.Args().First())
		if err := joinstore.CheckOwner(owner); err != nil {
			return usageError("%s: %v", cmdName(c), err)
		}
	}
	if c.Bool("json") && c.Bool("csv") {
		return usageError("%s: --json and --csv: choose one", cmdName(c))
	}
	day := func(name string, def time.Time) (time.Time, error) {
		v := c.String(name)
		if v == "" {
			return def, nil
		}
		t, err := time.Parse(joinstore.MeterDayLayout, v)
		if err != nil {
			return t, usageError("%s: --%s %q: want a date YYYY-MM-DD (UTC)", cmdName(c), name, v)
		}
		return t, nil
	}
	to, err := day("to", time.Now().UTC())
	if err != nil {
		return err
	}
	from, err := day("from", to)
	if err != nil {
		return err
	}
	return withStore(c, func(ctx context.Context, s *joinstore.Store) error {
		var rows []joinstore.DayUsage
		if owner != "" {
			rows, err = s.Meter(ctx, owner, from, to)
		} else {
			rows, err = s.OwnersMeter(ctx, from, to)
		}
		if err != nil {
			return cli.Exit(fmt.Sprintf("%s: %v", cmdName(c), err), exitFailed)
		}
		return writeMeter(c, rows)
	})
}

// writeMeter prints the meter's rows: JSON (an array), CSV with a header,
// or an aligned table.
func writeMeter(c *cli.Context, rows []joinstore.DayUsage) error {
	if c.Bool("json") {
		if rows == nil {
			rows = []joinstore.DayUsage{}
		}
		return json.NewEncoder(c.App.Writer).Encode(rows)
	}
	cols := []string{"day", "owner", "sessions", "steps", "validationGas", "durationMs", "bytes", "executions", "execGas", "valueWei", "feeWei"}
	cells := func(u joinstore.DayUsage) []string {
		n := func(v int64) string { return strconv.FormatInt(v, 10) }
		return []string{u.Day, u.Owner, n(u.Sessions), n(u.Steps), n(u.ValidationGas), n(u.DurationMs), n(u.Bytes),
			n(u.Executions), n(u.ExecGas), u.ValueWei, u.FeeWei}
	}
	if c.Bool("csv") {
		w := csv.NewWriter(c.App.Writer)
		w.Write(cols)
		for _, u := range rows {
			w.Write(cells(u))
		}
		w.Flush()
		return w.Error()
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(c.App.Writer, "no metered sessions in the range")
		return err
	}
	w := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "DAY\tOWNER\tSESSIONS\tSTEPS\tVALIDATION GAS\tDURATION MS\tBYTES\tEXECUTIONS\tEXEC GAS\tVALUE WEI\tFEE WEI")
	for _, u := range rows {
		fmt.Fprintln(w, strings.Join(cells(u), "\t"))
	}
	return w.Flush()
}
