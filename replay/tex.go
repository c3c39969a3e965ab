package replay

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/ptxtrace/ptxtrace/internal/texture"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// TexBinding is a texture or surface of a launch: a texture reference
// (.texref / old-style .tex) bound by name from the launch spec, or a
// texture/surface object whose handle a kernel parameter carries.
//
// Textures are immutable (internal/texture); surfaces are backed by a
// device allocation (Alloc), so surface stores follow the same
// deterministic write scheme as global stores.
type TexBinding struct {
	Name    string
	ID      uint16           // texture number reported to the model (model.Texel.Tex)
	Tex     *texture.Texture // nil for a surface
	Info    model.TexInfo
	Surface bool
	Alloc   *Alloc // surface memory (x-fastest, then y, z, layers)
	Pitch   int    // surface: bytes per row
}

// TexHandleBase is the handle of the first texture/surface object: a
// kernel parameter holding handle TexHandleBase+i names
// Launch.Textures[len(TexRefs)+len(SurfRefs)+i]; 0 is never a valid handle.
const TexHandleBase = 1

// Geometry codes (inst.sub) of tex/tld4/suld/sust.
const (
	geo1D = iota + 1
	geo2D
	geo3D
	geoA1D
	geoA2D
)

var geoNames = map[string]uint8{".1d": geo1D, ".2d": geo2D, ".3d": geo3D, ".a1d": geoA1D, ".a2d": geoA2D}

// coordinate count of a geometry (array index included).
func geoCoords(g uint8) int {
	switch g {
	case geo1D:
		return 1
	case geo2D:
		return 2
	case geo3D:
		return 3
	case geoA1D:
		return 2
	case geoA2D:
		return 3
	}
	return 0
}

// surface clamp modes (inst.sub2 of suld/sust)
const (
	surfTrap = iota
	surfClamp
	surfZero
)

// txq/suq query names (inst.sub of txq).
var texQueries = []string{"width", "height", "depth", "array_size", "channel_data_type", "channel_order",
	"normalized_coords", "force_unnormalized_coords", "filter_mode", "addr_mode_0", "addr_mode_1",
	"addr_mode_2", "num_mipmap_levels", "num_samples"}

// texHandle lowers the texture/surface operand: a reference name (in.tex)
// or a register holding an object handle (in.s[0]).
func (l *lowerer) texHandle(in *inst, op ptx.Operand, surface bool) error {
	if surface {
		if i, ok := l.c.Prog.surfIdx[op.Name]; ok {
			l.c.usesSurfRef = true
			in.tex = int32(len(l.c.Prog.texrefs) + i)
			in.s[0] = -1
			in.ns = 1
			return nil
		}
	}
	if i, ok := l.c.Prog.texIdx[op.Name]; ok {
		l.c.usesTexRef = true
		in.tex = int32(i)
		in.s[0] = -1
		in.ns = 1
		return nil
	}
	if i, ok := l.c.Prog.surfIdx[op.Name]; ok {
		l.c.usesSurfRef = true
		in.tex = int32(len(l.c.Prog.texrefs) + i)
		in.s[0] = -1
		in.ns = 1
		return nil
	}
	r, err := l.regOf(op.Name)
	if err != nil {
		return fmt.Errorf("texture operand %s is neither a texture/surface reference nor a register", op.Name)
	}
	in.s[0] = r
	in.ns = 1
	return nil
}

// texCoords lowers the coordinate vector of [handle, {c...}] into in.args
// (registers read by the model's scoreboard through fillRegs).
func (l *lowerer) texCoords(in *inst, op ptx.Operand, n int, ctype ptx.Type, arrayIdx bool) error {
	if len(op.Elems) != 1 || op.Elems[0].Kind != ptx.OpVec {
		return fmt.Errorf("expected [texture, {coordinates}]")
	}
	cs := op.Elems[0].Elems
	if len(cs) < n {
		return fmt.Errorf("expected %d coordinates, found %d", n, len(cs))
	}
	for i, c := range cs {
		t := ctype
		if arrayIdx && i == 0 {
			t = ptx.U32
		}
		r, err := l.src(c, t)
		if err != nil {
			return err
		}
		if i < n {
			in.args = append(in.args, slot{reg: r, size: 4})
		}
	}
	return nil
}

func (l *lowerer) lowerTex(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	op := p.Op
	for _, m := range op.Mods {
		switch m {
		case ".level", ".grad", ".cube", ".acube", ".2dms", ".a2dms", ".p", ".sampler":
			return fmt.Errorf("%s is not supported", op.Text)
		}
	}
	switch op.Name {
	case "tex", "tld4":
		return l.lowerTexFetch(p, in)
	case "txq", "suq":
		return l.lowerTexQuery(p, in)
	case "suld", "sust":
		return l.lowerSurf(p, in)
	}
	return fmt.Errorf("%s is not supported", op.Text)
}

