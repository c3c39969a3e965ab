package power

import (
	"context"
	"encoding/binary"
	"fmt"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/ptxtrace/ptxtrace/replay"
)

// seedlikeNames are the seed-like test workloads (testdata/seedlike).
var seedlikeNames = [...]string{"cp", "lps", "lib", "mum", "wp"}

// seedlikeInput loads testdata/seedlike/NAME.yaml with seedlike.sm_52.ptx
// on gtx480.
func seedlikeInput(t testing.TB, name string) Input {
	t.Helper()
	dir := filepath.Join("testdata", "seedlike")
	path := filepath.Join(dir, "seedlike.sm_52.ptx")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ptx.ParseFile(token.NewFileSet(), path, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := replay.NewProgram(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := launch.ParseSpec(b)
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := model.Preset("gtx480")
	return Input{Prog: prog, Spec: spec, BaseDir: dir, Model: ms}
}

// initial returns the initial bytes of every buffer of in's spec.
func initial(t testing.TB, in Input) map[string][]byte {
	prep, err := in.Spec.Prepare(in.Prog, launch.PrepareOptions{BaseDir: in.BaseDir, Registry: launch.SampleRegistry(), NumSMs: in.Model.NumSMs})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]byte{}
	for _, b := range prep.Buffers {
		m[b.Name] = b.Initial
	}
	return m
}

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func s32s(b []byte) []int32 {
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// near compares got with want (float64) within rel·|want| + abs.
func near(name string, got []float32, want []float64, rel, abs float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d values, want %d", name, len(got), len(want))
	}
	for i, w := range want {
		if d := math.Abs(float64(got[i]) - w); !(d <= rel*math.Abs(w)+abs) {
			return fmt.Errorf("%s[%d] = %g, want %g", name, i, got[i], w)
		}
	}
	return nil
}

// seedlikeRef checks a seed-like kernel's output against a float64 (or
// exact integer) reference written from the kernel's definition.
func seedlikeRef(name string, in, out map[string][]byte) error {
	switch name {
	case "cp":
		atoms := f32s(in["atoms"])
		want := make([]float64, 128*64)
		for y := range 64 {
			for x := range 128 {
				px, py, z := float64(x)*0.0625, float64(y)*0.0625, 4.03125
				var e float64
				for i := 0; i < 128; i++ {
					a := atoms[4*i : 4*i+4]
					dx, dy, dz := px-float64(a[0]), py-float64(a[1]), z-float64(a[2])
					e += float64(a[3]) / math.Sqrt(dx*dx+dy*dy+dz*dz)
				}
				want[y*128+x] = e
			}
		}
		return near("energy", f32s(out["energy"]), want, 1e-4, 0)
	case "lps":
		u := f32s(in["u"])
		const nx, ny, nz = 64, 64, 32
		want := make([]float64, len(u))
		for k := range nz {
			for y := range ny {
				for x := range nx {
					i := k*nx*ny + y*nx + x
					if x == 0 || y == 0 || k == 0 || x == nx-1 || y == ny-1 || k == nz-1 {
						want[i] = float64(u[i])
						continue
					}
					want[i] = (float64(u[i-1]) + float64(u[i+1]) + float64(u[i-nx]) + float64(u[i+nx]) +
						float64(u[i-nx*ny]) + float64(u[i+nx*ny])) / 6
				}
			}
		}
		return near("v", f32s(out["v"]), want, 1e-5, 1e-6)
	case "lib":
		z, lambda := f32s(in["z"]), f32s(in["lambda"])
		const npath, nmat, delta, N = 512, 12, 0.25, 24
		want := make([]float64, npath)
		for p := range npath {
			var L [N]float64
			for i := range L {
				L[i] = 0.05
			}
			for n := range nmat {
				sqez := math.Sqrt(delta) * float64(z[n*npath+p])
				v := 0.0
				for i := n + 1; i < N; i++ {
					lam := float64(lambda[i-n-1])
					con1 := delta * lam
					v += con1 * L[i] / (1 + delta*L[i])
					L[i] *= math.Exp(con1*v + lam*(sqez-0.5*con1))
				}
			}
			b, s, sv := 1.0, 0.0, 0.0
			for n := nmat; n < N; n++ {
				b /= 1 + delta*L[n]
				s += delta * b
				sv += b * (L[n] - 0.05) * delta
			}
			want[p] = math.Max(sv, 0) + 0.01*s
		}
		return near("value", f32s(out["value"]), want, 1e-4, 1e-6)
	case "mum":
		ref, q, seeds := in["ref"], in["queries"], s32s(in["seeds"])
		got := s32s(out["best"])
		const qlen, window = 32, 64
		for i := range 2048 {
			s, start := q[i*qlen:], int(seeds[i])
			bl, bo := 0, -1
			for o := 0; o < window && start+o < len(ref); o++ {
				r := start + o
				if ref[r] != s[0] {
					continue
				}
				l := 1
				for l < qlen && r+l < len(ref) && ref[r+l] == s[l] {
					l++
				}
				if l > bl {
					bl, bo = l, o
				}
			}
			if int(got[2*i]) != bl || int(got[2*i+1]) != bo {
				return fmt.Errorf("best[%d] = %d, %d; want %d, %d", i, got[2*i], got[2*i+1], bl, bo)
			}
		}
		return nil
	case "wp":
		tt, qq := f32s(in["t"]), f32s(in["q"])
		want := make([]float64, len(tt))
		for i := range tt {
			tk, qk, acc := float64(tt[i]), float64(qq[i]), 0.0
			for range 64 {
				es := 6.112 * math.Exp(17.67*(tk-273.15)/(tk-29.65))
				qs := 0.622 * es / (1000 - es)
				d := (qk - qs) * 0.5
				qk -= d
				tk += 2.5 * d
				acc = acc*0.99 + qk*tk*1e-3
			}
			want[i] = acc
		}
		return near("out", f32s(out["out"]), want, 1e-4, 1e-6)
	}
	return fmt.Errorf("no reference for %s", name)
}

// The seed-like kernels compute what their references say, and keep
// their output bytes under issue control and consolidation (RunComparison
// and RunConsolidation refuse a difference).
func TestSeedlike(t *testing.T) {
	for _, name := range seedlikeNames {
		t.Run(name, func(t *testing.T) {
			in := seedlikeInput(t, name)
			_, out, _, err := run(context.Background(), in, DefaultConfig(), nil, []bool{false})
			if err != nil {
				t.Fatal(err)
			}
			if err := seedlikeRef(name, initial(t, in), out); err != nil {
				t.Fatal(err)
			}
			if testing.Short() {
				return
			}
			if _, err := RunComparison(context.Background(), in, DefaultConfig(), DefaultIssueControl()); err != nil {
				t.Fatal(err)
			}
			if _, err := RunConsolidation(context.Background(), in, DefaultConfig()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSeedTable prints docs/power.md's tables (PTXTRACE_POWER_TABLE=1):
// seed Fig. 17 rows and Fig. 15 consolidation for samples and seed-like
// workloads.
func TestSeedTable(t *testing.T) {
	if os.Getenv("PTXTRACE_POWER_TABLE") == "" {
		t.Skip("set PTXTRACE_POWER_TABLE=1 to print the tables of docs/power.md")
	}
	type wl struct {
		name string
		in   Input
	}
	var wls []wl
	for _, n := range []string{"bfs", "hotspot", "nn", "lud", "pathfinder", "gaussian", "matmul", "reduce", "vecadd", "volrender"} {
		wls = append(wls, wl{n, sampleInput(t, n)})
	}
	for _, n := range seedlikeNames {
		wls = append(wls, wl{n + " (seed-like)", seedlikeInput(t, n)})
	}
	f17 := "| workload | normal | issue | comp | mix | issue cycles | State-1/2/3/4 % |\n| --- | ---: | ---: | ---: | ---: | ---: | --- |\n"
	f15 := "| workload | active cycles | reduction | cycles | slowdown |\n| --- | ---: | ---: | ---: | ---: |\n"
	for _, w := range wls {
		c, err := RunComparison(context.Background(), w.in, DefaultConfig(), DefaultIssueControl())
		if err != nil {
			t.Fatal(err)
		}
		rows, _ := c.Rows()
		var tot uint64
		for _, n := range c.Slices.Slices {
			tot += n
		}
		sh := func(i int) float64 { return 100 * float64(c.Slices.Slices[i]) / float64(tot) }
		f17 += fmt.Sprintf("| %s | %.1f | %.1f | %.1f | %.1f | %.3f× | %.0f / %.0f / %.0f / %.0f |\n", w.name,
			100*rows[0].LaneShare, 100*rows[1].LaneShare, 100*rows[2].LaneShare, 100*rows[3].LaneShare, rows[1].Relative,
			sh(0), sh(1), sh(2), sh(3))
		k, err := RunConsolidation(context.Background(), w.in, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		f15 += fmt.Sprintf("| %s | %d → %d | %+.1f %% | %d → %d | %+.1f %% |\n", w.name, k.Normal.ActiveCycles, k.Consolidated.ActiveCycles,
			-100*k.ActiveReduction(), k.Normal.Cycles, k.Consolidated.Cycles, 100*k.Slowdown())
	}
	t.Logf("\nFig. 17 (lane sp net %% at BET 100)\n%s\nFig. 15\n%s", f17, f15)
}

// TestLIBConsolidationShape is docs/power.md's explanation of the LIB
// finding: with all 8 CTAs allowed on one SM, consolidation packs them
// there (active cycles −80 %, issue-bound: slowdown > 40 %); with at most 2
// resident CTAs per SM (max_ctas 2, a resource limit), it fills 4 SMs
// (8 CTAs / 2), halving the SMs in use, and each SM's two sp units issue
// for 4 warps as round robin's did for 2: the seed's shape, a large
// active-cycle cut (≥ 40 %) at a small slowdown (< 5 %).
func TestLIBConsolidationShape(t *testing.T) {
	for _, c := range []struct {
		maxCTAs                  int
		minCut, minSlow, maxSlow float64
	}{{8, 0.70, 0.40, 1}, {2, 0.40, -0.05, 0.05}} {
		in := seedlikeInput(t, "lib")
		in.Model.SM.MaxCTAs = c.maxCTAs
		cons, err := RunConsolidation(context.Background(), in, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		cut := 1 - float64(cons.Consolidated.ActiveCycles)/float64(cons.Normal.ActiveCycles)
		slow := float64(cons.Consolidated.Cycles)/float64(cons.Normal.Cycles) - 1
		t.Logf("max_ctas %d: active cycles %d → %d (−%.1f %%), cycles %d → %d (%+.1f %%)", c.maxCTAs,
			cons.Normal.ActiveCycles, cons.Consolidated.ActiveCycles, 100*cut, cons.Normal.Cycles, cons.Consolidated.Cycles, 100*slow)
		if cut < c.minCut || slow < c.minSlow || slow > c.maxSlow {
			t.Errorf("max_ctas %d: cut %.3f, slowdown %.3f; want cut ≥ %.2f, slowdown in [%.2f, %.2f]", c.maxCTAs, cut, slow, c.minCut, c.minSlow, c.maxSlow)
		}
	}
}
