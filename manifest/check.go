package manifest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// IDOf is the instrumentation id of an instrumented PTX module: the hex of
// the first 8 bytes of the SHA-256 of its bytes.
func IDOf(ptxSrc []byte) string {
	sum := sha256.Sum256(ptxSrc)
	return hex.EncodeToString(sum[:8])
}

// CheckPTX checks that m describes the instrumented module ptxSrc: the
// instrumentation id must be the module's hash (so a manifest of another
// instrumentation, another mode or another capacity of the same kernel is
// refused), and every probe's out_line must be a line of the module. The
// error names the field.
func (m *Manifest) CheckPTX(ptxSrc []byte) error {
	if got := IDOf(ptxSrc); m.InstrumentationID != got {
		return fmt.Errorf("manifest: instrumentation_id %s does not match the PTX (its hash is %s): the manifest belongs to another instrumentation (re-instrument, or pass the matching --manifest)", m.InstrumentationID, got)
	}
	lines := bytes.Count(ptxSrc, []byte{'\n'}) + 1
	for _, k := range m.Kernels {
		for _, p := range k.Probes {
			if p.OutLine < 0 || p.OutLine > lines {
				return fmt.Errorf("manifest: probe %d: out_line %d is past the PTX's %d lines", p.ID, p.OutLine, lines)
			}
		}
	}
	return nil
}
