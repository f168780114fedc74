package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/internal/redisserver"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
)

func simulateCommand() *cli.Command {
	return &cli.Command{
		Name:      "simulate",
		Usage:     "run an orchestration with scripted step outcomes through the real reactor and store",
		ArgsUsage: "OSTC.json",
		Description: `Runs one session of the orchestration on the real joinstore (Redis
transitions) and reactor decisions, with each step's outcome taken from the
outcomes file instead of an XRC-137 rule:

   {"A1": {"result": "valid", "payload": {"x": 1}, "waitSec": 5},
    "B1": [{"result": "invalid"}, {"result": "valid"}],
    "default": {"result": "valid"}}

A step maps to one outcome or to a list used by its successive executions
(the last one repeats); "default" covers the other steps. result is valid,
invalid or error (a hard error: the process aborts); payload is the step's
output, overlaid on its input; waitSec delays the children; delayMs is an
execution time (ignored under --deterministic).

Output: the timeline (spawned, claimed, executed, delivered, ignored,
join_closed, join_aborted, killed, promoted, gated), then a summary of every
process and join. --json prints one JSON object per event and the summary as
the last line.

Without --redis, a private redis-server is started on a temporary socket and
removed afterwards. --deterministic uses a virtual clock (waits take no time),
so the same input always gives the same output. The session runs on one
worker; the concurrent session manager comes with xgr run.

Examples:
   xgr simulate examples/ostc/nested_join.json --outcomes outcomes.json --deterministic
   xgr simulate flow.json --outcomes o.json --start A1 --payload in.json --json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "outcomes", Usage: "scripted outcomes file (required)"},
			&cli.StringFlag{Name: "start", Usage: "start step (default: the first step of the document)"},
			&cli.StringFlag{Name: "payload", Usage: "start payload: a JSON object file"},
			&cli.StringFlag{Name: "redis", EnvVars: []string{"XGR_REDIS"}, Usage: "Redis URL to run on (default: a private redis-server)"},
			&cli.StringFlag{Name: "owner", Value: "0x0000000000000000000000000000000000000001", Usage: "session owner"},
			&cli.BoolFlag{Name: "deterministic", Usage: "virtual clock: the same input always gives the same output"},
			&cli.DurationFlag{Name: "timeout", Value: 10 * time.Minute, Usage: "give up after this long"},
			jsonFlag(),
		},
		Action: simulateAction,
	}
}

func simulateAction(c *cli.Context) error {
	file, err := oneFile(c, "simulate")
	if err != nil {
		return err
	}
	o, err := loadOSTC(file)
	if err != nil {
		return err
	}
	if c.String("outcomes") == "" {
		return cli.Exit("simulate: --outcomes is required", 2)
	}
	raw, err := os.ReadFile(c.String("outcomes"))
	if err != nil {
		return cli.Exit(err.Error(), 2)
	}
	exec, err := reactor.ParseOutcomes(raw)
	if err != nil {
		return cli.Exit("simulate: "+err.Error(), 2)
	}
	start := c.String("start")
	if start == "" {
		start = o.Steps[0].ID
	}
	if o.Step(start) == nil {
		return cli.Exit(fmt.Sprintf("simulate: --start %q is not a step of %s", start, file), 2)
	}
	payload := json.RawMessage("{}")
	if p := c.String("payload"); p != "" {
		if payload, err = os.ReadFile(p); err != nil {
			return cli.Exit(err.Error(), 2)
		}
	}
	ctx, cancel := context.WithTimeout(c.Context, c.Duration("timeout"))
	defer cancel()

	rdb, stop, err := simulationRedis(c.String("redis"))
	if err != nil {
		return cli.Exit("simulate: "+err.Error(), 2)
	}
	defer stop()
	store := joinstore.New(rdb, joinstore.Config{})

	clock := time.Now().Truncate(time.Millisecond)
	now := time.Now
	var advance func(time.Time)
	if c.Bool("deterministic") {
		clock = time.UnixMilli(1_700_000_000_000)
		now = func() time.Time { return clock }
		advance = func(t time.Time) { clock = t }
	} else {
		exec.Sleep = time.Sleep
	}
	w := c.App.Writer
	asJSON := c.Bool("json")
	t0 := now()
	res, err := store.Start(ctx, joinstore.StartRequest{Owner: c.String("owner"), XRC729: "simulate", OstcID: o.ID,
		OstcHash: o.Hash.Hex(), StartStep: start, Payload: payload, Now: now()})
	if err != nil {
		return cli.Exit("simulate: "+err.Error(), 2)
	}
	runner := &reactor.Runner{Store: store, Orch: o, Exec: exec, Worker: "simulate", Now: now, Advance: advance,
		OnEvent: func(e reactor.Event) { printEvent(w, e, t0, asJSON) }}
	runErr := runner.Run(ctx, res.Root)
	procs, err := store.Processes(ctx, res.Root)
	if err != nil {
		return err
	}
	sum, err := reactor.Summarize(procs)
	if err != nil {
		return err
	}
	if asJSON {
		if err := json.NewEncoder(w).Encode(sum); err != nil {
			return err
		}
	} else {
		printSummary(w, sum)
	}
	if runErr != nil {
		return cli.Exit("simulate: "+runErr.Error(), 1)
	}
	return nil
}

// simulationRedis connects to url, or starts a private redis-server in a
// temporary directory that stop removes.
func simulationRedis(url string) (redis.UniversalClient, func(), error) {
	if url != "" {
		opts, err := redis.ParseURL(url)
		if err != nil {
			return nil, nil, fmt.Errorf("--redis %q: %w", url, err)
		}
		rdb := redis.NewClient(opts)
		return rdb, func() { rdb.Close() }, nil
	}
	dir, err := os.MkdirTemp("", "xgr-simulate-")
	if err != nil {
		return nil, nil, err
	}
	srv, err := redisserver.Start(redisserver.Options{Dir: dir})
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	rdb := srv.Client()
	return rdb, func() { rdb.Close(); srv.Stop(); os.RemoveAll(dir) }, nil
}

func printEvent(w io.Writer, e reactor.Event, t0 time.Time, asJSON bool) {
	if asJSON {
		json.NewEncoder(w).Encode(struct {
			T float64 `json:"t"`
			reactor.Event
		}{e.At.Sub(t0).Seconds(), e})
		return
	}
	fmt.Fprintf(w, "%9.3fs  %-13s %-8s %-10s %s\n", e.At.Sub(t0).Seconds(), e.Type, e.Pid, e.Step, e.Detail)
}

func printSummary(w io.Writer, s reactor.Summary) {
	fmt.Fprintln(w, "\nprocesses:")
	for _, p := range s.Processes {
		valid := "-"
		if p.Valid != nil {
			valid = map[bool]string{true: "valid", false: "invalid"}[*p.Valid]
		}
		fmt.Fprintf(w, "  %-8s %-12s %-8s %-7s group %-4s parent %s\n", p.Pid, p.Step, p.Status, valid, p.JoinGroupID, p.ParentPid)
	}
	if len(s.Joins) > 0 {
		fmt.Fprintln(w, "joins:")
	}
	for _, j := range s.Joins {
		payload, _ := json.Marshal(j.Payload)
		fmt.Fprintf(w, "  %-8s %-12s %-8s k=%d got [%s] payload %s\n", j.Pid, j.Step, j.Status, j.K, strings.Join(j.Got, " "), payload)
	}
}
