package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/record"
)

// reportOptions are the flags of `standup report`.
type reportOptions struct {
	SVG string
}

// reportCommand is `standup report FILE`: the post-mortem of an incident
// record.
func reportCommand(streams Streams, prog string) *cli.Command {
	o := &reportOptions{}
	return withExamples(&cli.Command{
		Name:      "report",
		Usage:     "turn an incident record (resume --record FILE) into its post-mortem: timeline, critical path, limit, changes",
		ArgsUsage: "FILE",
		Description: "Reads the record only: no cluster. A record cut off by a killed run reports up to where it\n" +
			"stops. -o markdown pastes into an incident ticket, with the Gantt chart as a mermaid block.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "svg", TakesFile: true, Destination: &o.SVG, Usage: "also write the Gantt chart as a self-contained SVG to `FILE` (it must not exist)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrorf("report: name one record FILE (written by resume --record FILE)")
			}
			return runReport(c.Context, globals(c), *o, c.Args().First(), streams)
		},
	}, prog,
		"# the post-mortem of last night's bring-up",
		"standup report prod.ndjson",
		"# for the incident ticket, and the picture",
		"standup report prod.ndjson -o markdown --svg bringup.svg > report.md",
	)
}

func runReport(_ context.Context, g globalOptions, opts reportOptions, path string, streams Streams) error {
	rec, err := readRecord("report", path)
	if err != nil {
		return err
	}
	r := record.Analyze(rec)
	if opts.SVG != "" {
		if err := writeNew(opts.SVG, func(w *os.File) error { return r.Timeline.SVG(w) }); err != nil {
			return err
		}
	}
	return printer.PrintReport(streams.Out, g.Output, r)
}

// readRecord reads the incident record at path for command (report,
// rehearse --from-record): a regular file no larger than a record grows.
func readRecord(command, path string) (*record.Record, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", command, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %s: not a regular file; name the record file resume --record wrote", command, path)
	}
	if info.Size() > maxRecord {
		return nil, fmt.Errorf("%s %s: %d bytes, more than a record holds (%d): not a standup record", command, path, info.Size(), maxRecord)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", command, err)
	}
	defer f.Close()
	return record.Read(io.LimitReader(f, maxRecord), path)
}

// maxRecord bounds what report reads: a record stops at its limit, and
// its summary and what it dropped come after.
const maxRecord = record.DefaultLimit + 2*record.MaxLine

// writeNew writes a file that must not exist yet.
func writeNew(path string, write func(*os.File) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("--svg %s: the file exists; name a new one", path)
	}
	if err != nil {
		return fmt.Errorf("--svg %s: %w", path, err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("--svg %s: %w", path, err)
	}
	return f.Close()
}
