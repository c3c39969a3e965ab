package manifest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
)

// IDOf is the instrumentation id of an instrumented PTX module: the hex of
// the first 8 bytes of the SHA-256 of its bytes.
func IDOf(ptxSrc []byte) string {
	sum := sha256.Sum256(ptxSrc)
	return hex.EncodeToString(sum[:8])
}

// The instrumentation's own marks in its output PTX, which CheckPTX
// compares with the manifest: the prologue comment naming the capacity, the
// record stores (st.v2.u64 {id, time} through a %__pt_ address register),
// the timer reads into %__pt_ registers and the .entry names.
var (
	prologueRe = regexp.MustCompile(`// ptxtrace: prologue \([^)\n]*?\b(\d+) records per warp\)`)
	recordRe   = regexp.MustCompile(`\bst(?:\.volatile)?\.v2\.u64\s+\[%__pt_\w+(?:\+\d+)?\],\s*\{(\d+),`)
	timerRe    = regexp.MustCompile(`\bmov\.[ub](?:32|64)\s+%__pt_\w+,\s*%(clock64|clock|globaltimer)\b`)
	entryRe    = regexp.MustCompile(`\.entry\s+([A-Za-z_$%][\w$]*)`)
)

// CheckPTX checks that m describes the instrumented module ptxSrc: the
// instrumentation id must be the module's hash (so a manifest of another
// instrumentation, another mode or another capacity of the same kernel is
// refused), and, against a manifest edited by hand with the id kept, every
// kernel must be an .entry of the module, the records per warp those its
// probe code was built for, the timer the one its probe code reads, every
// probe id its record stores write with an immediate one the manifest
// lists (grouped probes compute theirs, so the converse is not checked), and every probe's
// out_line a line of the module. The error names the field.
func (m *Manifest) CheckPTX(ptxSrc []byte) error {
	if got := IDOf(ptxSrc); m.InstrumentationID != got {
		return fmt.Errorf("manifest: instrumentation_id %s does not match the PTX (its hash is %s): the manifest belongs to another instrumentation (re-instrument, or pass the matching --manifest)", m.InstrumentationID, got)
	}
	lines := bytes.Count(ptxSrc, []byte{'\n'}) + 1
	entries := map[string]bool{}
	for _, e := range entryRe.FindAllSubmatch(ptxSrc, -1) {
		entries[string(e[1])] = true
	}
	ids := map[uint32]bool{}
	for _, k := range m.Kernels {
		if !entries[k.Name] {
			return fmt.Errorf("manifest: kernel %q is not an .entry of the PTX", k.Name)
		}
		for _, p := range k.Probes {
			ids[p.ID] = true
			if p.OutLine < 0 || p.OutLine > lines {
				return fmt.Errorf("manifest: probe %d: out_line %d is past the PTX's %d lines", p.ID, p.OutLine, lines)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	for _, c := range prologueRe.FindAllSubmatch(ptxSrc, -1) {
		if n, err := strconv.Atoi(string(c[1])); err != nil || n != m.Buffer.RecordsPerWarp {
			return fmt.Errorf("manifest: buffer records_per_warp %d does not match the PTX, whose probe code is built for %s records per warp", m.Buffer.RecordsPerWarp, c[1])
		}
	}
	for _, t := range timerRe.FindAllSubmatch(ptxSrc, -1) {
		if string(t[1]) != m.Timer {
			return fmt.Errorf("manifest: timer %q does not match the PTX, whose probe code reads %%%s", m.Timer, t[1])
		}
	}
	recs := recordRe.FindAllSubmatch(ptxSrc, -1)
	for _, r := range recs {
		if id, err := strconv.ParseUint(string(r[1]), 10, 32); err != nil || !ids[uint32(id)] {
			return fmt.Errorf("manifest: the PTX records probe id %s, which no probe of the manifest has", r[1])
		}
	}
	return nil
}
