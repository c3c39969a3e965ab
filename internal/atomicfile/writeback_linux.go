package atomicfile

import (
	"os"
	"syscall"
)

// newWriteback returns the writeback of f.
func newWriteback(f *os.File) writeback { return writeback{f: f, start: startWrites} }

// syncFileRangeWrite is SYNC_FILE_RANGE_WRITE (linux/fs.h): start the
// writes of the range's dirty pages, wait for nothing.
const syncFileRangeWrite = 2

// startWrites queues the disk writes of f's bytes [off, off+n).
func startWrites(f *os.File, off, n int64) {
	syscall.SyncFileRange(int(f.Fd()), off, n, syncFileRangeWrite) // a hint: its error changes nothing
}
