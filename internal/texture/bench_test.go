package texture

import "testing"

func benchTexture(b *testing.B, dims int) *Texture {
	n := 256
	if dims == 3 {
		n = 64
	}
	d := Desc{Dims: dims, Width: n, Height: n, Format: Format{F32, 4}, Filter: Linear,
		NormalizedCoords: true, Address: [3]AddressMode{Wrap, Clamp, Mirror}}
	count := n * n
	if dims == 3 {
		d.Depth = n
		count *= n
	}
	data := make([]byte, count*16)
	for i := range data {
		data[i] = byte(i * 7)
	}
	for i := 3; i < len(data); i += 4 {
		data[i] = 0x3f // keep the floats finite and moderate
	}
	tx, err := New(d, data)
	if err != nil {
		b.Fatal(err)
	}
	return tx
}

var sink [4]float32

func benchSample(b *testing.B, dims int, touched func(x, y, z, l int)) {
	tx := benchTexture(b, dims)
	u := float32(0.1234)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		u += 0.0039
		if u > 1 {
			u -= 1
		}
		sink = tx.SampleF(u, 1-u, u*0.5, 0, touched)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

// BenchmarkLinear2D measures bilinear float4 sampling (4 taps).
func BenchmarkLinear2D(b *testing.B) { benchSample(b, 2, nil) }

// BenchmarkLinear3D measures trilinear float4 sampling (8 taps).
func BenchmarkLinear3D(b *testing.B) { benchSample(b, 3, nil) }

// BenchmarkLinear2DTouched includes a touched callback.
func BenchmarkLinear2DTouched(b *testing.B) {
	n := 0
	benchSample(b, 2, func(x, y, z, l int) { n += x })
	_ = n
}

func BenchmarkPoint2D(b *testing.B) {
	tx := benchTexture(b, 2)
	d := tx.Desc()
	d.Filter = Point
	tx, _ = New(d, tx.data)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sink = tx.SampleF(float32(i&1023)*(1.0/1024), 0.5, 0, 0, nil)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}
