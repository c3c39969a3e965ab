package atomicfile

import "os"

// writebackChunk is how many bytes a Pending's file gathers before their
// disk writes are started (see writeback).
const writebackChunk = 16 << 20

// writeback starts the disk writes of a large Pending's contents while
// they are being written (Linux: sync_file_range with
// SYNC_FILE_RANGE_WRITE, which only queues them), so that the fsync of
// Sync waits for the last chunk rather than for the whole file: the
// device works beside the producer instead of after it. It changes
// nothing of what is written nor of Sync's guarantee (the fsync still
// runs); an error of the hint is ignored. The calls run on a goroutine of
// their own, so that the writer never waits for a congested queue; when
// that goroutine is behind, ranges are merged.
type writeback struct {
	f       *os.File
	start   func(f *os.File, off, n int64) // startWrites; tests record the ranges
	ranges  chan [2]int64                  // offset, length
	done    chan struct{}
	started int64 // bytes up to which writes were requested
}

// note tells wb that the file holds written bytes up to off.
func (wb *writeback) note(off int64) {
	if off-wb.started < writebackChunk || wb.start == nil {
		return
	}
	if wb.ranges == nil {
		wb.ranges, wb.done = make(chan [2]int64, 4), make(chan struct{})
		go func() {
			defer close(wb.done)
			for r := range wb.ranges {
				wb.start(wb.f, r[0], r[1])
			}
		}()
	}
	select {
	case wb.ranges <- [2]int64{wb.started, off - wb.started}:
		wb.started = off
	default: // behind: the next range covers this one too
	}
}

// stop waits for the requests in flight; the file may then be closed.
func (wb *writeback) stop() {
	if wb.ranges != nil {
		close(wb.ranges)
		<-wb.done
		wb.ranges = nil
	}
}
