package kbuild

import (
	"bytes"
	"path/filepath"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/api/resource"
	sigsyaml "sigs.k8s.io/yaml"
)

// Where each rendered object starts in its file, so that code-scanning
// annotations land on the object and not on the top of a file of twenty.
// kustomize's origin annotation (buildMetadata: [originAnnotations], which
// the builder always turns on) names the file an object was read from, or
// the kustomization file whose generator made it, but no line: the line is
// found here, in the file as it is on disk, by the object's kind and name
// before substitution (what kustomize rendered, namePrefix and nameSuffix
// included, which contain the name written in the file).

// placeOf returns the file an object came from, relative to the repository
// root, and the 1-based line where its document starts in that file: the
// line of the generator's entry for a generated object. The line is 0 when
// it cannot be told: a file with no checkout file behind it (the
// kustomization file Flux generates, a file an ArtifactGenerator merges),
// or a document the object cannot be matched to.
func (b *Builder) placeOf(v View, dir string, origin *resource.Origin, r *resource.Resource) (string, int) {
	if origin.Repo != "" {
		return origin.Repo + "//" + origin.Path, 0
	}
	path, generated := origin.Path, false
	if path == "" {
		path, generated = origin.ConfiguredIn, true
	}
	if path == "" {
		return "", 0
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	file := v.name(path)
	disk := v.diskPath(path)
	if disk == "" {
		return file, 0
	}
	ix := b.fileLines(disk)
	if ix == nil {
		return file, 0
	}
	switch {
	case generated:
		return file, ix.generatorLine(origin.ConfiguredBy.Kind, r.GetName())
	case len(ix.docs) == 1:
		return file, ix.docs[0].line // which object it is needs no asking
	}
	return file, ix.objectLine(r.GetKind(), r.GetNamespace(), r.GetName())
}

// fileLines returns the index of a checkout file (absolute), once per
// render; nil when it cannot be read.
func (b *Builder) fileLines(disk string) *lineIndex {
	return memo(&b.linesMu, b.lines, disk, func() *lineIndex {
		data, err := b.disk.ReadFile(disk)
		if err != nil {
			return nil
		}
		return indexLines(data)
	})
}

// lineIndex is what one file says about where things start in it. Builds
// running side by side share it.
type lineIndex struct {
	docs []docStart
	// lines are the file's lines, kept for the kustomization files whose
	// generators are looked up.
	lines []string
	// identified fills in the identity of every document, on the first
	// question that needs it: a file of one document never does.
	identified sync.Once
}

// docStart is one YAML document of a file: its first line that is not
// blank, a comment or a separator, its lines, and the identity it declares.
type docStart struct {
	line                  int
	from, to              int
	kind, namespace, name string
	// apiVersion is read with the rest, for placeBuild.
	apiVersion string
}

// indexLines splits data into YAML documents as kustomize's reader does
// (a line starting with "---" separates them) and reads each one's kind,
// name and namespace.
func indexLines(data []byte) *lineIndex {
	ix := &lineIndex{lines: strings.Split(string(trimBOM(data)), "\n")}
	start, first := 0, 0
	flush := func(end int) {
		if first > 0 {
			ix.docs = append(ix.docs, docStart{line: first, from: start, to: end})
		}
	}
	for i, line := range ix.lines {
		if isSeparator(line) {
			flush(i)
			start, first = i+1, 0
			continue
		}
		if first == 0 && !isBlankOrComment(line) {
			first = i + 1
		}
	}
	flush(len(ix.lines))
	return ix
}

// isSeparator reports whether a line separates YAML documents: "---",
// alone or followed by a space or a comment.
func isSeparator(line string) bool {
	rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "---")
	return ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '#')
}

func isBlankOrComment(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || t[0] == '#'
}

// identify sets the kind, name and namespace of one document: from its
// top-level "kind:" and the "name:" and "namespace:" of its block
// "metadata:", as nearly every manifest writes them; a document written
// otherwise (flow style, JSON) is decoded.
func identify(d *docStart, lines []string) {
	inMeta, childIndent := false, -1
	for _, line := range lines {
		line = strings.TrimRight(line, "\r")
		if isBlankOrComment(line) {
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if indent == 0 {
			inMeta = false
			key, value, ok := strings.Cut(line, ":")
			switch {
			case !ok:
			case key == "kind":
				d.kind = scalar(value)
			case key == "apiVersion":
				d.apiVersion = scalar(value)
			case key == "metadata" && scalar(value) == "":
				inMeta, childIndent = true, -1
			}
			continue
		}
		if !inMeta {
			continue
		}
		if childIndent < 0 {
			childIndent = indent
		}
		if indent != childIndent {
			continue
		}
		key, value, _ := strings.Cut(strings.TrimSpace(line), ":")
		switch key {
		case "name":
			d.name = scalar(value)
		case "namespace":
			d.namespace = scalar(value)
		}
	}
	if d.kind == "" || d.name == "" || strings.HasPrefix(d.name, "*") || strings.HasPrefix(d.kind, "*") {
		var doc struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			} `json:"metadata"`
		}
		if sigsyaml.Unmarshal([]byte(strings.Join(lines, "\n")), &doc) == nil {
			d.apiVersion, d.kind, d.name, d.namespace = doc.APIVersion, doc.Kind, doc.Metadata.Name, doc.Metadata.Namespace
		}
	}
}

