// Command standup brings a Flux cluster up in dependency order and repairs
// cold-start deadlocks. See README.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// stopGrace is how long standup may take, after the first Ctrl-C or
// SIGTERM, to cancel its requests and print its summary before it exits
// anyway.
const stopGrace = 1500 * time.Millisecond

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	// The first signal cancels every request and the walk, which then
	// prints its summary; a second one, or a shutdown that overruns its
	// grace, exits at once. signal.NotifyContext would swallow the second.
	go func() {
		<-signals
		cancel()
		select {
		case <-signals:
			fmt.Fprintln(os.Stderr, "standup: interrupted again: exiting now")
		case <-time.After(stopGrace):
			fmt.Fprintf(os.Stderr, "standup: interrupted: still stopping after %s, exiting now\n", stopGrace)
		}
		os.Exit(ExitInterrupted)
	}()
	err := Run(ctx, os.Args, Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	// The handler stays until the process ends: a second signal sent right
	// after the first may land after Run returns, and with the handler
	// stopped its default action would kill the process (no exit 130).
	cancel()
	os.Exit(ExitCode(err, os.Stderr))
}
