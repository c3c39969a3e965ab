package bigbuf

import "syscall"

// adviseHuge asks the kernel to back b (2 MiB-aligned, a whole number of
// huge pages) with transparent huge pages. Errors (a kernel without THP,
// THP disabled) are ignored: the advice changes no contents.
func adviseHuge(b []byte) {
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
}