// scalar returns a plain or quoted one-line YAML value without its comment,
// quotes, anchor and tag; an alias ("*name") is returned as it is, for
// identify to decode the document.
func scalar(value string) string {
	v := strings.TrimSpace(value)
	for len(v) > 0 && (v[0] == '&' || v[0] == '!') {
		_, rest, _ := strings.Cut(v, " ")
		v = strings.TrimSpace(rest)
	}
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
		if end := strings.IndexByte(v[1:], v[0]); end >= 0 {
			return v[1 : end+1]
		}
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	return v
}

// identify identifies every document of the file, once.
func (ix *lineIndex) identify() {
	ix.identified.Do(func() {
		for i := range ix.docs {
			identify(&ix.docs[i], ix.lines[ix.docs[i].from:ix.docs[i].to])
		}
	})
}

// identities returns the file's documents, identified.
func (ix *lineIndex) identities() []*docStart {
	ix.identify()
	out := make([]*docStart, len(ix.docs))
	for i := range ix.docs {
		out[i] = &ix.docs[i]
	}
	return out
}

// objectLine returns the line where the document of an object starts: the
// file's only document, else the only one of its kind, else the one of its
// kind whose name the rendered name contains (namePrefix and nameSuffix
// wrap it), the longest such, in the object's namespace when there are
// several; 0 when none matches.
func (ix *lineIndex) objectLine(kind, namespace, name string) int {
	if len(ix.docs) == 1 {
		return ix.docs[0].line
	}
	ix.identify()
	var sameKind []docStart
	for _, d := range ix.docs {
		if d.kind == kind {
			sameKind = append(sameKind, d)
		}
	}
	if len(sameKind) == 1 {
		return sameKind[0].line
	}
	best, bestScore := 0, 0
	for _, d := range sameKind {
		if d.name == "" || !strings.Contains(name, d.name) {
			continue
		}
		score := 2 * len(d.name)
		if d.namespace == namespace {
			score++
		}
		if score > bestScore {
			best, bestScore = d.line, score
		}
	}
	return best
}

// generatorKeys are the kustomization file fields that list the
// generators kustomize names in an origin's configuredBy.
var generatorKeys = map[string]string{
	"ConfigMapGenerator":          "configMapGenerator",
	"SecretGenerator":             "secretGenerator",
	"HelmChartInflationGenerator": "helmCharts",
}

// generatorLine returns the line of a kustomization file where the
// generator of an object is declared: the "name:" of its entry that the
// object's name contains (the longest), else the line of the field listing
// the generators; 0 when the file has neither.
func (ix *lineIndex) generatorLine(generator, name string) int {
	key, ok := generatorKeys[generator]
	if !ok {
		return 0
	}
	section, best, bestLen := 0, 0, 0
	for i, line := range ix.lines {
		line = strings.TrimRight(line, "\r")
		if isBlankOrComment(line) {
			continue
		}
		if line[0] != ' ' && line[0] != '-' {
			if section > 0 {
				break
			}
			if k, _, _ := strings.Cut(line, ":"); k == key {
				section = i + 1
			}
			continue
		}
		if section == 0 {
			continue
		}
		entry := strings.TrimLeft(strings.TrimSpace(line), "- ")
		if k, value, ok := strings.Cut(entry, ":"); ok && k == "name" {
			if n := scalar(value); n != "" && len(n) > bestLen && strings.Contains(name, n) {
				best, bestLen = i+1, len(n)
			}
		}
	}
	if best > 0 {
		return best
	}
	return section
}

// DocumentLine returns the first line of the index-th document (1-based,
// counting every document between separators, as MalformedError does) of a
// file relative to the repository root; 0 when it cannot be read.
func (b *Builder) DocumentLine(file string, index int) int {
	data, err := b.disk.ReadFile(filepath.Join(b.root, filepath.FromSlash(file)))
	if err != nil {
		return 0
	}
	// A separator ends a document only when one began: the reader counts
	// no empty document (two separators in a row, one first in the file).
	doc, begun := 1, false
	for i, line := range strings.Split(string(trimBOM(data)), "\n") {
		if isSeparator(line) {
			if begun {
				doc, begun = doc+1, false
			}
			continue
		}
		if doc == index {
			return i + 1
		}
		begun = true
	}
	return 0
}

// trimBOM drops a UTF-8 byte order mark, which would hide the first key.
func trimBOM(data []byte) []byte {
	return bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
}
