package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/ptxtrace/ptxtrace/manifest"
)

// Size limits of the files ptxtrace reads whole. They lie far above any
// real input (the largest PTX of the shared corpus is a few MiB, launch and
// model specs are a few KiB, a manifest a few MiB) and far below what
// would exhaust memory, so /dev/zero or a mistaken binary gives an error
// naming the file instead of a fatal out-of-memory.
const (
	maxPTXBytes      = 1 << 30  // PTX modules
	maxSpecBytes     = 16 << 20 // launch and model specs (YAML/JSON)
	maxManifestBytes = 64 << 20 // probe manifests (JSON)
	// maxStreamBytes bounds what is read from a pipe or device, whose size
	// is not known in advance.
	maxStreamBytes = 64 << 20
)

// readCapped reads the file path whole, refusing one larger than limit
// bytes (what names the kind of file for the message). Non-regular files
// (pipes, devices) are read up to the limit.
func readCapped(path, what string, limit int64) ([]byte, error) {
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
		limit = min(limit, maxStreamBytes)
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

// readManifest reads and decodes the probe manifest at path.
func readManifest(path string) (*manifest.Manifest, error) {
	data, err := readCapped(path, "manifest", maxManifestBytes)
	if err != nil {
		return nil, err
	}
	m, err := manifest.Read(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}
