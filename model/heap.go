package model

// timed is an item of a timeHeap: a 64-bit payload stamped with the time it
// takes effect and a sequence number that breaks ties in creation order.
// The memory side's events and an SM's responses are both timed items (see
// event and memResp), so one heap serves both. It is deliberately not
// generic: a generic version (payload type parameter) measured 2-4% slower
// on BenchmarkVectorAdd in paired runs, this concrete one not measurably.
type timed struct {
	t   Time
	seq uint64
	v   uint64
}

// before is the heap order: by time, then by sequence number.
func (a *timed) before(b *timed) bool {
	return a.t < b.t || (a.t == b.t && a.seq < b.seq)
}

// timeHeap is a 4-ary min-heap of timed items ordered by (t, seq): the
// memory side's event queue and an SM's response inbox. The order is a
// total order on distinct seq values, so pops are deterministic and do not
// depend on the heap's shape: every seq pushed is unique (the memory side
// numbers its events and responses from one counter), so the earliest item
// is always one item. Four children per node halve the depth of a binary
// heap, and a node's children lie in one or two host cache lines (24-byte
// items), which made pops cheaper (docs/performance.md, "Seventh round").
type timeHeap []timed

// heapArity is the number of children per node.
const heapArity = 4

func (h *timeHeap) push(x timed) {
	*h = append(*h, x)
	a := *h
	// sift up with a hole: parents move down, x is stored once
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / heapArity
		if !x.before(&a[p]) {
			break
		}
		a[i] = a[p]
		i = p
	}
	a[i] = x
}

// pop removes and returns the earliest item; the heap must not be empty.
func (h *timeHeap) pop() timed {
	a := *h
	top := a[0]
	n := len(a) - 1
	x := a[n]
	a = a[:n]
	*h = a
	if n == 0 {
		return top
	}
	// sift the last item down from the root with a hole: the earliest
	// child moves up until x is no later than it
	i := 0
	for {
		c := heapArity*i + 1
		if c >= n {
			break
		}
		m := c
		if e := min(c+heapArity, n); e-c == heapArity {
			// all four children: a fixed pattern the compiler keeps in registers
			if a[c+1].before(&a[m]) {
				m = c + 1
			}
			if a[c+2].before(&a[m]) {
				m = c + 2
			}
			if a[c+3].before(&a[m]) {
				m = c + 3
			}
		} else {
			for j := c + 1; j < e; j++ {
				if a[j].before(&a[m]) {
					m = j
				}
			}
		}
		if !a[m].before(&x) {
			break
		}
		a[i] = a[m]
		i = m
	}
	a[i] = x
	return top
}
