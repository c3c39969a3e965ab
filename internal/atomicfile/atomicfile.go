package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// tempPattern names temporary files: a leading dot keeps them out of glob
// patterns and most listings while a write is in progress.
const tempPattern = ".atomicfile-*.tmp"

// WriteFile atomically replaces (or creates) the file at path with the bytes
// that write produces. write is called once with a buffered writer for the
// temporary file; if it returns an error, or any later step fails, nothing
// at path changes and the error is returned. perm sets the permission bits
// (including setuid, setgid and sticky) of the resulting file.
func WriteFile(path string, perm os.FileMode, write func(io.Writer) error) (err error) {
	if write == nil {
		return errors.New("atomicfile: nil write function")
	}
	p, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer p.Abort() // after Commit, nothing; on errors and panics in write, the clean-up
	if err := write(p); err != nil {
		return err
	}
	return Commit(p)
}

// userErr names the user's file, never the temporary file, in an error
// about writing path.
func userErr(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: "write", Path: path, Err: pe.Err}
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return &fs.PathError{Op: "write", Path: path, Err: le.Err}
	}
	return fmt.Errorf("%s: %w", path, err)
}

// resolve follows symbolic links at path so that a link is kept and its
// target replaced. A path that does not exist yet is returned as is.
func resolve(path string) (string, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return path, nil
	case err != nil:
		return "", fmt.Errorf("atomicfile: %w", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", fmt.Errorf("atomicfile: %w", err)
		}
		return resolve(t)
	case fi.IsDir():
		return "", fmt.Errorf("atomicfile: %s is a directory", path)
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("atomicfile: %s is not a regular file", path)
	}
	return path, nil
}

// syncDir flushes the directory entry of a completed rename. Not every
// platform or file system supports syncing a directory; the data itself is
// already durable, so failures are ignored.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}