// lowerTexFetch lowers tex, tld4.
func (l *lowerer) lowerTexFetch(p *ptx.Instruction, in *inst) error {
	op, a := p.Op, p.Args
	if len(op.Types) != 2 {
		return fmt.Errorf("%s: expected destination and coordinate types", op.Text)
	}
	if len(a) != 2 || a[0].Kind != ptx.OpVec || a[1].Kind != ptx.OpAddr {
		return fmt.Errorf("%s: only the form d, [tex, {coords}] is supported (no lod, offset, depth compare or predicate)", op.Text)
	}
	g, ok := geoNames[op.Dim]
	if !ok {
		return fmt.Errorf("%s: geometry %q is not supported", op.Text, op.Dim)
	}
	dt, ct := op.Types[0], op.Types[1]
	switch dt {
	case ptx.F32, ptx.S32, ptx.U32:
	default:
		return fmt.Errorf("%s: destination type %s is not supported", op.Text, dt)
	}
	if ct != ptx.F32 && ct != ptx.S32 {
		return fmt.Errorf("%s: coordinate type %s is not supported", op.Text, ct)
	}
	in.typ, in.typ2, in.sub = dt, ct, g
	if op.Name == "tld4" {
		if g != geo2D && g != geoA2D || ct != ptx.F32 {
			return fmt.Errorf("%s: tld4 needs .2d or .a2d with .f32 coordinates", op.Text)
		}
		comp := -1
		for i, c := range []string{".r", ".g", ".b", ".a"} {
			if op.Has(c) {
				comp = i
			}
		}
		if comp < 0 {
			return fmt.Errorf("%s: missing component", op.Text)
		}
		in.sub2 = uint8(comp + 1)
	}
	if err := l.setD(in, a[0].Elems...); err != nil {
		return err
	}
	if in.nd != 4 {
		return fmt.Errorf("%s: expected a 4-vector destination", op.Text)
	}
	if err := l.texHandle(in, a[1], false); err != nil {
		return err
	}
	if err := l.texCoords(in, a[1], geoCoords(g), ct, g == geoA1D || g == geoA2D); err != nil {
		return err
	}
	in.m.Mem = model.MemTex
	in.m.Space = model.SpaceTex
	in.m.Size = 16
	in.exec = execTex
	return nil
}

// lowerTexQuery lowers txq, suq.
func (l *lowerer) lowerTexQuery(p *ptx.Instruction, in *inst) error {
	op, a := p.Op, p.Args
	if len(a) != 2 || a[1].Kind != ptx.OpAddr {
		return fmt.Errorf("%s: expected d, [tex]", op.Text)
	}
	q := -1
	for i, n := range texQueries {
		if op.Has("." + n) {
			q = i
		}
	}
	if q < 0 {
		return fmt.Errorf("%s: unsupported query", op.Text)
	}
	in.sub = uint8(q)
	if err := l.setD(in, a[0]); err != nil {
		return err
	}
	if err := l.texHandle(in, a[1], op.Name == "suq"); err != nil {
		return err
	}
	in.m.Class = model.ClassInt
	in.m.Mem = model.MemNone
	in.exec = execTxq
	return nil
}

// lowerSurf lowers suld, sust.
func (l *lowerer) lowerSurf(p *ptx.Instruction, in *inst) error {
	op, a := p.Op, p.Args
	if !op.Has(".b") {
		return fmt.Errorf("%s: only the .b (raw bytes) form is supported", op.Text)
	}
	g, ok := geoNames[op.Dim]
	if !ok {
		return fmt.Errorf("%s: geometry %q is not supported", op.Text, op.Dim)
	}
	t := op.Type()
	es := t.Size()
	if es != 1 && es != 2 && es != 4 && es != 8 {
		return fmt.Errorf("%s: type %s is not supported", op.Text, t)
	}
	in.esize = uint8(es)
	in.vec = uint8(max(op.Vec, 1))
	in.sub = g
	switch {
	case op.Has(".clamp"):
		in.sub2 = surfClamp
	case op.Has(".zero"):
		in.sub2 = surfZero
	default:
		in.sub2 = surfTrap
	}
	in.m.Space = model.SpaceSurf
	in.m.Size = es * int(in.vec)
	var addrOp, valOp ptx.Operand
	if op.Name == "suld" {
		if len(a) != 2 {
			return fmt.Errorf("%s: expected d, [surf, {coords}]", op.Text)
		}
		addrOp = a[1]
		var err error
		if a[0].Kind == ptx.OpVec {
			err = l.setD(in, a[0].Elems...)
		} else {
			err = l.setD(in, a[0])
		}
		if err != nil {
			return err
		}
		in.m.Mem = model.MemSurfLoad
		in.exec = execSuld
	} else {
		if len(a) != 2 {
			return fmt.Errorf("%s: expected [surf, {coords}], v", op.Text)
		}
		addrOp, valOp = a[0], a[1]
		in.m.Mem = model.MemSurfStore
		in.exec = execSust
	}
	if addrOp.Kind != ptx.OpAddr {
		return fmt.Errorf("%s: expected [surf, {coords}]", op.Text)
	}
	if err := l.texHandle(in, addrOp, true); err != nil {
		return err
	}
	if err := l.texCoords(in, addrOp, geoCoords(g), ptx.S32, g == geoA1D || g == geoA2D); err != nil {
		return err
	}
	if op.Name == "sust" {
		vals := []ptx.Operand{valOp}
		if valOp.Kind == ptx.OpVec {
			vals = valOp.Elems
		}
		if len(vals) != int(in.vec) {
			return fmt.Errorf("%s: expected %d values", op.Text, in.vec)
		}
		if err := l.setS(in, t, vals...); err != nil {
			return err
		}
	}
	return nil
}

