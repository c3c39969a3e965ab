package main

import (
	"bytes"
	"fmt"

	"github.com/ptxtrace/ptxtrace/internal/readcap"
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
)

// readManifest reads and decodes the probe manifest at path.
func readManifest(path string) (*manifest.Manifest, error) {
	data, err := readcap.ReadFile(path, "manifest", maxManifestBytes)
	if err != nil {
		return nil, err
	}
	m, err := manifest.Read(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}
