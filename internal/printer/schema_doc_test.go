package printer

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/record"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// documentedTypes maps each field table of docs/output.md, by its "####"
// heading, to the Go type whose JSON it documents.
func documentedTypes() map[string]reflect.Type {
	return map[string]reflect.Type{
		// standup tiers -o json|yaml
		"Top level":          reflect.TypeFor[TiersReport](),
		"Tier":               reflect.TypeFor[Tier](),
		"Node":               reflect.TypeFor[TierNode](),
		"Missing dependency": reflect.TypeFor[MissingDependency](),
		// standup crds -o json, crds capture -o json
		"crds document":    reflect.TypeFor[crdsDocument](),
		"crds repair":      reflect.TypeFor[crdRepair](),
		"Chart release":    reflect.TypeFor[crds.ChartRelease](),
		"Helm refusal":     reflect.TypeFor[crds.HelmRefusal](),
		"Bundle CRD":       reflect.TypeFor[crdFile](),
		"CRD state":        reflect.TypeFor[crdState](),
		"capture document": reflect.TypeFor[captureDocument](),
		// standup resume -o json, and its --dry-run
		"Event":         reflect.TypeFor[walkRecord](),
		"Reference":     reflect.TypeFor[tiers.ID](),
		"Diagnosis":     reflect.TypeFor[crds.Diagnosis](),
		"Missing kind":  reflect.TypeFor[crds.MissingType](),
		"Object":        reflect.TypeFor[crds.ObjectRef](),
		"Summary":       reflect.TypeFor[wait.Summary](),
		"Proof":         reflect.TypeFor[wait.Proof](),
		"Operator wait": reflect.TypeFor[wait.OperatorWait](),
		"Limit":         reflect.TypeFor[wait.Limit](),
		"Plan step":     reflect.TypeFor[planRecord](),
		"Plan deadlock": reflect.TypeFor[wait.PlanDeadlock](),
		"Plan CRD":      reflect.TypeFor[wait.PlanCRD](),
		// resume --record, crds --record
		"Record header":  reflect.TypeFor[record.Header](),
		"Record graph":   reflect.TypeFor[record.Graph](),
		"Graph node":     reflect.TypeFor[tiers.Node](),
		"Dependency":     reflect.TypeFor[tiers.Dependency](),
		"Record request": reflect.TypeFor[record.Request](),
		"Record dropped": reflect.TypeFor[record.Dropped](),
	}
}

// TestOutputDocMatchesTheTypes: every field table of docs/output.md lists
// exactly the JSON fields of its Go type, in the order they are written,
// each with the type a consumer reads; and every object a line of resume
// -o json or a crds document can hold has its table. A field added,
// renamed or retyped in the code without the doc fails here.
func TestOutputDocMatchesTheTypes(t *testing.T) {
	tables := docTables(t, "../../docs/output.md")
	types := documentedTypes()
	for title := range tables {
		if _, ok := types[title]; !ok {
			t.Errorf("docs/output.md has a table %q that documents no known type: add it to documentedTypes", title)
		}
	}
	for title, typ := range types {
		doc, ok := tables[title]
		if !ok {
			t.Errorf("docs/output.md has no table %q for %s", title, typ)
			continue
		}
		got := jsonFields(typ)
		if len(doc) != len(got) {
			t.Errorf("%q documents %d fields %v; %s has %d: %v", title, len(doc), names(doc), typ, len(got), names(got))
			continue
		}
		for i := range got {
			if doc[i].name != got[i].name {
				t.Errorf("%q field %d is %q; %s writes %q there", title, i+1, doc[i].name, typ, got[i].name)
			}
			if doc[i].typ != got[i].typ {
				t.Errorf("%q field %q has type %q; %s writes %q", title, got[i].name, doc[i].typ, typ, got[i].typ)
			}
		}
	}
	documented := map[reflect.Type]bool{}
	for _, typ := range types {
		documented[typ] = true
	}
	for _, root := range []reflect.Type{reflect.TypeFor[walkRecord](), reflect.TypeFor[planRecord](), reflect.TypeFor[crdsDocument](), reflect.TypeFor[captureDocument](), reflect.TypeFor[record.Line]()} {
		for _, typ := range objectTypes(root) {
			if !documented[typ] {
				t.Errorf("%s holds %s, which docs/output.md has no table for", root, typ)
			}
		}
	}
}

// TestDocExamplesParse: the NDJSON example lines of docs/output.md are
// events a consumer can read, each with the schema version.
func TestDocExamplesParse(t *testing.T) {
	data, err := os.ReadFile("../../docs/output.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for line := range strings.SplitSeq(string(data), "\n") {
		if !strings.HasPrefix(line, `{"schemaVersion":`) {
			continue
		}
		n++
		var rec struct {
			SchemaVersion int `json:"schemaVersion"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.SchemaVersion != WalkSchemaVersion {
			t.Errorf("example line %q: %v, schemaVersion %d", line, err, rec.SchemaVersion)
		}
	}
	if n < 5 {
		t.Errorf("found %d NDJSON example lines, want the events' and the plan's", n)
	}
}

type field struct{ name, typ string }

func names(fs []field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.name
	}
	return out
}

// docTables reads the field tables of a Markdown file: under each "####"
// heading, the first column's `name` and the second column's type.
func docTables(t *testing.T, path string) map[string][]field {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string][]field{}
	title := ""
	for line := range strings.SplitSeq(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "#### "):
			title = strings.TrimPrefix(line, "#### ")
			if _, dup := tables[title]; dup {
				t.Fatalf("%s: two tables titled %q", path, title)
			}
		case title != "" && strings.HasPrefix(line, "|"):
			cells := strings.Split(strings.Trim(line, "|"), "|")
			name := strings.TrimSpace(cells[0])
			if !strings.HasPrefix(name, "`") { // the header row, or its rule
				continue
			}
			tables[title] = append(tables[title], field{name: strings.Trim(name, "`"), typ: strings.TrimSpace(cells[1])})
		case title != "" && len(tables[title]) > 0:
			title = "" // the table ended
		}
	}
	return tables
}

// jsonFields returns the fields encoding/json writes for typ, in order,
// embedded structs inlined, each with the type word a reader sees.
func jsonFields(typ reflect.Type) []field {
	var out []field
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" {
			continue
		}
		if f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		out = append(out, field{name: tag, typ: typeWord(f.Type)})
	}
	return out
}

var (
	timeType     = reflect.TypeFor[time.Time]()
	durationType = reflect.TypeFor[wait.Duration]()
)

// typeWord names a Go type as JSON shows it, in the doc's words.
func typeWord(typ reflect.Type) string {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch {
	case typ == timeType:
		return "string"
	case typ == durationType:
		return "number"
	}
	switch typ.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		if typ.Elem().Kind() == reflect.String {
			return "array of strings"
		}
		return "array"
	}
	return "object"
}

// objectTypes returns the struct types a value of root can hold as a JSON
// object, below root itself: embedded structs are root's own fields.
func objectTypes(root reflect.Type) []reflect.Type {
	seen := map[reflect.Type]bool{}
	var out []reflect.Type
	var visit func(typ reflect.Type, inline bool)
	visit = func(typ reflect.Type, inline bool) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || typ == timeType || seen[typ] {
			return
		}
		seen[typ] = true
		if !inline && typ != root {
			out = append(out, typ)
		}
		for i := range typ.NumField() {
			f := typ.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.IsExported() && tag != "-" {
				visit(f.Type, f.Anonymous && tag == "")
			}
		}
	}
	visit(root, false)
	return out
}
