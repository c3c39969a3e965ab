package readcap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(small, "test file", 5); err != nil || string(b) != "12345" {
		t.Errorf("at the limit: %q, %v", b, err)
	}
	if _, err := ReadFile(small, "test file", 4); err == nil || !strings.Contains(err.Error(), "5 bytes, larger than") {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := ReadFile(dir, "test file", 4); err == nil || !strings.Contains(err.Error(), "is a directory, not a test file") {
		t.Errorf("directory: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ReadFile("/dev/zero", "test file", 1<<20); err == nil || !strings.Contains(err.Error(), "larger than the 1 MiB limit") {
			t.Errorf("/dev/zero: %v", err)
		}
	}
}
