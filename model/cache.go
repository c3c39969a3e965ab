package model

import "math/bits"

// CacheStats counts the accesses of one cache level (summed over its
// instances). An access is one line (tag lookup) of one warp instruction.
type CacheStats struct {
	Accesses uint64 `json:"accesses" yaml:"accesses"`
	Hits     uint64 `json:"hits" yaml:"hits"`
	Misses   uint64 `json:"misses" yaml:"misses"`
	// Merged are misses that found the line already being fetched (MSHR
	// hit); they count neither as hits nor as misses.
	Merged     uint64 `json:"merged" yaml:"merged"`
	Evictions  uint64 `json:"evictions" yaml:"evictions"`
	Writebacks uint64 `json:"writebacks" yaml:"writebacks"`
	// ReservationFails counts lookups retried because no MSHR or no
	// evictable line was free.
	ReservationFails uint64 `json:"reservation_fails" yaml:"reservation_fails"`
}

// HitRate is Hits/(Hits+Misses+Merged), 0 when there were no accesses.
func (c CacheStats) HitRate() float64 {
	n := c.Hits + c.Misses + c.Merged
	if n == 0 {
		return 0
	}
	return float64(c.Hits) / float64(n)
}

func (c *CacheStats) add(o CacheStats) {
	c.Accesses += o.Accesses
	c.Hits += o.Hits
	c.Misses += o.Misses
	c.Merged += o.Merged
	c.Evictions += o.Evictions
	c.Writebacks += o.Writebacks
	c.ReservationFails += o.ReservationFails
}

// line is one cache line's state besides its tag (cache.tags). Masks
// have one bit per sector.
type line struct {
	valid   uint32
	pending uint32 // sectors being fetched (by MSHR mshr)
	dirty   uint32
	mshr    int32
	lru     uint64
}

// mshr is one outstanding miss: the line being filled and who waits.
type mshr struct {
	tag         uint64
	entry       int32 // index of the line in cache.lines
	outstanding int32 // fill requests not yet returned
	since       Time  // time of the miss that allocated it (observers)
	waiters     []int32
}

// cache is a set-associative, LRU, sectored tag array with MSHRs. It holds
// no data (replay owns values) and no time: callers decide when lookups and
// fills happen.
type cache struct {
	sets, ways  int
	setMask     uint64 // sets-1 when sets is a power of two, else 0
	lineShift   uint
	sectorShift uint // log2 sector bytes
	fullMask    uint32
	lines       []line
	// tags[i] is line i's line number + 1, 0 = invalid: apart from
	// lines, so that a set's tags lie in one or two host cache lines
	tags  []uint64
	stamp uint64
	mshrs []mshr
	free  []int32
	stats CacheStats
	// an SM's three caches are allocated one after another, and the next
	// SM's after them: no other SM's cache on these lines (isolate, gpu.go)
	_ cachePad
}

func newCache(sets, ways, lineBytes, sectorBytes, nmshr int) *cache {
	c := &cache{
		sets: sets, ways: ways,
		lineShift:   uint(bits.TrailingZeros(uint(lineBytes))),
		sectorShift: uint(bits.TrailingZeros(uint(sectorBytes))),
		lines:       make([]line, sets*ways),
		tags:        make([]uint64, sets*ways),
		mshrs:       make([]mshr, nmshr),
		free:        make([]int32, 0, nmshr),
	}
	if sets > 0 && sets&(sets-1) == 0 {
		c.setMask = uint64(sets - 1)
	}
	n := lineBytes / sectorBytes
	c.fullMask = uint32(1)<<uint(n) - 1
	if n == 32 {
		c.fullMask = ^uint32(0)
	}
	for i := nmshr - 1; i >= 0; i-- {
		c.free = append(c.free, int32(i))
	}
	return c
}

// sectorMask returns the mask of the sectors that bytes [addr, addr+size)
// touch within its line (the range must not cross the line).
func (c *cache) sectorMask(addr uint64, size int) uint32 {
	off := addr & (uint64(1)<<c.lineShift - 1)
	first := uint(off >> c.sectorShift)
	last := uint((off + uint64(size) - 1) >> c.sectorShift)
	return (uint32(2)<<last - 1) &^ (uint32(1)<<first - 1)
}

// setOf is the set of tag: (tag-1) mod sets.
func (c *cache) setOf(tag uint64) int {
	if c.setMask != 0 {
		return int((tag - 1) & c.setMask)
	}
	return int((tag - 1) % uint64(c.sets))
}

// find returns the index of the line holding tag, or -1.
func (c *cache) find(tag uint64) int {
	set := c.setOf(tag)
	base := set * c.ways
	for i, t := range c.tags[base : base+c.ways] {
		if t == tag {
			return base + i
		}
	}
	return -1
}

// touch marks line i most recently used.
func (c *cache) touch(i int) {
	c.stamp++
	c.lines[i].lru = c.stamp
}

// victim returns the least recently used line of tag's set that has no
// fill pending, or -1 when every way is being filled.
func (c *cache) victim(tag uint64) int {
	set := c.setOf(tag)
	base := set * c.ways
	v := -1
	for i := base; i < base+c.ways; i++ {
		l := &c.lines[i]
		if l.pending != 0 {
			continue
		}
		if c.tags[i] == 0 {
			return i
		}
		if v < 0 || l.lru < c.lines[v].lru {
			v = i
		}
	}
	return v
}

// install makes line i hold tag with no sectors, returning the evicted
// line's dirty mask and tag (0 when nothing valid was evicted).
func (c *cache) install(i int, tag uint64) (dirty uint32, oldTag uint64) {
	l := &c.lines[i]
	if c.tags[i] != 0 && l.valid != 0 {
		c.stats.Evictions++
		if l.dirty != 0 {
			c.stats.Writebacks++
			dirty, oldTag = l.dirty, c.tags[i]
		}
	}
	*l = line{mshr: -1}
	c.tags[i] = tag
	c.touch(i)
	return dirty, oldTag
}

// drop invalidates line i (a write-evict; its fill is not pending).
func (c *cache) drop(i int) {
	c.lines[i] = line{mshr: -1}
	c.tags[i] = 0
}

// allocMSHR takes a free MSHR for line i (tag) or returns -1.
func (c *cache) allocMSHR(i int, tag uint64) int32 {
	n := len(c.free)
	if n == 0 {
		return -1
	}
	m := c.free[n-1]
	c.free = c.free[:n-1]
	e := &c.mshrs[m]
	e.tag, e.entry, e.outstanding = tag, int32(i), 0
	e.waiters = e.waiters[:0]
	c.lines[i].mshr = m
	return m
}

// releaseMSHR frees MSHR m once its fills are all back.
func (c *cache) releaseMSHR(m int32) {
	e := &c.mshrs[m]
	l := &c.lines[e.entry]
	if l.mshr == m {
		l.mshr = -1
		l.pending = 0
	}
	c.free = append(c.free, m)
}
