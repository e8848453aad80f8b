//go:build !unix

package printer

import "os"

// notifyResize never sends: this system has no SIGWINCH. The live view
// still follows a resize, on its next tick, since each redraw reads the
// terminal's size.
func notifyResize(chan<- os.Signal) (stop func()) {
	return func() {}
}