// binding returns the texture/surface lane l of the instruction uses, or
// nil after recording a fault.
func (w *warp) binding(in *inst, l int) *TexBinding {
	ts := w.k.l.Textures
	nref := len(w.k.code.Prog.texrefs) + len(w.k.code.Prog.surfrefs)
	if in.tex >= 0 {
		if int(in.tex) < len(ts) && ts[in.tex] != nil {
			return ts[in.tex]
		}
		name := ""
		p := w.k.code.Prog
		if int(in.tex) < len(p.texrefs) {
			name = p.texrefs[in.tex]
		} else if i := int(in.tex) - len(p.texrefs); i < len(p.surfrefs) {
			name = p.surfrefs[i]
		}
		w.faultf(in, l, FaultInvalid, "texture/surface reference %s is not bound (add a textures entry with ref: %s to the launch spec)", name, name)
		return nil
	}
	h := w.regs[in.s[0]+int32(l)]
	i := nref + int(h) - TexHandleBase
	if h < TexHandleBase || i >= len(ts) || ts[i] == nil {
		w.faultf(in, l, FaultInvalid, "invalid texture/surface object handle %#x", h)
		return nil
	}
	return ts[i]
}

// texSink collects the texels one lane's fetch touches.
type texSink struct {
	w    *warp
	lane int
	id   uint16
}

func (s *texSink) touch(x, y, z, layer int) {
	s.w.texels[s.lane] = append(s.w.texels[s.lane], model.Texel{Tex: s.id, X: int32(x), Y: int32(y), Z: int32(z), Layer: int32(layer)})
}

func clampIdx(v, n int) int {
	if v < 0 {
		return 0
	}
	if n > 0 && v >= n {
		return n - 1
	}
	return v
}

func execTex(w *warp, in *inst, m uint32) {
	e := &w.eff
	e.Space = model.SpaceTex
	e.Texels = w.texels[:]
	w.lanesSet = true
	sink := &texSink{w: w}
	touch := sink.touch
	first := true
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		b := w.binding(in, l)
		if b == nil {
			return
		}
		if b.Tex == nil {
			w.faultf(in, l, FaultInvalid, "%s is a surface, not a texture", b.Name)
			return
		}
		if first {
			e.TexFmt = b.Info
			first = false
		}
		w.texels[l] = w.texels[l][:0]
		sink.lane, sink.id = l, b.ID
		var c [4]uint64
		for i, a := range in.args {
			c[i] = w.regs[a.reg+int32(l)]
		}
		layer := 0
		var xs []uint64
		switch in.sub {
		case geoA1D, geoA2D:
			layer = int(int32(c[0]))
			xs = c[1:len(in.args)]
		default:
			xs = c[:len(in.args)]
		}
		var crd [3]uint64
		copy(crd[:], xs)
		var out [4]uint32
		t := b.Tex
		switch {
		case in.sub2 > 0: // tld4
			x, y := f32(crd[0]), f32(crd[1])
			if in.typ == ptx.F32 {
				v := t.Gather(int(in.sub2)-1, x, y, layer, touch)
				for i := range v {
					out[i] = math.Float32bits(v[i])
				}
			} else {
				out = t.GatherI(int(in.sub2)-1, x, y, layer, touch)
			}
		case in.typ2 == ptx.F32:
			x, y, z := f32(crd[0]), f32(crd[1]), f32(crd[2])
			if in.typ == ptx.F32 {
				v := t.SampleF(x, y, z, layer, touch)
				for i := range v {
					out[i] = math.Float32bits(v[i])
				}
			} else {
				out = t.SampleI(x, y, z, layer, touch)
			}
		default: // integer coordinates: tex1Dfetch and friends
			ix, iy, iz := int(int32(crd[0])), int(int32(crd[1])), int(int32(crd[2]))
			if in.typ == ptx.F32 {
				v := t.FetchF(ix, iy, iz, layer)
				for i := range v {
					out[i] = math.Float32bits(v[i])
				}
			} else {
				out = t.FetchI(ix, iy, iz, layer)
			}
			inf := b.Info
			touch(clampIdx(ix, inf.Width), clampIdx(iy, inf.Height), clampIdx(iz, inf.Depth), clampIdx(layer, inf.Layers))
		}
		for i := 0; i < 4; i++ {
			w.regs[in.d[i]+int32(l)] = uint64(out[i])
		}
	}
}

