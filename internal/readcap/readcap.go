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
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, not a %s", path, what)
	} else if err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, larger than the %d MiB limit for a %s", path, fi.Size(), limit>>20, what)
	} else if err == nil && !fi.Mode().IsRegular() {
		limit = min(limit, MaxStream)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than the %d MiB limit for a %s", path, limit>>20, what)
	}
	return b, nil
}
