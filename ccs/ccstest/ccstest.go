// Package ccstest helps tests check rankd's output against the ICPC CCS Contest API 2023-06 JSON Schemas and
// find the real contest feeds, both kept in the shared directory that sits beside the module's root.
package ccstest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SpecVersion is the Contest API version whose schemas SchemaValidator loads.
const SpecVersion = "2023-06"

// SharedPath returns the path of elem inside the shared directory (../shared from the module root, where the
// schemas and the real feeds live), failing the test with a clear message when it is missing.
func SharedPath(tb testing.TB, elem ...string) string {
	tb.Helper()
	root, err := moduleRoot()
	if err != nil {
		tb.Fatalf("ccstest: %v", err)
	}
	p := filepath.Join(append([]string{root, "..", "shared"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("ccstest: %s is missing (the shared directory must sit beside the module root): %v", p, err)
	}
	return p
}

// moduleRoot walks up from the working directory (a test's package directory) to the directory with go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

// Validator checks JSON documents against one schema of the Contest API.
type Validator struct {
	name   string
	schema *jsonschema.Schema
}

// SchemaValidator compiles the named schema (e.g. "scoreboard.json") of the 2023-06 Contest API, with every
// other schema of that version available to its references. It fails the test if the schemas are missing.
func SchemaValidator(tb testing.TB, name string) *Validator {
	tb.Helper()
	dir := SharedPath(tb, "ccs-specs", SpecVersion)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("ccstest: no schemas in %s", dir)
	}
	c := jsonschema.NewCompiler()
	want := ""
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatalf("ccstest: %v", err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			tb.Fatalf("ccstest: %s: %v", f, err)
		}
		// The schemas refer to each other by their $id URLs; register each under its own so no lookup leaves
		// the machine.
		id, _ := doc.(map[string]any)["$id"].(string)
		if id == "" {
			tb.Fatalf("ccstest: %s has no $id", f)
		}
		if err := c.AddResource(id, doc); err != nil {
			tb.Fatalf("ccstest: %s: %v", f, err)
		}
		if filepath.Base(f) == name {
			want = id
		}
	}
	if want == "" {
		tb.Fatalf("ccstest: no schema %q in %s", name, dir)
	}
	sch, err := c.Compile(want)
	if err != nil {
		tb.Fatalf("ccstest: compile %s: %v", name, err)
	}
	return &Validator{name: name, schema: sch}
}

// Check returns why doc does not conform to the schema, or nil.
func (v *Validator) Check(doc []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	return v.schema.Validate(inst)
}

// Validate fails the test, showing the document and every violation, if doc does not conform to the schema.
func (v *Validator) Validate(tb testing.TB, doc []byte) {
	tb.Helper()
	if err := v.Check(doc); err != nil {
		tb.Errorf("%s: %s\ndocument: %s", v.name, strings.TrimSpace(err.Error()), excerpt(doc))
	}
}

// excerpt keeps failure messages readable when the document is a whole scoreboard.
func excerpt(b []byte) string {
	const max = 2000
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}
