package main

import (
	"context"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/pkg/kubeevents"
	"github.com/kubestandup/standup/pkg/wait"
)

// eventsFlag is --events of resume and crds.
func eventsFlag(dest *bool) cli.Flag {
	return &cli.BoolFlag{Name: "events", Value: true, Destination: dest,
		Usage: "post Kubernetes Events (reporting controller standup) on every object standup acts on, where flux events and kubectl events --for find them; --events=false posts none"}
}

// clusterEvents posts a walk's Events on its cluster: the translator on
// the loop's goroutine, the poster on its own.
type clusterEvents struct {
	translator *kubeevents.Translator
	poster     *kubeevents.Poster
	warning    string
}

// openEvents starts posting the Events of a walk on cl, or returns nil
// when they are off (--events=false; a dry run never gets here).
func openEvents(ctx context.Context, cl *cluster, enabled bool) *clusterEvents {
	if !enabled {
		return nil
	}
	e := &clusterEvents{}
	// The warning is printed once the walk's printer is closed: the poster's
	// goroutine never writes to the terminal the walk draws on.
	e.poster = kubeevents.NewPoster(ctx, cl.Dynamic, kubeevents.Options{Warn: func(s string) { e.warning = s }})
	return e
}

// attach makes loop's events Events as well, with the uids the loop saw.
func (e *clusterEvents) attach(loop *wait.Loop) {
	if e == nil {
		return
	}
	e.translator = kubeevents.NewTranslator(loop.UID)
	next := loop.OnEvent
	loop.OnEvent = func(ev wait.Event) {
		next(ev)
		e.poster.Post(e.translator.Walk(ev)...)
	}
}

// close posts where the walk finished or gave up, flushes the rest, and
// says once why Events stopped, if they did, and with -v what was posted.
func (e *clusterEvents) close(g globalOptions, summary wait.Summary, streams Streams) {
	if e == nil {
		return
	}
	if e.translator != nil {
		e.poster.Post(e.translator.Finished(summary, time.Now())...)
	}
	stats := e.poster.Close()
	if e.warning != "" && !g.Quiet {
		fmt.Fprintf(streams.Err, "warning: %s\n", e.warning)
	}
	if g.Verbose {
		fmt.Fprintf(streams.Err, "Events: %d created, %d series updates, %d not posted (%d on mutations, %d walk notices)\n",
			stats.Created, stats.Series, stats.Dropped, stats.OnMutations, stats.WalkNotices)
	}
}
