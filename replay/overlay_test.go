package replay

import "testing"

// TestOverlayWriteDirty: every write marks exactly its own bytes dirty and
// stores them, whatever its offset and length within a page (runs that
// start or end inside a 64-byte dirty word, span several words, or cover
// one exactly); the expected bits come from a byte-by-byte model.
func TestOverlayWriteDirty(t *testing.T) {
	for _, c := range []struct{ off, n int }{
		{0, 1}, {3, 4}, {60, 4}, {62, 4}, {63, 1}, {64, 64}, {0, 64}, {1, 64},
		{5, 200}, {0, ovSize}, {ovSize - 1, 1}, {ovSize - 8, 8}, {100, 0},
	} {
		o := newOverlay()
		base := uint64(7) << ovShift
		b := make([]byte, c.n)
		for i := range b {
			b[i] = byte(i*7 + 1)
		}
		o.write(base+uint64(c.off), b)
		p := o.page(7, false)
		if c.n == 0 {
			if p != nil {
				t.Errorf("empty write at %d created a page", c.off)
			}
			continue
		}
		for j := 0; j < ovSize; j++ {
			in := j >= c.off && j < c.off+c.n
			dirty := p.dirty[j/64]>>(j%64)&1 != 0
			if dirty != in {
				t.Fatalf("write [%d,+%d): byte %d dirty=%v", c.off, c.n, j, dirty)
			}
			if in && p.data[j] != b[j-c.off] {
				t.Fatalf("write [%d,+%d): byte %d = %d, want %d", c.off, c.n, j, p.data[j], b[j-c.off])
			}
		}
	}
}
