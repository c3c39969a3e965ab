package replay

import (
	"bytes"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"sync"
)

// printfSink collects printf output of CTAs in a deterministic order.
type printfSink struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (p *printfSink) add(b []byte) {
	if len(b) == 0 {
		return
	}
	p.mu.Lock()
	p.buf.Write(b)
	p.mu.Unlock()
}

func (p *printfSink) bytes() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]byte(nil), p.buf.Bytes()...)
}

// slotVal reads up to 8 bytes of a call argument for lane l.
func (w *warp) slotVal(fr *frame, s slot, l int) uint64 {
	if s.reg >= 0 {
		return fr.regs[int(s.reg)+l]
	}
	n := min(s.size, 8)
	loc := w.local[l]
	o := fr.fp + s.off
	if o+n > len(loc) {
		return 0
	}
	return le(loc[o:o+n], n)
}

// genericRead reads n bytes at a generic address for lane l (no fault on
// failure: ok false).
func (w *warp) genericRead(l int, addr uint64, n int) (uint64, bool) {
	sp, a := w.k.code.am.resolve(addr)
	if sp == spGlobal {
		al := w.k.l.Dev.Find(a)
		if al == nil || a+uint64(n) > al.End() {
			return 0, false
		}
		var buf [8]byte
		copy(buf[:n], al.Data[a-al.Base:])
		if w.c.ov != nil {
			w.c.ov.read(a, buf[:n])
		}
		return le(buf[:n], n), true
	}
	var mem []byte
	switch sp {
	case spShared:
		mem = w.c.shared
	case spLocal:
		mem = w.local[l]
	case spConst:
		mem = w.k.l.Const
	case spParam:
		mem = w.k.l.Params
	}
	if a+uint64(n) > uint64(len(mem)) {
		return 0, false
	}
	return le(mem[a:a+uint64(n)], n), true
}

func (w *warp) cstring(l int, addr uint64) string {
	var sb []byte
	for i := 0; i < 4096; i++ {
		c, ok := w.genericRead(l, addr+uint64(i), 1)
		if !ok || c == 0 {
			break
		}
		sb = append(sb, byte(c))
	}
	return string(sb)
}

// builtin runs vprintf, __assertfail, malloc and free for the lanes in m,
// in lane order.
func (w *warp) builtin(in *inst, f *fnCode, m uint32, fr *frame) {
	switch f.builtin {
	case builtinVprintf:
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			var fmtp, argp uint64
			if len(in.args) > 0 {
				fmtp = w.slotVal(fr, in.args[0], l)
			}
			if len(in.args) > 1 {
				argp = w.slotVal(fr, in.args[1], l)
			}
			out := w.formatPrintf(l, w.cstring(l, fmtp), argp)
			w.c.out = append(w.c.out, out...)
			for _, r := range in.rets {
				if r.reg >= 0 {
					fr.regs[int(r.reg)+l] = uint64(len(out))
				} else if fr.fp+r.off+4 <= len(w.local[l]) {
					putLE(w.local[l][fr.fp+r.off:], 4, uint64(len(out)))
				}
			}
		}
	case builtinAssert:
		l := bits.TrailingZeros32(m)
		msg, file := "", ""
		var line uint64
		if len(in.args) > 0 {
			msg = w.cstring(l, w.slotVal(fr, in.args[0], l))
		}
		if len(in.args) > 1 {
			file = w.cstring(l, w.slotVal(fr, in.args[1], l))
		}
		if len(in.args) > 2 {
			line = w.slotVal(fr, in.args[2], l) & 0xffffffff
		}
		w.faultf(in, l, FaultAssert, "assertion failed: %s (%s:%d)", msg, file, line)
	case builtinLibdevice:
		w.libdevice(in, f, m, fr)
	case builtinGetParamBuf, builtinGetParamBufV2, builtinLaunchDevice, builtinLaunchDeviceV2, builtinGetLastError, builtinPeekAtLastError:
		w.deviceRuntime(in, f, m, fr)
	default:
		w.faultf(in, -1, FaultUnsupported, "device-side %s is not supported", f.name)
	}
}

// formatPrintf formats a CUDA printf call: the arguments are packed in
// local memory at argp, each aligned to its size.
func (w *warp) formatPrintf(l int, format string, argp uint64) []byte {
	var out []byte
	off := uint64(0)
	next := func(n int) uint64 {
		off = (off + uint64(n) - 1) / uint64(n) * uint64(n)
		v, _ := w.genericRead(l, argp+off, n)
		off += uint64(n)
		return v
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			out = append(out, c)
			continue
		}
		j := i + 1
		for j < len(format) && bytes.IndexByte([]byte("-+ #0"), format[j]) >= 0 {
			j++
		}
		for j < len(format) && (format[j] >= '0' && format[j] <= '9' || format[j] == '.' || format[j] == '*') {
			j++
		}
		long := 0
		for j < len(format) && (format[j] == 'l' || format[j] == 'h' || format[j] == 'z' || format[j] == 'j' || format[j] == 't') {
			if format[j] == 'l' || format[j] == 'z' || format[j] == 'j' || format[j] == 't' {
				long++
			}
			j++
		}
		if j >= len(format) {
			out = append(out, format[i:]...)
			break
		}
		spec := format[i+1 : j]
		// strip length modifiers for Go's fmt
		clean := bytes.Map(func(r rune) rune {
			switch r {
			case 'l', 'h', 'z', 'j', 't':
				return -1
			}
			return r
		}, []byte(spec))
		verb := format[j]
		switch verb {
		case '%':
			out = append(out, '%')
		case 'd', 'i':
			var v int64
			if long > 0 {
				v = int64(next(8))
			} else {
				v = int64(int32(next(4)))
			}
			out = append(out, fmt.Sprintf("%"+string(clean)+"d", v)...)
		case 'u', 'x', 'X', 'o':
			var v uint64
			if long > 0 {
				v = next(8)
			} else {
				v = next(4)
			}
			vb := verb
			if vb == 'u' {
				vb = 'd'
			}
			out = append(out, fmt.Sprintf("%"+string(clean)+string(vb), v)...)
		case 'c':
			out = append(out, byte(next(4)))
		case 'f', 'F', 'e', 'E', 'g', 'G', 'a', 'A':
			v := math.Float64frombits(next(8))
			vb := verb
			if vb == 'F' {
				vb = 'f'
			}
			if vb == 'a' || vb == 'A' {
				vb = 'x'
			}
			s := fmt.Sprintf("%"+string(clean)+string(vb), v)
			if math.IsInf(v, 0) || math.IsNaN(v) {
				s = cNonFinite(v, verb)
			}
			out = append(out, s...)
		case 's':
			p := next(8)
			out = append(out, fmt.Sprintf("%"+string(clean)+"s", w.cstring(l, p))...)
		case 'p':
			out = append(out, "0x"+strconv.FormatUint(next(8), 16)...)
		default:
			out = append(out, format[i:j+1]...)
		}
		i = j
	}
	return out
}

func cNonFinite(v float64, verb byte) string {
	upper := verb >= 'A' && verb <= 'Z'
	s := "inf"
	switch {
	case math.IsNaN(v):
		s = "nan"
		if math.Signbit(v) {
			s = "-nan"
		}
	case v < 0:
		s = "-inf"
	}
	if upper {
		return string(bytes.ToUpper([]byte(s)))
	}
	return s
}
