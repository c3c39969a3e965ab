// Package bigbuf allocates large zeroed buffers (device allocations, input
// generators' arrays) so that the operating system may back them with
// transparent huge pages.
//
// Model: a fresh process touches every page of its buffers for the first
// time, and each first touch of a 4 KiB page is a page fault. On the
// virtual machines this project is measured on a fault costs about 23 µs
// (docs/performance.md, "Run path, fourth round"), so the 12 MB of buffers
// of a 1M-element vecadd cost more CPU in faults than copying them. A
// buffer of at least MinBytes is therefore carved out of a slightly larger
// Go allocation at a 2 MiB boundary and, on Linux, advised with
// madvise(MADV_HUGEPAGE) over its whole 2 MiB pages (a partial last one
// stays on base pages, so nothing past the buffer becomes resident): with
// transparent huge pages in "madvise" (or "always") mode its first touch
// faults once per 2 MiB. The cost is up to 2 MiB of address space per
// buffer that is never touched. Smaller buffers, other systems, and kernels
// that refuse the advice get an ordinary allocation.
//
// Invariants: the returned slice is zeroed, has len == cap == n (appending
// reallocates, never writes past n), and is ordinary garbage-collected Go
// memory (the slice keeps the whole allocation alive). The advice is a
// hint only: contents, and so every output, are the same whether or not it
// is taken. Element types are pointer-free, as the memory is a []byte
// underneath and the collector does not scan it.
package bigbuf
