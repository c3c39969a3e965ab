package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Pending is a replacement of one file in preparation: its contents go to
// a temporary file beside the destination, which Commit renames over it.
// Until then the destination is unchanged; Abort (or a failed Commit)
// removes the temporary file.
type Pending struct {
	path, target, dir string
	perm              os.FileMode
	f                 *os.File
	bw                *bufio.Writer
	size              int64 // bytes written
	wb                writeback
	synced, closed    bool
	done              bool // committed or aborted
}

// pendingBuf is a Pending's write buffer.
const pendingBuf = 64 << 10

// Create starts the replacement of the file at path (created if absent;
// a symbolic link is kept and the file it resolves to replaced) with
// permission bits perm.
func Create(path string, perm os.FileMode) (*Pending, error) {
	target, err := resolve(path)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(target)
	f, err := os.CreateTemp(dir, tempPattern)
	if err != nil {
		return nil, userErr(path, err)
	}
	return &Pending{path: path, target: target, dir: dir, perm: perm, f: f, bw: bufio.NewWriterSize(f, pendingBuf), wb: newWriteback(f)}, nil
}

// Write appends b to the new contents.
func (p *Pending) Write(b []byte) (int, error) {
	if p.done || p.synced {
		return 0, fmt.Errorf("atomicfile: writing %s after Sync, Commit or Abort", p.path)
	}
	n, err := p.bw.Write(b)
	p.size += int64(n)
	if err != nil {
		return n, fmt.Errorf("atomicfile: writing %s: %w", p.path, err)
	}
	p.wb.note(p.size - int64(p.bw.Buffered()))
	return n, nil
}

// WriteAt overwrites len(b) bytes of the new contents at offset off (within
// or past what was written).
func (p *Pending) WriteAt(b []byte, off int64) (int, error) {
	if p.done || p.synced {
		return 0, fmt.Errorf("atomicfile: writing %s after Sync, Commit or Abort", p.path)
	}
	if err := p.bw.Flush(); err != nil {
		return 0, fmt.Errorf("atomicfile: writing %s: %w", p.path, err)
	}
	n, err := p.f.WriteAt(b, off)
	if err != nil {
		return n, fmt.Errorf("atomicfile: writing %s: %w", p.path, err)
	}
	return n, nil
}

// Sync completes the new contents: it flushes them, sets the permission
// bits, flushes the file to stable storage (fsync) and closes it. Writes
// after it fail. Commit calls it when it was not called; Sync on distinct
// Pendings may run at once.
func (p *Pending) Sync() error {
	if p.done {
		return fmt.Errorf("atomicfile: %s already committed or aborted", p.path)
	}
	if p.synced {
		return nil
	}
	err := p.bw.Flush()
	p.wb.stop()
	if err != nil {
		return fmt.Errorf("atomicfile: writing %s: %w", p.path, err)
	}
	if err := p.f.Chmod(p.perm & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)); err != nil {
		return userErr(p.path, err)
	}
	if err := p.f.Sync(); err != nil {
		return fmt.Errorf("atomicfile: syncing %s: %w", p.path, err)
	}
	p.closed = true
	if err := p.f.Close(); err != nil {
		return fmt.Errorf("atomicfile: closing %s: %w", p.path, err)
	}
	p.synced = true
	return nil
}

// Abort drops the replacement: the temporary file is removed and the
// destination stays as it was. It does nothing after Commit or Abort.
func (p *Pending) Abort() {
	if p.done {
		return
	}
	p.done = true
	p.wb.stop()
	if !p.closed {
		p.f.Close() // the error is irrelevant: the file goes
	}
	os.Remove(p.f.Name())
}

// Commit replaces the destinations of ps, in order, with their new
// contents, all or none: first it completes every one (Sync, at once on
// distinct goroutines, as the disk may flush them side by side), then
// renames each over its destination. When a step fails it returns the
// error, every destination holds its old contents (a destination renamed
// over before the failure gets them back from a hard link made
// beforehand) and the temporary files are removed. Where the file system
// has no hard links a rename failure after the first leaves the earlier
// destinations replaced (the error says so); renames within one directory
// do not fail but for a concurrent change of it. A crash between two
// renames leaves the earlier ones replaced: readers that pair files must
// check they belong together.
func Commit(ps ...*Pending) (err error) {
	defer func() {
		if err != nil {
			for _, p := range ps {
				p.Abort()
			}
		}
	}()
	for _, p := range ps {
		if p.done {
			return fmt.Errorf("atomicfile: %s already committed or aborted", p.path)
		}
	}
	errs := make([]error, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Go(func() { errs[i] = p.Sync() })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	// Hard links to the old contents of every destination, for a failed
	// rename after theirs. The last one's is not needed for that, but
	// with it no rename frees an old file: all are freed at the end, side
	// by side (on a file system that discards freed blocks at once, each
	// removal waits for the device).
	var backups []string
	defer func() {
		var wg sync.WaitGroup
		for _, b := range backups {
			if b != "" && b != "-" {
				wg.Go(func() { os.Remove(b) })
			}
		}
		wg.Wait()
	}()
	if len(ps) > 1 {
		backups = make([]string, len(ps))
		for i, p := range ps {
			backups[i] = backup(p)
		}
	}
	for i, p := range ps {
		if err := os.Rename(p.f.Name(), p.target); err != nil {
			err = userErr(p.path, err)
			for j := i - 1; j >= 0; j-- {
				if err2 := restore(ps[j], backups[j]); err2 != nil {
					err = errors.Join(err, err2)
				}
				backups[j] = ""
			}
			return err
		}
		p.done = true
	}
	dirs := map[string]bool{}
	for _, p := range ps {
		if !dirs[p.dir] {
			dirs[p.dir] = true
			syncDir(p.dir)
		}
	}
	return nil
}

// backup makes a hard link to p's destination beside it and returns its
// name: "" when the destination does not exist, or when no link can be
// made (restore then says so).
func backup(p *Pending) string {
	if _, err := os.Lstat(p.target); err != nil {
		return ""
	}
	f, err := os.CreateTemp(p.dir, tempPattern)
	if err != nil {
		return "-"
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	if err := os.Link(p.target, name); err != nil {
		return "-"
	}
	return name
}

// restore puts back p's destination as it was before the rename of its
// new contents over it, from backup b ("" : there was none; "-": no link
// could be made).
func restore(p *Pending, b string) error {
	switch b {
	case "":
		if err := os.Remove(p.target); err != nil {
			return fmt.Errorf("atomicfile: %s: removing the new file after a later failure: %w", p.path, err)
		}
		return nil
	case "-":
		return fmt.Errorf("atomicfile: %s was replaced before the failure (no hard link to restore it from)", p.path)
	}
	if err := os.Rename(b, p.target); err != nil {
		return fmt.Errorf("atomicfile: %s: restoring the old file after a later failure: %w", p.path, err)
	}
	return nil
}
