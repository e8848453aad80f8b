package testenv

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Controller runs a real Flux controller (kustomize-controller, or
// helm-controller when Name says so) as a subprocess, out of cluster, with
// leader election off and loopback-only endpoints.
type Controller struct {
	// Name is the controller's name in messages; empty means
	// kustomize-controller.
	Name       string
	Binary     string
	Kubeconfig string
	Dir        string
	Args       []string
	// TempDir, when set, holds the controller's TMPDIR instead of Dir (see
	// Options.ControllerTempDir).
	TempDir string
	// Env is added to the controller's environment.
	Env []string
	// NoWatchFlag leaves out --watch-all-namespaces, which the Flux
	// Operator does not take (it watches every namespace).
	NoWatchFlag bool

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{}
	logFile *os.File
	tmp     string // a TMPDIR made under TempDir, removed on stop
	// pgid and health are the process group and the health endpoint of
	// the last start, kept after a stop for gone.
	pgid   int
	health string
	// Starts counts how many times the controller was started.
	Starts int
}

// Start launches the controller and waits until its health endpoint answers.
func (c *Controller) Start(ctx context.Context) (err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer func() {
		if err != nil && c.cmd == nil && c.tmp != "" {
			_ = os.RemoveAll(c.tmp) // never started: stop will not see it
			c.tmp = ""
		}
	}()
	if c.cmd != nil {
		return fmt.Errorf("%s already running", c.name())
	}
	tmp := filepath.Join(c.Dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return fmt.Errorf("%s: %w", c.name(), err)
	}
	if c.TempDir != "" {
		if tmp, err = os.MkdirTemp(c.TempDir, "standup-kustomize-controller-"); err != nil {
			return fmt.Errorf("kustomize-controller: %w", err)
		}
		c.tmp = tmp
	}
	ports, err := freePorts(2)
	if err != nil {
		return fmt.Errorf("%s: %w", c.name(), err)
	}
	health := fmt.Sprintf("127.0.0.1:%d", ports[1])
	args := []string{"--enable-leader-election=false"}
	if !c.NoWatchFlag {
		args = append(args, "--watch-all-namespaces=true")
	}
	args = append(append(args,
		fmt.Sprintf("--metrics-addr=127.0.0.1:%d", ports[0]),
		"--health-addr="+health,
		"--log-encoding=json",
	), c.Args...)
	logFile, err := os.OpenFile(c.logPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("%s: %w", c.name(), err)
	}
	cmd := exec.Command(c.Binary, args...)
	cmd.Env = append(append(os.Environ(), "KUBECONFIG="+c.Kubeconfig, "TMPDIR="+tmp, "RUNTIME_NAMESPACE=flux-system"), c.Env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return fmt.Errorf("%s start failed: %w", c.name(), err)
	}
	c.cmd, c.logFile, c.done = cmd, logFile, make(chan struct{})
	c.pgid, c.health = cmd.Process.Pid, health
	c.Starts++
	go func(done chan struct{}) {
		_ = cmd.Wait()
		close(done)
	}(c.done)
	return waitHealthy(ctx, c.name(), "http://"+health+"/readyz", c.done)
}

func (c *Controller) name() string { return orDefault(c.Name, "kustomize-controller") }

func waitHealthy(ctx context.Context, name, url string, exited <-chan struct{}) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("%s exited during start-up", name)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("%s not healthy at %s after 60s", name, url)
}

// Stop terminates the controller gracefully, killing it after 10 s.
func (c *Controller) Stop() { c.stop(syscall.SIGTERM) }

// Kill kills the controller at once, as a crash would.
func (c *Controller) Kill() { c.stop(syscall.SIGKILL) }

func (c *Controller) stop(sig syscall.Signal) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil {
		return
	}
	_ = syscall.Kill(-c.cmd.Process.Pid, sig)
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
		<-c.done
	}
	c.logFile.Close()
	c.cmd = nil
	if c.tmp != "" {
		_ = os.RemoveAll(c.tmp)
		c.tmp = ""
	}
}

// gone reports whether nothing is left of the controller's last start, and
// if not, what is: a process of its process group (Stop and Kill signal
// the group whole), or something serving its health endpoint, as a process
// that escaped the group would. A controller gone cannot reconcile, so a
// test need not wait to see that it does not.
func (c *Controller) gone() (bool, string) {
	c.mu.Lock()
	pgid, health := c.pgid, c.health
	c.mu.Unlock()
	if pgid == 0 {
		return false, "never started"
	}
	if err := syscall.Kill(-pgid, 0); err != syscall.ESRCH {
		return false, fmt.Sprintf("process group %d still has a process (signal 0: %v)", pgid, err)
	}
	if conn, err := net.DialTimeout("tcp", health, time.Second); err == nil {
		conn.Close()
		return false, "something still serves its health endpoint " + health
	}
	return true, ""
}

// Log returns everything the controller has logged so far.
func (c *Controller) Log() string { return c.logSince(0) }

// logSize is how much the controller has logged so far, for logSince.
func (c *Controller) logSize() int64 {
	fi, err := os.Stat(c.logPath())
	if err != nil {
		return 0
	}
	return fi.Size()
}

// logSince returns what the controller logged from byte offset on.
func (c *Controller) logSince(offset int64) string {
	data, err := os.ReadFile(c.logPath())
	if err != nil {
		return fmt.Sprintf("(no controller log: %v)", err)
	}
	return string(bytes.TrimSpace(data[min(offset, int64(len(data))):]))
}

func (c *Controller) logPath() string { return filepath.Join(c.Dir, "controller.log") }

// running reports whether the controller process is up.
func (c *Controller) running() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cmd != nil
}

func freePorts(n int) ([]int, error) {
	var ports []int
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