func execTxq(w *warp, in *inst, m uint32) {
	q := texQueries[in.sub]
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		b := w.binding(in, l)
		if b == nil {
			return
		}
		var v int
		if b.Tex != nil {
			var ok bool
			if v, ok = b.Tex.Query(q); !ok {
				w.faultf(in, l, FaultUnsupported, "txq .%s is not supported", q)
				return
			}
		} else {
			switch q {
			case "width":
				v = b.Info.Width
			case "height":
				v = b.Info.Height
			case "depth":
				v = b.Info.Depth
			case "array_size":
				v = b.Info.Layers
			}
		}
		w.regs[in.d[0]+int32(l)] = uint64(uint32(int32(v)))
	}
}

// surfAddr computes the device address of lane l's surface access, applying
// the clamp mode. ok is false when the access is skipped (.zero) or a fault
// was recorded (.trap).
func (w *warp) surfAddr(in *inst, b *TexBinding, l int) (addr uint64, ok bool) {
	var c [3]int
	for i, a := range in.args {
		c[i] = int(int32(w.regs[a.reg+int32(l)]))
	}
	inf := b.Info
	n := int(in.esize) * int(in.vec)
	x, y, z, layer := c[0], 0, 0, 0
	switch in.sub {
	case geo2D:
		y = c[1]
	case geo3D:
		y, z = c[1], c[2]
	case geoA1D:
		layer, x = c[0], c[1]
	case geoA2D:
		layer, x, y = c[0], c[1], c[2]
	}
	rowBytes := b.Pitch
	h, d, ly := max(inf.Height, 1), max(inf.Depth, 1), max(inf.Layers, 1)
	out := x < 0 || x+n > rowBytes || y < 0 || y >= h || z < 0 || z >= d || layer < 0 || layer >= ly
	if out {
		switch in.sub2 {
		case surfZero:
			return 0, false
		case surfClamp:
			x = min(max(x, 0), rowBytes-n)
			y, z, layer = clampIdx(y, h), clampIdx(z, d), clampIdx(layer, ly)
		default:
			w.faultf(in, l, FaultOutOfBounds, "surface %s access of %d bytes at (x=%d bytes, y=%d, z=%d, layer=%d) is outside %d×%d×%d (×%d layers)",
				b.Name, n, x, y, z, layer, rowBytes, h, d, ly)
			return 0, false
		}
	}
	off := ((layer*d+z)*h+y)*rowBytes + x
	return b.Alloc.Base + uint64(off), true
}

func execSuld(w *warp, in *inst, m uint32) {
	e := &w.eff
	e.Space = model.SpaceSurf
	e.Addr = w.addrs[:]
	n := int(in.esize)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		b := w.binding(in, l)
		if b == nil {
			return
		}
		if !b.Surface {
			w.faultf(in, l, FaultInvalid, "%s is a texture, not a surface", b.Name)
			return
		}
		a, ok := w.surfAddr(in, b, l)
		w.addrs[l] = a
		for i := 0; i < int(in.vec); i++ {
			var v uint64
			if ok {
				if v, ok = w.load(in, spGlobal, l, a+uint64(i*n), n); !ok {
					return
				}
			} else if w.fault != nil {
				return
			}
			w.regs[in.d[i]+int32(l)] = v
		}
	}
}

func execSust(w *warp, in *inst, m uint32) {
	e := &w.eff
	e.Space = model.SpaceSurf
	e.Addr = w.addrs[:]
	n := int(in.esize)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		b := w.binding(in, l)
		if b == nil {
			return
		}
		if !b.Surface {
			w.faultf(in, l, FaultInvalid, "%s is a texture, not a surface", b.Name)
			return
		}
		a, ok := w.surfAddr(in, b, l)
		w.addrs[l] = a
		if !ok {
			if w.fault != nil {
				return
			}
			continue
		}
		for i := 0; i < int(in.vec); i++ {
			if !w.store(in, spGlobal, l, a+uint64(i*n), n, w.regs[in.s[1+i]+int32(l)]) {
				return
			}
		}
	}
}
