//go:build unix

package printer

import (
	"os"
	"os/signal"
	"syscall"
)

// notifyResize sends on c when the terminal is resized (SIGWINCH), until
// the returned stop is called.
func notifyResize(c chan<- os.Signal) (stop func()) {
	signal.Notify(c, syscall.SIGWINCH)
	return func() { signal.Stop(c) }
}
