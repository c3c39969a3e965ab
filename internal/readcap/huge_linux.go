package readcap

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on amd64 and arm64.
const hugePage = 2 << 20

// adviseHuge asks the kernel to back the whole 2 MiB pages inside b with
// transparent huge pages (madvise MADV_HUGEPAGE; honoured where
// /sys/kernel/mm/transparent_hugepage/enabled says "madvise" or
// "always"). Reading a large file into fresh memory otherwise takes a page
// fault per 4 KiB (docs/performance.md, "Input read on huge pages"). The
// advice changes no byte; an error only loses the speed-up.
func adviseHuge(b []byte) {
	if len(b) < 2*hugePage {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (p + hugePage - 1) &^ (hugePage - 1)
	hi := (p + uintptr(len(b))) &^ (hugePage - 1)
	if hi <= lo {
		return
	}
	const madvHugepage = 14 // MADV_HUGEPAGE
	syscall.Madvise(b[lo-p:hi-p], madvHugepage)
}
