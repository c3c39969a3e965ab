package readcap

import (
	"fmt"
	"io"
	"os"
)

// MaxStream bounds what is read from a pipe or device, whose size is not
// known in advance.
const MaxStream = 64 << 20

// ReadFile reads path whole, refusing one larger than limit bytes; what
// names the kind of file in the messages ("PTX module", "model spec").
func ReadFile(path, what string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b []byte
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, not a %s", path, what)
	} else if err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, larger than the %d MiB limit for a %s", path, fi.Size(), limit>>20, what)
	} else if err == nil && fi.Mode().IsRegular() {
		// Sized once (io.ReadAll would grow the buffer by doubling:
		// ~2× the file in copies and cleared memory); one byte more
		// sees a file that grew since Stat.
		b = make([]byte, 0, fi.Size()+1)
		adviseHuge(b[:cap(b)])
	} else if err == nil {
		limit = min(limit, MaxStream)
	}
	b, err = readAll(io.LimitReader(f, limit+1), b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than the %d MiB limit for a %s", path, limit>>20, what)
	}
	return b, nil
}

// readAll appends r's bytes to b until EOF, growing b only when full.
func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
