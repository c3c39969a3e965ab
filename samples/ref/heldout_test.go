package ref

import (
	"math"
	"slices"
	"testing"
)

// Hand-computed cases for the held-out references.

func TestHandHistogram(t *testing.T) {
	b := Histogram([]byte{3, 255, 3, 0})
	if b[0] != 1 || b[3] != 2 || b[255] != 1 || b[1] != 0 {
		t.Errorf("%v", b[:4])
	}
}

func TestHandLocalSort(t *testing.T) {
	s, d := LocalSort([]int32{5, -1, 5, 0, 7, 7, 7, 2, 1, 1, 1, 1, 1, 1, 1, 1})
	if !slices.Equal(s[:8], []int32{-1, 0, 2, 5, 5, 7, 7, 7}) || !slices.Equal(d, []int32{5, 1}) {
		t.Errorf("%v %v", s, d)
	}
}

func TestHandDevFunc(t *testing.T) {
	// n = 3: i = 0: j = clamp(-5) = 0: (10·3 + 10) ^ 0 + 10 = 50
	// i = 1: j = clamp(9) = 2: (30·3 + 20) ^ 1 + 20 = 111 + 20 = 131
	// i = 2: j = 1: (20·3 + 30) ^ 2 + 30 = 88 + 30 = 118
	got := DevFunc([]int32{10, 20, 30}, []int32{-5, 9, 1})
	if !slices.Equal(got, []int32{50, 131, 118}) {
		t.Errorf("%v", got)
	}
	// wrap-around: (3a + a) + a = 5·2^30 = 2^32 + 2^30 ≡ 2^30 (mod 2^32)
	if got := DevFunc([]int32{1 << 30}, []int32{0}); got[0] != 1<<30 {
		t.Errorf("%v", got)
	}
}

func TestHandDynRev(t *testing.T) {
	// block 4, n 6: chunk 0 = 1 2 3 4 -> 4 3 2 1; chunk 1 = 5 6 0 0 -> out[4] = s[3] = 0, out[5] = s[2] = 0
	got := DynRev([]int32{1, 2, 3, 4, 5, 6}, 4)
	if !slices.Equal(got, []int32{4, 3, 2, 1, 0, 0}) {
		t.Errorf("%v", got)
	}
}

func TestHandShflChain(t *testing.T) {
	// next[i] = i: step 1: v = lane l, x = xor of 0..31 = 0, p = l: acc = 2l, out = 3l (2 steps)
	next := make([]int32, 32)
	for i := range next {
		next[i] = int32(i)
	}
	got := ShflChain(next, 2)
	for l, v := range got {
		if v != int32(3*l) {
			t.Fatalf("lane %d: %d", l, v)
		}
	}
	// next = 1 everywhere: v = 1, x = 0 (32 ones), p = 1; out = steps + 1
	for i := range next {
		next[i] = 1
	}
	if got := ShflChain(next, 3); got[5] != 4 {
		t.Errorf("%v", got[5])
	}
}

func TestHandMultiSpace(t *testing.T) {
	// n = 2, coef = [1, 2, 0...]: y[0] = 1·(x0 + w0) + 2·(x1 + w1); y[1] = 1·(x1 + w1) + 2·(x0 + w[2 mod 128 = 2] = 0)
	coef := []int32{1, 2, 0, 0, 0, 0, 0, 0}
	got := MultiSpace([]int32{1, 10}, []int32{100, 1000}, coef)
	if !slices.Equal(got, []int32{101 + 2*1010, 1010 + 2*1}) {
		t.Errorf("%v", got)
	}
}

func TestHandBigBlockScanStencil(t *testing.T) {
	in := make([]int32, 1030)
	for i := range in {
		in[i] = 2
	}
	if got := BigBlock(in, 2); !slices.Equal(got, []int32{4096, 24}) {
		t.Errorf("bigblock %v", got)
	}
	o, tot := Scan([]int32{1, 2, 3}, 1)
	if !slices.Equal(o, []int32{1, 3, 6}) || !slices.Equal(tot, []int32{6}) {
		t.Errorf("scan %v %v", o, tot)
	}
	// 2x2 grid [1 2; 3 4]: out[0][0] = 4 - (3 + 2) = -1, out[1][1] = 16 - (2 + 3) = 11
	st := Stencil2D([]int32{1, 2, 3, 4}, 2, 2)
	if !slices.Equal(st, []int32{-1, 3, 7, 11}) {
		t.Errorf("stencil %v", st)
	}
	p, s := FenceReduce(make([]int32, 600), 2)
	if s != 0 || len(p) != 2 {
		t.Errorf("fencereduce %v %v", p, s)
	}
	in2 := make([]int32, 768) // blocks of 256 round-robin over grid 2: 0, 1, 0
	in2[0], in2[300], in2[600] = 1, 10, 100
	if p, s := FenceReduce(in2, 2); !slices.Equal(p, []int32{101, 10}) || s != 111 {
		t.Errorf("fencereduce %v %v", p, s)
	}
}

func TestHandTransposeSpMV(t *testing.T) {
	tr := Transpose([]float32{1, 2, 3, 4, 5, 6}, 2, 3) // [1 2 3; 4 5 6] -> [1 4; 2 5; 3 6]
	if !slices.Equal(tr.Want, []float64{1, 4, 2, 5, 3, 6}) {
		t.Errorf("%v", tr.Want)
	}
	in := SpMVIn{Rows: 2, RowPtr: []int32{0, 2, 2}, Col: []int32{1, 0}, Val: []float32{0.5, -2}, X: []float32{3, 4}}
	y := SpMV(in)
	if y.Want[0] != 0.5*4-2*3 || y.Want[1] != 0 || y.Scale[0] != 8 || y.Tol.Rel != gamma(4) {
		t.Errorf("%+v", y)
	}
	if math.IsNaN(y.Tol.Rel) || y.Tol.Rel <= 0 {
		t.Errorf("tolerance %v", y.Tol)
	}
}

func TestHeldoutGenerators(t *testing.T) {
	for name, g := range HeldoutGenerators() {
		a, err := g.Make(Args{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		b, _ := g.Make(Args{})
		for k, buf := range a.Buffers {
			if len(buf.Data) == 0 || !slices.Equal(buf.Data, b.Buffers[k].Data) {
				t.Errorf("%s.%s: empty or not repeatable", name, k)
			}
		}
		if _, err := g.Make(Args{"bogus": "1"}); err == nil {
			t.Errorf("%s accepts an unknown argument", name)
		}
	}
	if _, err := HeldoutGenerators()["shflchain"].Make(Args{"n": "33"}); err == nil {
		t.Errorf("shflchain accepts n = 33")
	}
}
