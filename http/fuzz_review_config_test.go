package http_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	rankdhttp "rankd/http"
)

// FuzzLoadConfig checks that a configuration file is read whole or refused: what LoadConfig takes is one
// JSON object of known fields and nothing after it, as a strict decoder reads it, and a configuration read
// gives an authority or an error, never a panic.
func FuzzLoadConfig(f *testing.F) {
	for _, seed := range []string{
		`{"tokens":[{"token":"0123456789abcdef0123","role":"admin"}]}`,
		`{"tokens":[{"token":"0123456789abcdef0123","role":"team","contest":"c1","team":"t1","name":"Alpha"},{"token":"judge-token-01234567","role":"judge"}]}`,
		`{"tokens":[{"token":"short","role":"admin"}]}`,
		`{"tokens":[{"token":"0123456789abcdef0123","role":"judge","contest":"c1"}]}`,
		`{"tokens":[{"token":"0123456789abcdef0123","role":"king"}]}`,
		`{"tokens":[{"token":"0123456789abcdef0123","role":"admin"}]}` + "\n" + `{"tokens":[{"token":"fedcba9876543210fedc","role":"admin"}]}`,
		`{"tokens":[{"token":"0123456789abcdef0123","role":"admin"}],}`,
		`{"tokens":null} trailing`,
		`{"tokenz":[]}`,
		"\ufeff{}",
		``,
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "config.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := rankdhttp.LoadConfig(path)
		var strict rankdhttp.Config
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		strictErr := dec.Decode(&strict)
		if strictErr == nil {
			if _, tokErr := dec.Token(); tokErr != io.EOF {
				strictErr = errors.New("data after the object")
			}
		}
		if (err == nil) != (strictErr == nil) {
			t.Fatalf("%q: got %v, want %v", data, err, strictErr)
		}
		if err != nil {
			return
		}
		if _, err := rankdhttp.NewAuth(cfg, "", "", nil); err != nil && err.Error() == "" {
			t.Fatalf("%q: an error without a message", data)
		}
	})
}

// A configuration file with anything after its object is refused: a second object pasted below the first
// would otherwise be dropped with its tokens, and the server start without them.
func TestLoadConfigRefusesTrailingData(t *testing.T) {
	const admin = `{"tokens":[{"token":"0123456789abcdef0123","role":"admin"}]}`
	for _, tt := range []struct {
		name, data string
		ok         bool
	}{
		{"one object", admin, true},
		{"one object and blank lines", admin + "\n\n \t\n", true},
		{"two objects", admin + "\n" + `{"tokens":[{"token":"fedcba9876543210fedc","role":"judge"}]}`, false},
		{"a stray character", admin + ",", false},
		{"a stray word", admin + " tokens", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			if err := os.WriteFile(path, []byte(tt.data), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := rankdhttp.LoadConfig(path)
			if got := err == nil; got != tt.ok {
				t.Errorf("got error %v, want success %v", err, tt.ok)
			}
		})
	}
}
