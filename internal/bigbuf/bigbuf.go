package bigbuf

import (
	"math"
	"unsafe"
)

// HugePage is the transparent huge page size the allocations are aligned
// to (2 MiB on x86-64 and arm64 with 4 KiB base pages).
const HugePage = 2 << 20

// MinBytes is the smallest buffer given a huge-page-aligned allocation:
// below it the alignment slack (up to 2 MiB of address space, never
// touched) is not worth it.
const MinBytes = 2 * HugePage

// Bytes returns n zeroed bytes (n < 0 is taken as 0).
func Bytes(n int) []byte {
	if n < MinBytes {
		return make([]byte, max(n, 0))
	}
	raw := make([]byte, n+HugePage) // room to start at a huge page boundary
	off := 0
	if r := int(uintptr(unsafe.Pointer(&raw[0])) % HugePage); r != 0 {
		off = HugePage - r
	}
	// only the whole huge pages inside the buffer: a partial last one
	// stays on base pages, so nothing past n becomes resident
	adviseHuge(raw[off : off+n/HugePage*HugePage])
	return raw[off : off+n : off+n]
}

// Elem is the element types of Slice: numbers, which hold no pointers.
type Elem interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// Slice returns n zeroed elements of type T, from Bytes.
func Slice[T Elem](n int) []T {
	var z T
	es := int(unsafe.Sizeof(z))
	if n < MinBytes/es || n > math.MaxInt/es {
		return make([]T, n) // (a bad n panics as make does)
	}
	b := Bytes(n * es)
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}
