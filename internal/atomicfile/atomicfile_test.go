package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// leftovers lists the temporary files WriteFile left in dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".atomicfile-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name     string
		existing string // "" means the file does not exist before
		perm     os.FileMode
		content  string
	}{
		{name: "create", perm: 0o644, content: "hello\n"},
		{name: "replace", existing: "old contents that are longer\n", perm: 0o600, content: "new\n"},
		{name: "empty", existing: "x", perm: 0o640, content: ""},
		{name: "executable", existing: "#!/bin/sh\n", perm: 0o755, content: "#!/bin/sh\nexit 0\n"},
		{name: "large", perm: 0o644, content: strings.Repeat("0123456789abcdef", 1<<14)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.txt")
			if tt.existing != "" {
				if err := os.WriteFile(path, []byte(tt.existing), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := WriteFile(path, tt.perm, writeString(tt.content)); err != nil {
				t.Fatalf("WriteFile: %v", err)
			}
			if got := readFile(t, path); got != tt.content {
				t.Errorf("contents = %q, want %q", got, tt.content)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != tt.perm {
				t.Errorf("mode = %v, want %v", fi.Mode().Perm(), tt.perm)
			}
			if l := leftovers(t, dir); len(l) != 0 {
				t.Errorf("temporary files left: %v", l)
			}
		})
	}
}

func TestWriteFileFailureLeavesDestinationUntouched(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name    string
		write   func(io.Writer) error
		wantErr error
	}{
		{
			name:    "callback error before writing",
			write:   func(io.Writer) error { return errBoom },
			wantErr: errBoom,
		},
		{
			name: "callback error after partial write",
			write: func(w io.Writer) error {
				io.WriteString(w, strings.Repeat("partial ", 10000))
				return errBoom
			},
			wantErr: errBoom,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.txt")
			if err := os.WriteFile(path, []byte("original\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := WriteFile(path, 0o644, tt.write)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if got := readFile(t, path); got != "original\n" {
				t.Errorf("destination changed to %q", got)
			}
			if l := leftovers(t, dir); len(l) != 0 {
				t.Errorf("temporary files left: %v", l)
			}
		})
	}
}

func TestWriteFilePanicCleansUp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	func() {
		defer func() {
			if r := recover(); r != "bad writer" {
				t.Errorf("recovered %v, want the callback's panic", r)
			}
		}()
		WriteFile(path, 0o644, func(w io.Writer) error {
			io.WriteString(w, "half")
			panic("bad writer")
		})
	}()
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("destination exists after panic: %v", err)
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Errorf("temporary files left: %v", l)
	}
}

func TestWriteFileErrors(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
	}{
		{"missing directory", filepath.Join(dir, "nope", "f.txt")},
		{"destination is a directory", sub},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			called := false
			err := WriteFile(tt.path, 0o644, func(w io.Writer) error { called = true; return nil })
			if err == nil {
				t.Fatal("WriteFile succeeded, want an error")
			}
			if called {
				t.Error("write callback ran although the destination is unusable")
			}
			if l := leftovers(t, dir); len(l) != 0 {
				t.Errorf("temporary files left: %v", l)
			}
		})
	}
	if err := WriteFile(filepath.Join(dir, "x"), 0o644, nil); err == nil {
		t.Error("nil callback accepted")
	}
}

func TestWriteFileRenameFailure(t *testing.T) {
	// A destination that turns into a directory after the checks makes the
	// final rename fail; the temporary file must still go away.
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	err := WriteFile(path, 0o644, func(w io.Writer) error {
		io.WriteString(w, "data")
		if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(path, "keep"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return nil
	})
	if err == nil {
		t.Fatal("WriteFile succeeded, want a rename error")
	}
	if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
		t.Errorf("directory at destination disturbed: %v", err)
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Errorf("temporary files left: %v", l)
	}
}

func TestWriteFileKeepsSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.txt")
	link := filepath.Join(dir, "link.txt")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.txt", link); err != nil {
		t.Skipf("symlinks unsupported here: %v", err)
	}
	if err := WriteFile(link, 0o644, writeString("new")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(link)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		t.Error("symlink replaced by a regular file")
	}
	if got := readFile(t, target); got != "new" {
		t.Errorf("target = %q, want %q", got, "new")
	}
}

func TestWriteFileIgnoresUmask(t *testing.T) {
	// perm is applied with chmod: a group-writable mode survives a 022 umask.
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := WriteFile(path, 0o664, writeString("x")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o664 {
		t.Errorf("mode = %v, want -rw-rw-r--", fi.Mode().Perm())
	}
}
