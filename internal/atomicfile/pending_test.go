package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// pending creates a Pending for path and writes s to it.
func pending(t *testing.T, path, s string) *Pending {
	t.Helper()
	p, err := Create(path, 0o640)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(p, s); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCommitPair: Commit replaces both files (one existing, one new) with
// what was written, WriteAt's overwrite included, with the permission
// bits asked for, and leaves no temporary file.
func TestCommitPair(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.ptx"), filepath.Join(dir, "a.json")
	if err := os.WriteFile(a, []byte("old a"), 0o644); err != nil {
		t.Fatal(err)
	}
	pb := pending(t, b, "{\"id\": \"0000\"}\n")
	if _, err := pb.WriteAt([]byte("beef"), 8); err != nil {
		t.Fatal(err)
	}
	pa := pending(t, a, "new a")
	if err := readFile(t, a); err != "old a" {
		t.Errorf("before Commit: %q", err)
	}
	if err := Commit(pb, pa); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, a); got != "new a" {
		t.Errorf("a: %q", got)
	}
	if got := readFile(t, b); got != "{\"id\": \"beef\"}\n" {
		t.Errorf("b: %q", got)
	}
	for _, p := range []string{a, b} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o640 {
			t.Errorf("%s: %v %v, want mode 0640", p, fi.Mode(), err)
		}
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Errorf("temporary files left: %v", l)
	}
	if _, err := pa.Write([]byte("x")); err == nil {
		t.Error("Write after Commit succeeded")
	}
	if err := Commit(pa); err == nil {
		t.Error("second Commit succeeded")
	}
}

// TestCommitSecondRenameFails: when the last rename fails, the first file
// renamed gets its old contents back (or is removed when it did not
// exist) and no temporary file stays.
func TestCommitSecondRenameFails(t *testing.T) {
	for _, existed := range []bool{true, false} {
		dir := t.TempDir()
		a, b := filepath.Join(dir, "m.json"), filepath.Join(dir, "o.ptx")
		if existed {
			if err := os.WriteFile(a, []byte("old manifest"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		pa, pb := pending(t, a, "new manifest"), pending(t, b, "new ptx")
		// b turns into a non-empty directory: its rename fails.
		if err := os.Mkdir(b, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(b, "keep"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := Commit(pa, pb); err == nil {
			t.Fatal("Commit succeeded, want a rename error")
		}
		if existed {
			if got := readFile(t, a); got != "old manifest" {
				t.Errorf("first file after the failure: %q, want the old contents", got)
			}
		} else if _, err := os.Stat(a); !os.IsNotExist(err) {
			t.Errorf("first file after the failure: %v, want it absent as before", err)
		}
		if fi, err := os.Stat(b); err != nil || !fi.IsDir() {
			t.Errorf("second destination disturbed: %v", err)
		}
		if l := leftovers(t, dir); len(l) != 0 {
			t.Errorf("temporary files left: %v", l)
		}
	}
}

// TestAbort: an aborted Pending leaves the destination as it was and no
// temporary file; Abort after Commit does nothing.
func TestAbort(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	if err := os.WriteFile(a, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := pending(t, a, "new")
	p.Abort()
	p.Abort()
	if got := readFile(t, a); got != "old" {
		t.Errorf("after Abort: %q", got)
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Errorf("temporary files left: %v", l)
	}
	if err := Commit(p); err == nil {
		t.Error("Commit after Abort succeeded")
	}
	q := pending(t, a, "newer")
	if err := Commit(q); err != nil {
		t.Fatal(err)
	}
	q.Abort()
	if got := readFile(t, a); got != "newer" {
		t.Errorf("Abort after Commit: %q", got)
	}
}

// TestSyncThenWrite: Sync completes the contents; a later write fails and
// Commit still commits what was written before.
func TestSyncThenWrite(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	p := pending(t, a, "done")
	if err := p.Sync(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write([]byte("more")); err == nil {
		t.Error("Write after Sync succeeded")
	}
	if _, err := p.WriteAt([]byte("x"), 0); err == nil {
		t.Error("WriteAt after Sync succeeded")
	}
	if err := Commit(p); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, a); got != "done" {
		t.Errorf("%q", got)
	}
}

// TestCommitUnlinkableBackup: when the first destination cannot be
// linked (a non-empty directory: its backup is marked "-") and so its
// rename fails, Commit fails, changes nothing, and leaves a file named
// "-" in the working directory alone (it had removed it).
func TestCommitUnlinkableBackup(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("-", []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "d"), filepath.Join(dir, "o.ptx")
	if err := os.WriteFile(b, []byte("old ptx"), 0o644); err != nil {
		t.Fatal(err)
	}
	pa, pb := pending(t, a, "new"), pending(t, b, "new ptx")
	// a turns into a non-empty directory: no link to it, no rename over it.
	if err := os.MkdirAll(filepath.Join(a, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Commit(pa, pb); err == nil {
		t.Fatal("Commit succeeded, want a rename error")
	}
	if got := readFile(t, "-"); got != "mine" {
		t.Errorf(`file "-": %q`, got)
	}
	if got := readFile(t, b); got != "old ptx" {
		t.Errorf("second destination: %q, want its old contents", got)
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Errorf("temporary files left: %v", l)
	}
}
