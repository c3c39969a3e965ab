package replay

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"sort"

	"github.com/ptxtrace/ptxtrace/internal/bigbuf"
)

// Device is the global memory of a simulated GPU: a flat 64-bit address
// space holding allocations. Addresses outside every allocation fault.
// Allocations are 256-byte aligned and separated by at least 256 unmapped
// bytes, so small overruns are caught. A Device is not safe for concurrent
// allocation; during a launch it is only read (and written through the
// deterministic schemes of Kernel.Run).
type Device struct {
	allocs []*Alloc // sorted by Base
	next   uint64
	addr32 bool // allocations from GlobalBase32 (an .address_size 32 module)
}

// Alloc is one device allocation.
type Alloc struct {
	Name string
	Base uint64
	Data []byte
}

// End returns the first address past the allocation.
func (a *Alloc) End() uint64 { return a.Base + uint64(len(a.Data)) }

// NewDevice returns an empty device.
func NewDevice() *Device { return &Device{next: GlobalBase} }

// NewDeviceFor returns an empty device whose address space suits p: for an
// `.address_size 32` module allocations start at GlobalBase32, so that
// every address fits the module's 32-bit pointers (NewKernel refuses a
// launch whose allocations reach GlobalLimit32).
func NewDeviceFor(p *Program) *Device {
	if p.addr32 {
		return &Device{next: GlobalBase32, addr32: true}
	}
	return NewDevice()
}

// Alloc allocates size zeroed bytes.
func (d *Device) Alloc(name string, size int) *Alloc {
	if size < 0 {
		size = 0
	}
	a := &Alloc{Name: name, Base: d.next, Data: bigbuf.Bytes(size)} // huge pages for large ones: fewer first-touch faults
	d.next += uint64((size + 255) / 256 * 256)
	d.next += 256 // guard gap
	d.allocs = append(d.allocs, a)
	return a
}

// Allocs returns the allocations in address order.
func (d *Device) Allocs() []*Alloc { return append([]*Alloc(nil), d.allocs...) }

// Find returns the allocation containing addr, or nil.
func (d *Device) Find(addr uint64) *Alloc {
	as := d.allocs
	i := sort.Search(len(as), func(i int) bool { return as[i].End() > addr })
	if i < len(as) && as[i].Base <= addr {
		return as[i]
	}
	return nil
}

// Bytes returns the n bytes at addr, or an error when they are not inside
// one allocation.
func (d *Device) Bytes(addr uint64, n int) ([]byte, error) {
	a := d.Find(addr)
	if a == nil || addr+uint64(n) > a.End() {
		return nil, fmt.Errorf("address range %#x+%d is not inside a device allocation", addr, n)
	}
	o := addr - a.Base
	return a.Data[o : o+uint64(n)], nil
}

// overlay holds the global-memory writes of one CTA while CTAs run in
// parallel: reads see the CTA's own writes over the device contents from
// before the wave; writes are merged into the device in CTA order after the
// wave (see doc.go, "Parallel execution").
type overlay struct {
	pages map[uint64]*ovPage
	keys  []uint64
	lastK uint64
	lastP *ovPage
	hasL  bool
	spare []*ovPage // clean pages of an earlier use (see reset)
}

const ovShift = 10
const ovSize = 1 << ovShift

type ovPage struct {
	data  [ovSize]byte
	dirty [ovSize / 64]uint64
}

func newOverlay() *overlay { return &overlay{pages: map[uint64]*ovPage{}} }

func (o *overlay) page(key uint64, create bool) *ovPage {
	if o.hasL && o.lastK == key && (o.lastP != nil || !create) {
		return o.lastP
	}
	p := o.pages[key]
	if p == nil && create {
		if n := len(o.spare); n > 0 {
			p = o.spare[n-1]
			o.spare = o.spare[:n-1]
		} else {
			p = new(ovPage)
		}
		o.pages[key] = p
		o.keys = append(o.keys, key)
	}
	o.lastK, o.lastP, o.hasL = key, p, true
	return p
}

// read fills b (at address addr, inside one page) from the overlay where
// written; base holds the device bytes.
func (o *overlay) read(addr uint64, b []byte) {
	p := o.page(addr>>ovShift, false)
	if p == nil {
		return
	}
	off := addr & (ovSize - 1)
	for i := range b {
		j := off + uint64(i)
		if p.dirty[j>>6]>>(j&63)&1 != 0 {
			b[i] = p.data[j]
		}
	}
}

// write stores b at address addr (inside one page) in the overlay.
func (o *overlay) write(addr uint64, b []byte) {
	if len(b) == 0 {
		return
	}
	p := o.page(addr>>ovShift, true)
	off := addr & (ovSize - 1)
	_ = p.data[off+uint64(len(b))-1] // inside the page (a caller's promise)
	copy(p.data[off:], b)
	// the dirty bits, one 64-bit word's run at a time
	for i, n := uint64(0), uint64(len(b)); i < n; {
		j := off + i
		k := min(n-i, 64-j&63)
		m := ^uint64(0)
		if k < 64 {
			m = 1<<k - 1
		}
		p.dirty[j>>6] |= m << (j & 63)
		i += k
	}
}

// merge writes the overlay's bytes into the device.
func (o *overlay) merge(d *Device) {
	slices.Sort(o.keys)
	var a *Alloc
	for _, k := range o.keys {
		p := o.pages[k]
		base := k << ovShift
		for wi, m := range p.dirty {
			if m == 0 {
				continue
			}
			w0 := base + uint64(wi)*64
			if m == ^uint64(0) {
				// a fully written 64-byte run inside one allocation
				if a == nil || w0 < a.Base || w0 >= a.End() {
					a = d.Find(w0)
				}
				if a != nil && w0+64 <= a.End() {
					copy(a.Data[w0-a.Base:], p.data[wi*64:wi*64+64])
					continue
				}
			}
			for ; m != 0; m &= m - 1 {
				j := uint64(bits.TrailingZeros64(m))
				addr := w0 + j
				if a == nil || addr < a.Base || addr >= a.End() {
					a = d.Find(addr)
				}
				if a != nil {
					a.Data[addr-a.Base] = p.data[uint64(wi)*64+j]
				}
			}
		}
	}
}

// reset empties a merged overlay for reuse, keeping its pages (cleaned) as
// spares.
func (o *overlay) reset() {
	for _, k := range o.keys {
		p := o.pages[k]
		clear(p.dirty[:])
		o.spare = append(o.spare, p)
	}
	clear(o.pages)
	o.keys = o.keys[:0]
	o.lastK, o.lastP, o.hasL = 0, nil, false
}

func le(b []byte, n int) uint64 {
	switch n {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	case 8:
		return binary.LittleEndian.Uint64(b)
	}
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

func putLE(b []byte, n int, v uint64) {
	switch n {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	case 8:
		binary.LittleEndian.PutUint64(b, v)
	default:
		for i := 0; i < n; i++ {
			b[i] = byte(v >> (8 * i))
		}
	}
}
