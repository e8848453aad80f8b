package testenv

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"
)

// LockEnv names the variable that holds the path of the machine lock (see
// LockMachine). scripts/test.sh sets it.
const LockEnv = "STANDUP_TESTENV_LOCK"

// LockMachine lets the packages that start worlds take turns while go test
// runs packages side by side: it blocks until no other test process holds
// the lock file LockEnv names, and holds it until this process exits. Two
// sets of control planes on a 2-core machine slow each other's
// timing-sensitive tests; a package waiting here uses no CPU, and the
// packages without worlds run meanwhile. Without LockEnv it does nothing.
// The variable is cleared once the lock is held: child processes run under
// their parent's lock. It returns how long it waited.
func LockMachine() (time.Duration, error) {
	path := os.Getenv(LockEnv)
	if path == "" {
		return 0, nil
	}
	start := time.Now()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return 0, fmt.Errorf("test world machine lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return 0, fmt.Errorf("test world machine lock %s: %w", path, err)
	}
	machineLock = f
	os.Unsetenv(LockEnv)
	return time.Since(start), nil
}

// machineLock is the locked file, never closed: the lock goes when the
// process does (a file only garbage would close).
var machineLock *os.File

// Main is the TestMain of a package whose tests start worlds: it takes the
// machine lock (LockMachine), runs the tests, and stops pool's worlds (pool
// may be nil).
func Main(m *testing.M, pool *Pool) {
	if waited, err := LockMachine(); err != nil {
		fmt.Fprintf(os.Stderr, "testenv: running without the machine lock: %v\n", err)
	} else if waited > time.Second {
		fmt.Fprintf(os.Stderr, "testenv: waited %s for the other test packages' worlds\n", waited.Round(time.Second))
	}
	if pool != nil {
		defer pool.Stop()
	}
	m.Run()
}
