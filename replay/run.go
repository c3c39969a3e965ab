package replay

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/ptxtrace/ptxtrace/model"
)

// RunOptions control functional execution.
type RunOptions struct {
	// Workers is the number of goroutines executing CTAs (0: GOMAXPROCS).
	// The results do not depend on it.
	Workers int
	// Progress, when set, is called with the number of CTAs finished so
	// far (from one goroutine at a time).
	Progress func(done, total int)
}

// WaveSize is the number of CTAs that run concurrently against one
// snapshot of global memory (see doc.go, "Parallel execution"). It is a
// constant so that results never depend on the machine.
const WaveSize = 512

// Result summarises a functional run.
type Result struct {
	CTAs        int
	WarpInsts   uint64
	ThreadInsts uint64
	Sequential  bool // CTAs ran one after another (global atomics)
	Printf      []byte
}

// Run executes the launch functionally: every CTA with the round-robin
// warp scheduler. It returns the first fault in CTA order.
func (k *Kernel) Run(ctx context.Context, o RunOptions) (*Result, error) {
	res := &Result{CTAs: k.nctas, Sequential: k.code.GlobalAtomics}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if res.Sequential {
		workers = 1
	}
	done := 0
	for start := 0; start < k.nctas; start += WaveSize {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end := min(start+WaveSize, k.nctas)
		n := end - start
		ctas := make([]*CTA, n)
		var mu sync.Mutex
		next := 0
		var wg sync.WaitGroup
		nw := min(workers, n)
		for g := 0; g < nw; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					mu.Lock()
					i := next
					next++
					mu.Unlock()
					if i >= n || ctx.Err() != nil {
						return
					}
					var ov *overlay
					if !res.Sequential {
						ov = newOverlay()
					}
					c, err := k.newCTA(start+i, 0, ov)
					if err != nil {
						c = &CTA{fault: &Fault{Kind: FaultInvalid, Msg: err.Error(), Kernel: k.code.Name}}
					} else {
						c.runFunctional()
						c.release()
					}
					ctas[i] = c
					if o.Progress != nil {
						mu.Lock()
						done++
						o.Progress(done, k.nctas)
						mu.Unlock()
					}
				}
			}()
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, c := range ctas {
			if c.fault != nil {
				return nil, c.fault
			}
		}
		for _, c := range ctas {
			if c.ov != nil {
				c.ov.merge(k.l.Dev)
			}
			k.printf.add(c.out)
			res.WarpInsts += c.winsts
			res.ThreadInsts += c.tinsts
		}
	}
	res.Printf = k.printf.bytes()
	return res, nil
}

// quantum is the number of instructions a warp runs before the functional
// scheduler moves to the next warp (unless it blocks or exits first).
const quantum = 64

// runFunctional runs the CTA's warps round-robin until all exit, a fault
// occurs, or the warps deadlock at barriers.
func (c *CTA) runFunctional() {
	for {
		live := 0
		progressed := false
		for _, w := range c.warps {
			if w.done {
				continue
			}
			live++
			if w.waitBar >= 0 {
				continue
			}
			progressed = true
			for n := 0; n < quantum; n++ {
				w.clk = model.Clocks{Cycle: model.Time(w.icount), GlobalTimer: w.icount, SMID: c.sm}
				w.step()
				if w.fault != nil {
					return
				}
				if w.done {
					c.recheckBarriers()
					break
				}
				if w.waitBar >= 0 {
					break
				}
			}
		}
		if live == 0 {
			return
		}
		if !progressed {
			c.deadlock()
			return
		}
	}
}

// deadlock records a fault describing the warps stuck at barriers.
func (c *CTA) deadlock() {
	var parts []string
	var first *warp
	byBar := map[int][]int{}
	for _, w := range c.warps {
		if !w.done && w.waitBar >= 0 {
			byBar[w.waitBar] = append(byBar[w.waitBar], w.id)
			if first == nil {
				first = w
			}
		}
	}
	ids := make([]int, 0, len(byBar))
	for id := range byBar {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		b := &c.bars[id]
		need := b.expected
		if need == 0 {
			need = c.liveWarps()
		}
		parts = append(parts, fmt.Sprintf("barrier %d: warps %v waiting, %d of %d arrived", id, byBar[id], b.arrived, need))
	}
	var in *inst
	if first != nil {
		fr := &first.frames[len(first.frames)-1]
		pc := fr.stack[len(fr.stack)-1].pc - 1
		if pc >= 0 && int(pc) < len(fr.f.code) {
			in = &fr.f.code[pc]
		}
		first.faultf(in, -1, FaultDeadlock, "barrier deadlock: %s", strings.Join(parts, "; "))
	}
}

// release drops the warps of a finished CTA (their memory is garbage).
func (c *CTA) release() {
	c.warps, c.mwarps, c.shared = nil, nil, nil
}
