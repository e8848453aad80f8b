package kbuild

import (
	"bufio"
	"log"
	"os"
	"regexp"
	"strings"
	"sync"

	kustypes "sigs.k8s.io/kustomize/api/types"
)

// Kustomize prints some warnings itself: straight to os.Stderr
// (deprecated fields) or through the std log package (sorting order, var
// expansion), where -q cannot silence them and they would mix with our own
// progress. While any render runs, both are redirected into capture, and
// what a build prints becomes a warning of its build.
var capture = &printCapture{active: map[*buildPrints]bool{}}

// printCapture takes what is printed to os.Stderr and the std logger while
// renders run. Builds run at the same time, so a line is the build's that
// was alone to run when it was printed; the std logger's lines arrive at
// once, os.Stderr's through a pipe, possibly later. The only lines that can
// be printed while another build runs are deprecations, which
// recordingFS reports by file (they are dropped here), and kyaml's rare
// node errors: a build whose kustomization files use vars, the one feature
// that logs, runs alone (see needsExclusive).
type printCapture struct {
	mu     sync.Mutex
	users  int
	active map[*buildPrints]bool
	// loose holds the lines printed while no single build ran.
	loose []string
	// restore puts os.Stderr and the std logger back; done is closed when
	// the pipe's reader has read everything.
	restore func()
	done    chan struct{}
}

// buildPrints collects the lines of one build.
type buildPrints struct{ lines []string }

// CapturePrints redirects what kustomize prints itself (to os.Stderr and
// through the std logger) while a render runs, so that what a build prints
// becomes a warning of its Output. It returns the function that ends the
// capture once the last render ends, which returns the lines that no
// single build can be named for.
func CapturePrints() (stop func() []string) {
	capture.start()
	return capture.stop
}

// start redirects os.Stderr and the std logger for a render, unless an
// other render has already.
func (c *printCapture) start() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.users++; c.users > 1 {
		return
	}
	r, w, err := os.Pipe()
	if err != nil {
		// Without a pipe the warnings reach stderr as before; the render
		// itself must not fail for it.
		c.restore, c.done = func() {}, nil
		return
	}
	c.done = make(chan struct{})
	go func(done chan struct{}) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			c.line(sc.Text())
		}
		_ = r.Close()
		close(done)
	}(c.done)
	stderr, logOut, logFlags, logPrefix := os.Stderr, log.Writer(), log.Flags(), log.Prefix()
	os.Stderr = w
	log.SetOutput(lineWriter(c.line))
	log.SetFlags(0)
	log.SetPrefix("")
	c.restore = func() {
		os.Stderr = stderr
		log.SetOutput(logOut)
		log.SetFlags(logFlags)
		log.SetPrefix(logPrefix)
		_ = w.Close()
	}
}

// stop undoes start once the last render ends, and returns the lines that
// no single build can be named for.
func (c *printCapture) stop() []string {
	c.mu.Lock()
	if c.users--; c.users > 0 {
		c.mu.Unlock()
		return nil
	}
	c.restore()
	done := c.done
	c.mu.Unlock()
	if done != nil {
		<-done
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	loose := c.loose
	c.loose = nil
	return loose
}

// begin marks a build as running.
func (c *printCapture) begin() *buildPrints {
	p := &buildPrints{}
	c.mu.Lock()
	c.active[p] = true
	c.mu.Unlock()
	return p
}

// end marks a build as done and returns its lines.
func (c *printCapture) end(p *buildPrints) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.active, p)
	return p.lines
}

// line files one printed line.
func (c *printCapture) line(text string) {
	text = strings.TrimSpace(text)
	if text == "" || isDeprecation(text) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.active) == 1 {
		for p := range c.active {
			p.lines = append(p.lines, text)
		}
		return
	}
	c.loose = append(c.loose, text)
}

// lineWriter hands each line written to it to a function.
type lineWriter func(string)

func (f lineWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(string(p), "\n") {
		f(line)
	}
	return len(p), nil
}

// deprecatedRE matches kustomize's deprecation messages
// ("# Warning: 'bases' is deprecated. Please use 'resources' instead. ...").
var deprecatedRE = regexp.MustCompile(`'([A-Za-z0-9]+)' is deprecated\. Please use '([A-Za-z0-9]+)' instead`)

// isDeprecation reports whether a line kustomize printed is one of its
// deprecation messages, which deprecations reports with the file named.
func isDeprecation(line string) bool {
	return deprecatedRE.MatchString(line)
}

// deprecations returns the warnings kustomize prints for the deprecated
// fields of a kustomization file, naming the file (rel): kustomize's own
// message does not say which of the files of a build it is about.
func deprecations(rel string, data []byte) []string {
	var k kustypes.Kustomization
	if err := k.Unmarshal(data); err != nil {
		return nil // kustomize reports it
	}
	msgs := k.CheckDeprecatedFields()
	if msgs == nil {
		return nil
	}
	var out []string
	for _, msg := range *msgs {
		if m := deprecatedRE.FindStringSubmatch(msg); m != nil {
			out = append(out, rel+": "+m[1]+" is deprecated (kustomize): use "+m[2])
			continue
		}
		out = append(out, rel+": "+strings.TrimSpace(strings.TrimPrefix(msg, "# Warning:"))+" (kustomize)")
	}
	return out
}
