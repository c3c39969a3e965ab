package ref

import "math"

// HotspotIn holds the inputs of hotspot_step and the host's step count.
type HotspotIn struct {
	Power      []float32 // Rows×Cols row-major, values in [0, 1)
	Temp       []float32 // Rows×Cols row-major, initial temperatures in [320, 340)
	Rows, Cols int
	Cx, Cy, Cz float32 // conductances (east/west, north/south, ambient)
	StepDivCap float32
	AmbTemp    float32
}

// HotspotInputs returns a random power map and temperature field with the
// package's fixed constants Cx = Cy = 0.25, Cz = 0.0625, StepDivCap = 0.5,
// AmbTemp = 80 (a stable explicit step: StepDivCap·(2Cx+2Cy+Cz) < 1).
func HotspotInputs(rows, cols int, seed uint64) HotspotIn {
	r := newRNG(seed)
	in := HotspotIn{
		Power: make([]float32, rows*cols), Temp: make([]float32, rows*cols),
		Rows: rows, Cols: cols, Cx: 0.25, Cy: 0.25, Cz: 0.0625, StepDivCap: 0.5, AmbTemp: 80,
	}
	for i := range in.Power {
		in.Power[i] = r.unit()
		in.Temp[i] = r.uniform(320, 340)
	}
	return in
}

// Hotspot is the reference for temp after `steps` hotspot_step launches
// (ping-pong), starting from in.Temp, by the stencil equation
//
//	T' = T + sdc·(P + (N+S−2T)·cy + (E+W−2T)·cx + (amb−T)·cz)
//
// with out-of-grid neighbours replaced by the nearest edge cell, in float64.
//
// Tolerance (Scale holds an absolute bound, Rel = 1): one step of any float32
// evaluation of the equation has at most 8 roundings on any path (the PTX:
// add, sub, fma×4 ... ), so it errs by ≤ γ_8·S with S the equation evaluated
// on absolute values; an input error E propagates through the linear stencil
// with factor |1−sdc(2cx+2cy+cz)| on T and sdc·|c| on each neighbour. The
// bound is propagated per cell across the steps.
func Hotspot(in HotspotIn, steps int) Floats {
	n := in.Rows * in.Cols
	t := make([]float64, n)
	e := make([]float64, n)
	for i, v := range in.Temp {
		t[i] = float64(v)
	}
	nt := make([]float64, n)
	ne := make([]float64, n)
	cx, cy, cz := float64(in.Cx), float64(in.Cy), float64(in.Cz)
	sdc, amb := float64(in.StepDivCap), float64(in.AmbTemp)
	self := math.Abs(1 - sdc*(2*cx+2*cy+cz))
	at := func(a []float64, r, c int) float64 {
		r = min(max(r, 0), in.Rows-1)
		c = min(max(c, 0), in.Cols-1)
		return a[r*in.Cols+c]
	}
	for range steps {
		for r := range in.Rows {
			for c := range in.Cols {
				i := r*in.Cols + c
				T, N, S := t[i], at(t, r-1, c), at(t, r+1, c)
				W, E := at(t, r, c-1), at(t, r, c+1)
				p := float64(in.Power[i])
				nt[i] = T + sdc*(p+(N+S-2*T)*cy+(E+W-2*T)*cx+(amb-T)*cz)
				abs := math.Abs(T) + math.Abs(sdc)*(math.Abs(p)+
					(math.Abs(N)+math.Abs(S)+2*math.Abs(T))*math.Abs(cy)+
					(math.Abs(E)+math.Abs(W)+2*math.Abs(T))*math.Abs(cx)+
					(math.Abs(amb)+math.Abs(T))*math.Abs(cz))
				ne[i] = self*e[i] +
					math.Abs(sdc*cy)*(at(e, r-1, c)+at(e, r+1, c)) +
					math.Abs(sdc*cx)*(at(e, r, c-1)+at(e, r, c+1)) +
					gamma(8)*abs
			}
		}
		t, nt = nt, t
		e, ne = ne, e
	}
	return Floats{Want: t, Scale: e, Tol: Tolerance{Rel: 1}}
}
