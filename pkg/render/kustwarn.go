package render

import (
	"bufio"
	"bytes"
	"io"
	"log"
	"os"
	"regexp"
	"strings"
	"sync"

	kustypes "sigs.k8s.io/kustomize/api/types"
)

// stderrMu serialises the swaps of os.Stderr and of the std log output:
// krusty writes its warnings straight to os.Stderr (deprecated fields) or
// through the std log package (sorting order, var expansion), where -q
// cannot silence them and they would mix with our own progress.
var stderrMu sync.Mutex

// captureOutput runs fn with os.Stderr and the std logger redirected, and
// returns the non-empty lines written to them.
func captureOutput(fn func()) []string {
	stderrMu.Lock()
	defer stderrMu.Unlock()
	r, w, err := os.Pipe()
	if err != nil {
		// Without a pipe the warnings reach stderr as before; the build
		// itself must not fail for it.
		fn()
		return nil
	}
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(&buf, r)
		close(done)
	}()
	stderr, logOut, logFlags, logPrefix := os.Stderr, log.Writer(), log.Flags(), log.Prefix()
	os.Stderr = w
	log.SetOutput(w)
	log.SetFlags(0)
	log.SetPrefix("")
	func() {
		defer func() {
			os.Stderr = stderr
			log.SetOutput(logOut)
			log.SetFlags(logFlags)
			log.SetPrefix(logPrefix)
			_ = w.Close()
		}()
		fn()
	}()
	<-done
	_ = r.Close()
	var lines []string
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			lines = append(lines, line)
		}
	}
	return lines
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
