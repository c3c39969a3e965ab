package replay

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"testing"
)

func loadPTX(t testing.TB, path string) *Program {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return programOf(t, path, string(src))
}

func TestQuickVecadd(t *testing.T) {
	p := loadPTX(t, "../samples/vecadd/vecadd.sm_52.ptx")
	c, err := p.Lower("vecadd")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range c.Warnings {
		t.Log(w)
	}
	dev := NewDevice()
	n := 1000
	A, B, C := dev.Alloc("a", 4*n), dev.Alloc("b", 4*n), dev.Alloc("c", 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(A.Data[4*i:], math.Float32bits(float32(i)))
		binary.LittleEndian.PutUint32(B.Data[4*i:], math.Float32bits(float32(2*i)))
	}
	params := make([]byte, c.ParamSize)
	binary.LittleEndian.PutUint64(params[c.Params[0].Offset:], A.Base)
	binary.LittleEndian.PutUint64(params[c.Params[1].Offset:], B.Base)
	binary.LittleEndian.PutUint64(params[c.Params[2].Offset:], C.Base)
	binary.LittleEndian.PutUint32(params[c.Params[3].Offset:], uint32(n))
	k, err := NewKernel(Launch{Code: c, Grid: [3]int{(n + 255) / 256}, Block: [3]int{256}, Params: params, Dev: dev})
	if err != nil {
		t.Fatal(err)
	}
	res, err := k.Run(context.Background(), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		got := math.Float32frombits(binary.LittleEndian.Uint32(C.Data[4*i:]))
		if got != float32(3*i) {
			t.Fatalf("c[%d] = %v", i, got)
		}
	}
	t.Logf("%+v", res)
}

func mustRead(t testing.TB, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
