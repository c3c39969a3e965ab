package manifest

import (
	"encoding/json"
	"strconv"
)

// AppendKernel appends k encoded as json.MarshalIndent(k, prefix, "  ")
// encodes it, byte for byte, without reflection: a large module's
// manifest is mostly its kernels' probes, and encoding/json spends most
// of its time on reflection and on a second pass that indents.
// Strings and floats that are not plain (a byte below 0x20 or above
// 0x7e, a quote, a backslash, or one of < > & that encoding/json escapes
// for HTML; any float) are handed to encoding/json itself, whose error
// (a NaN or infinite float) AppendKernel returns.
func AppendKernel(b []byte, k *Kernel, prefix string) ([]byte, error) {
	e := encoder{b: b, nl: append([]byte{'\n'}, prefix...)}
	e.open('{')
	e.key("name")
	e.str(k.Name)
	e.key("params_added")
	if k.ParamsAdded == nil {
		e.b = append(e.b, "null"...)
	} else {
		e.open('[')
		for i := range k.ParamsAdded {
			p := &k.ParamsAdded[i]
			e.elem(i)
			e.open('{')
			e.key("index")
			e.int(int64(p.Index))
			e.key("name")
			e.str(p.Name)
			e.key("type")
			e.str(p.Type)
			e.key("host")
			e.str(p.Host)
			e.close('}')
		}
		e.close(']')
	}
	if k.WarpsPerCTA != 0 {
		e.key("warps_per_cta")
		e.int(int64(k.WarpsPerCTA))
	}
	e.key("staging")
	e.staging(&k.Staging)
	if k.MaxNReg != 0 {
		e.key("max_nreg")
		e.int(int64(k.MaxNReg))
	}
	e.key("probes")
	if k.Probes == nil {
		e.b = append(e.b, "null"...)
	} else {
		e.open('[')
		for i := range k.Probes {
			e.elem(i)
			e.probe(&k.Probes[i])
		}
		e.close(']')
	}
	e.close('}')
	return e.b, e.err
}

// encoder writes indented JSON the way encoding/json's Indent lays it
// out: each member or element on a line of its own at its depth, empty
// arrays and objects as "[]" and "{}".
type encoder struct {
	b     []byte
	nl    []byte // "\n" + prefix + depth × "  "
	first bool   // no member or element written yet at this depth
	err   error  // the first float encoding/json refused
}

// open starts an object or array.
func (e *encoder) open(c byte) {
	e.b = append(e.b, c)
	e.nl = append(e.nl, ' ', ' ')
	e.first = true
}

// close ends an object or array.
func (e *encoder) close(c byte) {
	e.nl = e.nl[:len(e.nl)-2]
	if !e.first { // "[]" and "{}" stay on one line
		e.b = append(e.b, e.nl...)
	}
	e.b = append(e.b, c)
	e.first = false
}

// sep starts the next member or element.
func (e *encoder) sep() {
	if !e.first {
		e.b = append(e.b, ',')
	}
	e.b = append(e.b, e.nl...)
	e.first = false
}

func (e *encoder) key(name string) {
	e.sep()
	e.b = append(e.b, '"')
	e.b = append(e.b, name...)
	e.b = append(e.b, '"', ':', ' ')
}

func (e *encoder) elem(int) { e.sep() }

func (e *encoder) int(v int64) { e.b = strconv.AppendInt(e.b, v, 10) }

func (e *encoder) str(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			e.b = append(e.b, q...)
			return
		}
	}
	e.b = append(e.b, '"')
	e.b = append(e.b, s...)
	e.b = append(e.b, '"')
}

func (e *encoder) float(f float64) {
	q, err := json.Marshal(f)
	if err != nil && e.err == nil {
		e.err = err
	}
	e.b = append(e.b, q...)
}

func (e *encoder) staging(s *Staging) {
	e.open('{')
	e.key("where")
	e.str(s.Where)
	e.key("requested")
	e.str(s.Requested)
	if s.Reason != "" {
		e.key("reason")
		e.str(s.Reason)
	}
	e.key("shared_bytes_added")
	e.int(int64(s.SharedBytesAdded))
	if s.RegsPerThread != 0 {
		e.key("regs_per_thread")
		e.int(int64(s.RegsPerThread))
	}
	if s.RegsSource != "" {
		e.key("regs_source")
		e.str(s.RegsSource)
	}
	if s.ThreadsPerBlock != 0 {
		e.key("threads_per_block")
		e.int(int64(s.ThreadsPerBlock))
	}
	if s.BlockSource != "" {
		e.key("block_source")
		e.str(s.BlockSource)
	}
	if s.SharedBytesBase != 0 {
		e.key("shared_bytes_base")
		e.int(int64(s.SharedBytesBase))
	}
	if s.OccupancyBefore != 0 {
		e.key("occupancy_before")
		e.float(s.OccupancyBefore)
	}
	if s.OccupancyAfter != 0 {
		e.key("occupancy_after")
		e.float(s.OccupancyAfter)
	}
	if s.WarpsBefore != 0 {
		e.key("active_warps_before")
		e.int(int64(s.WarpsBefore))
	}
	if s.WarpsAfter != 0 {
		e.key("active_warps_after")
		e.int(int64(s.WarpsAfter))
	}
	e.close('}')
}

func (e *encoder) probe(p *Probe) {
	e.open('{')
	e.key("id")
	e.b = strconv.AppendUint(e.b, uint64(p.ID), 10)
	e.key("kernel")
	e.str(p.Kernel)
	e.key("kind")
	e.str(p.Kind)
	e.key("region")
	e.int(int64(p.Region))
	e.key("region_kind")
	e.str(p.RegionKind)
	e.key("mode")
	e.str(p.Mode)
	if p.Space != "" {
		e.key("space")
		e.str(p.Space)
	}
	e.key("line")
	e.int(int64(p.Line))
	if p.Text != "" {
		e.key("text")
		e.str(p.Text)
	}
	e.key("out_line")
	e.int(int64(p.OutLine))
	if p.Function != "" {
		e.key("function")
		e.str(p.Function)
	}
	if len(p.Closes) > 0 {
		e.key("closes")
		e.open('[')
		for i, c := range p.Closes {
			e.elem(i)
			e.int(int64(c))
		}
		e.close(']')
	}
	if p.LocFile != "" {
		e.key("loc_file")
		e.str(p.LocFile)
	}
	if p.LocLine != 0 {
		e.key("loc_line")
		e.int(int64(p.LocLine))
	}
	if p.LocCol != 0 {
		e.key("loc_col")
		e.int(int64(p.LocCol))
	}
	e.close('}')
}
