package coldstart

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/audit"
)

// skeletonPrinters are the formats of PrintSkeleton, default first: a
// commented standup.yaml fragment, under its own name and as "text" (audit's
// default, so that -o text means the same for audit and audit
// --from-cluster), and the findings as json.
func skeletonPrinters() []printer.DocPrinter[*audit.Skeleton] {
	return []printer.DocPrinter[*audit.Skeleton]{
		{Format: printer.FormatYAML, Write: printer.FromBuilder(writeSkeletonYAML)},
		{Format: printer.FormatText, Write: printer.FromBuilder(writeSkeletonYAML)},
		{Format: printer.FormatJSON, Write: func(b *strings.Builder, sk *audit.Skeleton, _ printer.RenderContext) error {
			doc := skeletonDocument{SchemaVersion: SkeletonSchemaVersion, Skeleton: *sk}
			doc.Findings = printer.NonNil(doc.Findings)
			data, err := json.MarshalIndent(doc, "", "  ")
			if err != nil {
				return err
			}
			b.Write(data)
			b.WriteByte('\n')
			return nil
		}},
	}
}

// SkeletonFormats returns the formats PrintSkeleton accepts, default first.
func SkeletonFormats() []string { return printer.FormatNames(skeletonPrinters()) }

// PrintSkeleton writes sk to w in the given format, one of SkeletonFormats.
// Nothing is written when rendering fails.
func PrintSkeleton(w io.Writer, format string, sk *audit.Skeleton) error {
	return printer.Print(w, skeletonPrinters(), format, sk, printer.RenderContext{}, "audit --from-cluster")
}

// SkeletonSchemaVersion is the version of the `audit --from-cluster -o
// json` schema; it was the audit schema's until that grouped its findings.
const SkeletonSchemaVersion = 1

// skeletonDocument is the json document of `audit --from-cluster`.
type skeletonDocument struct {
	SchemaVersion int `json:"schemaVersion"`
	audit.Skeleton
}

// writeSkeletonYAML writes the declarations as standup.yaml, each kind
// preceded by a comment saying how its source was inferred, and the live CRDs
// that need no declaration as a trailing comment block.
func writeSkeletonYAML(b *strings.Builder, sk *audit.Skeleton) {
	reasons := map[audit.GroupKind]audit.CRDFinding{}
	for _, f := range sk.Findings {
		reasons[f.Defines] = f
	}
	fmt.Fprintf(b, "# standup.yaml entries for the live CRDs that no Kustomization under %s produces\n", sk.Path)
	b.WriteString("# (`standup audit --from-cluster`). Review every entry before adding it to standup.yaml.\n")
	if sk.Placeholders > 0 {
		verb := "are"
		if sk.Placeholders == 1 {
			verb = "is"
		}
		fmt.Fprintf(b, "# %s %s %s: standup refuses the file until each names the kind that makes the operator create its CRDs.\n", printer.Plural(sk.Placeholders, "trigger"), verb, audit.TriggerPlaceholder)
	}
	fmt.Fprintf(b, "apiVersion: %s\nkind: %s\n", sk.Config.APIVersion, sk.Config.Kind)
	writeListKey(b, "runtimeCRDs", len(sk.Config.RuntimeCRDs))
	for _, r := range sk.Config.RuntimeCRDs {
		fmt.Fprintf(b, "  - trigger:\n      group: %s\n      kind: %s\n    kinds:\n", yamlScalar(r.Trigger.Group), yamlScalar(r.Trigger.Kind))
		writeSkeletonKinds(b, r.Kinds, reasons)
	}
	writeListKey(b, "chartCRDs", len(sk.Config.ChartCRDs))
	for _, c := range sk.Config.ChartCRDs {
		fmt.Fprintf(b, "  - helmRelease:\n      namespace: %s\n      name: %s\n    kinds:\n", yamlScalar(c.HelmRelease.Namespace), yamlScalar(c.HelmRelease.Name))
		writeSkeletonKinds(b, c.Kinds, reasons)
	}
	writeListKey(b, "kustomizationCRDs", len(sk.Config.KustomizationCRDs))
	for _, k := range sk.Config.KustomizationCRDs {
		fmt.Fprintf(b, "  - kustomization:\n      namespace: %s\n      name: %s\n    kinds:\n", yamlScalar(k.Kustomization.Namespace), yamlScalar(k.Kustomization.Name))
		writeSkeletonKinds(b, k.Kinds, reasons)
	}
	header := false
	for _, f := range sk.Findings {
		if f.Source != audit.SourceDeclared {
			continue
		}
		if !header {
			b.WriteString("# Live CRDs this file need not declare:\n")
			header = true
		}
		fmt.Fprintf(b, "#   %s: %s\n", f.CRD, f.Reason)
	}
	fmt.Fprintf(b, "# %d live CRDs are produced by this checkout's Kustomizations; Flux's own CRDs are left out.\n", sk.Produced)
}

// writeListKey opens a YAML list, or writes it empty.
func writeListKey(b *strings.Builder, key string, n int) {
	if n == 0 {
		b.WriteString(key + ": []\n")
		return
	}
	b.WriteString(key + ":\n")
}

func writeSkeletonKinds(b *strings.Builder, kinds []audit.GroupKind, reasons map[audit.GroupKind]audit.CRDFinding) {
	for _, gk := range kinds {
		if f, ok := reasons[gk]; ok {
			fmt.Fprintf(b, "      # %s: %s\n", f.CRD, f.Reason)
		}
		fmt.Fprintf(b, "      - group: %s\n        kind: %s\n", yamlScalar(gk.Group), yamlScalar(gk.Kind))
	}
}

var plainScalar = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9.\-_]*$`)

// yamlScalar writes s bare when YAML reads it back as the same string, and
// double-quoted (a JSON string is a YAML one) otherwise.
func yamlScalar(s string) string {
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "null", "y", "n":
		return strconv.Quote(s)
	}
	if plainScalar.MatchString(s) {
		return s
	}
	return strconv.Quote(s)
}
