package testenv

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// LockEnv names the variable that holds the path of the machine lock (see
// LockMachine). scripts/test.sh sets it.
const LockEnv = "STANDUP_TESTENV_LOCK"

// SlotsEnv names the variable that holds how many test processes may run
// worlds at once (default 1). scripts/test.sh sets it.
const SlotsEnv = "STANDUP_TESTENV_SLOTS"

// LockMachine lets the test processes that start worlds take turns while go
// test runs packages side by side: it blocks until one of the slots of the
// lock LockEnv names is free (the files PATH.0 … PATH.N-1, N from
// SlotsEnv), and holds it until this process exits. Sets of control planes
// on a 2-core machine slow each other's timing-sensitive tests, so the
// slots are few: two, since most of a world's time is spent waiting on
// controllers' timers, not on the CPU. A process waiting here uses no CPU,
// and the packages without worlds run meanwhile. Without LockEnv it does
// nothing. The variable is cleared once the lock is held: child processes
// run under their parent's slot. It returns how long it waited.
func LockMachine() (time.Duration, error) {
	path := os.Getenv(LockEnv)
	if path == "" {
		return 0, nil
	}
	slots := 1
	if v := os.Getenv(SlotsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return 0, fmt.Errorf("%s=%q: want a positive number of slots", SlotsEnv, v)
		}
		slots = n
	}
	start := time.Now()
	files := make([]*os.File, slots)
	defer func() {
		for _, f := range files {
			if f != nil && f != machineLock {
				f.Close()
			}
		}
	}()
	for i := range files {
		f, err := os.OpenFile(fmt.Sprintf("%s.%d", path, i), os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			return 0, fmt.Errorf("test world machine lock %s: %w", path, err)
		}
		files[i] = f
	}
	for {
		for _, f := range files {
			err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
			if err == nil {
				machineLock = f
				os.Unsetenv(LockEnv)
				return time.Since(start), nil
			}
			if !errors.Is(err, syscall.EWOULDBLOCK) {
				return 0, fmt.Errorf("test world machine lock %s: %w", f.Name(), err)
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
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
