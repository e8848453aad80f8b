package testenv

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// lockChildEnv makes the test binary a lock holder for TestLockMachineSlots:
// it takes a slot, says "held", and keeps it until its stdin closes.
const lockChildEnv = "STANDUP_TEST_LOCK_CHILD"

// TestLockMachineSlots: with two slots, two processes hold the lock at once
// and a third waits until one of them exits.
func TestLockMachineSlots(t *testing.T) {
	if os.Getenv(lockChildEnv) != "" {
		if _, err := LockMachine(); err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString("held\n")
		io.Copy(io.Discard, os.Stdin)
		return
	}
	lock := filepath.Join(t.TempDir(), "lock")
	type holder struct {
		stdin io.WriteCloser
		held  chan struct{}
		cmd   *exec.Cmd
	}
	start := func() *holder {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLockMachineSlots$", "-test.count=1")
		cmd.Env = append(os.Environ(), lockChildEnv+"=1", LockEnv+"="+lock, SlotsEnv+"=2")
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		h := &holder{stdin: stdin, held: make(chan struct{}), cmd: cmd}
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				if strings.TrimSpace(sc.Text()) == "held" {
					close(h.held)
				}
			}
		}()
		t.Cleanup(func() { stdin.Close(); cmd.Wait() })
		return h
	}
	held := func(h *holder, within time.Duration) bool {
		select {
		case <-h.held:
			return true
		case <-time.After(within):
			return false
		}
	}
	a, b := start(), start()
	if !held(a, time.Minute) || !held(b, time.Minute) {
		t.Fatal("two processes could not hold the two slots at once")
	}
	c := start()
	if held(c, 2*time.Second) {
		t.Fatal("a third process took a slot while both were held")
	}
	a.stdin.Close()
	a.cmd.Wait()
	if !held(c, time.Minute) {
		t.Fatal("the third process never took the slot the first one left")
	}
}
