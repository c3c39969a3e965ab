package launch

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ptxtrace/ptxtrace/internal/texture"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/replay"
)

// parseTexFormat parses "u8", "u8x4", "f32x2", "s16", "f16x4".
func parseTexFormat(s string) (texture.Format, error) {
	kind, ch, ok := strings.Cut(s, "x")
	n := 1
	if ok {
		v, err := strconv.Atoi(ch)
		if err != nil {
			return texture.Format{}, fmt.Errorf("bad format %q", s)
		}
		n = v
	}
	kinds := map[string]texture.ChannelKind{"u8": texture.U8, "u16": texture.U16, "u32": texture.U32,
		"s8": texture.S8, "s16": texture.S16, "s32": texture.S32, "f16": texture.F16, "f32": texture.F32}
	k, found := kinds[kind]
	if !found {
		return texture.Format{}, fmt.Errorf("bad format %q (want KIND or KINDxN, KIND one of u8 u16 u32 s8 s16 s32 f16 f32)", s)
	}
	if n != 1 && n != 2 && n != 4 {
		return texture.Format{}, fmt.Errorf("bad format %q: 1, 2 or 4 channels", s)
	}
	return texture.Format{Kind: k, Channels: n}, nil
}

// buildTextures creates the launch's texture and surface bindings: slots
// for the module's texture references, then its surface references, then
// one per textures entry (the objects; handle = texHandleBase + entry).
func (s *Spec) buildTextures(prog *replay.Program, p *Prepared, baseDir string) ([]*replay.TexBinding, error) {
	texrefs, surfrefs := prog.TexRefs(), prog.SurfRefs()
	nt, ns := len(texrefs), len(surfrefs)
	if len(s.Textures) == 0 {
		return nil, nil
	}
	slots := make([]*replay.TexBinding, nt+ns+len(s.Textures))
	for i, ts := range s.Textures {
		b, err := p.buildTexture(&ts, baseDir)
		if err != nil {
			return nil, fmt.Errorf("textures[%d] (%s): %v", i, ts.Name, err)
		}
		b.ID = uint16(nt + ns + i)
		slots[nt+ns+i] = b
		if ts.Ref != "" {
			if j := slices.Index(texrefs, ts.Ref); j >= 0 && !ts.Surface {
				slots[j] = b
			} else if j := slices.Index(surfrefs, ts.Ref); j >= 0 && ts.Surface {
				slots[nt+j] = b
			} else {
				kind := ".texref"
				if ts.Surface {
					kind = ".surfref"
				}
				return nil, fmt.Errorf("textures[%d]: the module has no %s %q", i, kind, ts.Ref)
			}
		}
	}
	return slots, nil
}

func (p *Prepared) buildTexture(ts *TexSpec, baseDir string) (*replay.TexBinding, error) {
	f, err := parseTexFormat(ts.Format)
	if err != nil {
		return nil, err
	}
	d := texture.Desc{Dims: ts.Dims, Layered: ts.Layered, Width: ts.Width, Height: ts.Height, Depth: ts.Depth,
		Layers: ts.Layers, Format: f, NormalizedCoords: ts.Normalized}
	for i := range d.Address {
		d.Address[i] = texture.Clamp
	}
	for i, a := range ts.Address {
		if i >= 3 {
			return nil, fmt.Errorf("address: at most 3 modes")
		}
		m, ok := map[string]texture.AddressMode{"wrap": texture.Wrap, "clamp": texture.Clamp, "mirror": texture.Mirror, "border": texture.Border}[a]
		if !ok {
			return nil, fmt.Errorf("address mode %q (want wrap, clamp, mirror, border)", a)
		}
		d.Address[i] = m
		if len(ts.Address) == 1 {
			d.Address = [3]texture.AddressMode{m, m, m}
		}
	}
	switch ts.Filter {
	case "", "point":
	case "linear":
		d.Filter = texture.Linear
	default:
		return nil, fmt.Errorf("filter %q (want point or linear)", ts.Filter)
	}
	switch ts.ReadMode {
	case "", "element":
	case "normalized":
		d.ReadNormalized = true
	default:
		return nil, fmt.Errorf("read_mode %q (want element or normalized)", ts.ReadMode)
	}
	copy(d.Border[:], ts.Border)
	h, dp, ly := max(ts.Height, 1), max(ts.Depth, 1), 1
	if ts.Layered {
		ly = max(ts.Layers, 1)
	}
	texels := ts.Width * h * dp * ly
	es := f.Kind.Size()
	et := texElemType(f.Kind)
	if err := p.fits(texels * es * f.Channels); err != nil {
		return nil, fmt.Errorf("%d texels of %d bytes: %v", texels, es*f.Channels, err)
	}
	p.bufBytes += texels * es * f.Channels
	// A texture is read-only: it wraps an input generator's bytes without
	// a copy (a surface copies them into its allocation below).
	data, err := p.fillData(ts.Init, et, texels*f.Channels, baseDir, true)
	if err != nil {
		return nil, err
	}
	tb := es * f.Channels
	if len(data) != texels*tb {
		return nil, fmt.Errorf("init gives %d bytes, the texture needs %d (%d texels of %d bytes)", len(data), texels*tb, texels, tb)
	}
	p.extra[ts.Name] = data
	b := &replay.TexBinding{Name: ts.Name, Surface: ts.Surface,
		Info: model.TexInfo{Width: ts.Width, Height: h, Depth: dp, Layers: ly, TexelBytes: tb}}
	if ts.Surface {
		b.Alloc = p.Dev.Alloc(ts.Name, len(data))
		copy(b.Alloc.Data, data)
		b.Pitch = ts.Width * tb
		buf := &Buffer{Name: ts.Name, Param: -1, Type: et, Alloc: b.Alloc, Initial: append([]byte(nil), data...), Output: ts.Output}
		p.Buffers = append(p.Buffers, buf)
		p.byName[ts.Name] = buf
		return b, nil
	}
	if ts.Output {
		return nil, fmt.Errorf("output: only surfaces can be written")
	}
	t, err := texture.NewShared(d, data)
	if err != nil {
		return nil, err
	}
	b.Tex = t
	return b, nil
}

func texElemType(k texture.ChannelKind) string {
	return k.String()
}
