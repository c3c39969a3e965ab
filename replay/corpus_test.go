package replay

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ptxtrace/ptxtrace/internal/texture"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// corpusOutcome classifies one corpus kernel run with synthetic inputs.
type corpusOutcome struct {
	file, kernel string
	class        string // "ok", "memfault", "refused", "fault", "error"
	detail       string
}

// optixFile reports corpus files written against the OptiX runtime: they
// call functions OptiX supplies when it links the program (_optix_*,
// _rt_*), so they cannot run outside it and are excepted from the coverage
// goal.
func optixFile(name string, src []byte) bool {
	s := string(src)
	return strings.Contains(name, "optix") || strings.Contains(s, "_optix_") || strings.Contains(s, "_rt_")
}

// runCorpusKernel runs one entry with synthetic inputs: every pointer-sized
// parameter points to its own 1 MiB buffer of small values, 4-byte integers
// are 64, floats 1.0; grid (2,1,1), block (64,1,1), 160 KiB of dynamic
// shared memory; every texture reference is bound to a 16×16×16 float4
// texture.
//
// A 64-bit parameter loaded straight into the handle operand of a
// tex/tld4/suq instruction (found textually in src) is a texture object: it
// gets the handle of one more 16×16×16 float4 texture instead of a buffer.
func runCorpusKernel(prog *Program, entry string, src []byte) corpusOutcome {
	o, _ := runCorpusKernelOn(prog, entry, src)
	return o
}

// runCorpusKernelOn is runCorpusKernel returning the device too (its
// buffers: "p<i>" for pointer parameter i, "tmap<i>" for a tensor map's).
func runCorpusKernelOn(prog *Program, entry string, src []byte) (corpusOutcome, *Device) {
	out := corpusOutcome{kernel: entry}
	dev := NewDeviceFor(prog)
	c, err := prog.Lower(entry)
	if err != nil {
		out.class, out.detail = "error", err.Error()
		return out, dev
	}
	globals := dev.LoadModule(prog)
	params := make([]byte, c.ParamSize)
	texObj := texObjectParams(src)
	nref := len(prog.TexRefs()) + len(prog.SurfRefs())
	nobj := 0
	for i, p := range c.Params {
		switch {
		case p.Size == 128 && p.Align >= 64:
			// a by-value CUtensorMap: a 256×256 tensor of 2-byte
			// elements in its own buffer, 64×64 boxes with the 128-byte
			// swizzle (the corpus' one TMA kernel, the sm_90a GEMM, loads
			// 64×64 bf16 tiles: expect_tx 16384 for two boxes, wgmma
			// descriptors with the 128-byte swizzle)
			a := dev.Alloc(fmt.Sprintf("tmap%d", i), 256*512)
			for j := 0; j+2 <= len(a.Data); j += 2 {
				binary.LittleEndian.PutUint16(a.Data[j:], 0x3f80+uint16(j/2%3)) // bf16 1, 1.0078, 1.0156
			}
			tm := TensorMap{Base: a.Base, Rank: 2, ElemSize: 2, Dims: [5]uint64{256, 256}, Strides: [5]uint64{0, 512},
				Box: [5]uint32{64, 64}, Swizzle: 128}
			enc := tm.Encode()
			copy(params[p.Offset:], enc[:])
		case texObj[p.Name] && p.Size == 8 && len(prog.SurfRefs()) == 0:
			binary.LittleEndian.PutUint64(params[p.Offset:], uint64(TexHandleBase+nref+nobj))
			nobj++
		case p.Ptr || (p.Size == 8 && !p.Type.IsFloat()):
			a := dev.Alloc(fmt.Sprintf("p%d", i), 1<<20)
			for j := 0; j+4 <= len(a.Data); j += 4 {
				binary.LittleEndian.PutUint32(a.Data[j:], uint32(j/4%7))
			}
			binary.LittleEndian.PutUint64(params[p.Offset:], a.Base)
		case p.Size == 4 && p.Type.IsFloat():
			binary.LittleEndian.PutUint32(params[p.Offset:], math.Float32bits(1))
		case p.Size == 8 && p.Type.IsFloat():
			binary.LittleEndian.PutUint64(params[p.Offset:], math.Float64bits(1))
		case p.Size == 4 && prog.AddressSize() == 32 && p.Type.Size() == 4 && p.Ptr:
		case p.Size == 4 || p.Size == 2 || p.Size == 1:
			v := uint64(64)
			b := make([]byte, 8)
			binary.LittleEndian.PutUint64(b, v)
			copy(params[p.Offset:p.Offset+p.Size], b)
		}
	}
	// every texture reference: a 16×16×16 float4 texture of small values
	var texs []*TexBinding
	names := prog.TexRefs()
	for i := 0; i < nobj; i++ {
		names = append(names, fmt.Sprintf("object%d", i))
	}
	for i, name := range names {
		data := make([]byte, 16*16*16*16)
		for j := 0; j+4 <= len(data); j += 4 {
			binary.LittleEndian.PutUint32(data[j:], math.Float32bits(float32(j/4%5)))
		}
		tx, err := texture.New(texture.Desc{Dims: 3, Width: 16, Height: 16, Depth: 16,
			Format:  texture.Format{Kind: texture.F32, Channels: 4},
			Address: [3]texture.AddressMode{texture.Clamp, texture.Clamp, texture.Clamp}}, data)
		if err != nil {
			out.class, out.detail = "error", err.Error()
			return out, dev
		}
		texs = append(texs, &TexBinding{Name: name, ID: uint16(i), Tex: tx,
			Info: model.TexInfo{Width: 16, Height: 16, Depth: 16, TexelBytes: 16}})
	}
	k, err := NewKernel(Launch{Code: c, Grid: [3]int{2, 1, 1}, Block: [3]int{entryBlock(prog, entry), 1, 1}, DynShared: 160 << 10,
		Params: params, Dev: dev, Globals: globals, Textures: texs, MaxWarpInsts: 2_000_000})
	if err != nil {
		out.class, out.detail = "error", err.Error()
		return out, dev
	}
	ctx, cancel := context.WithTimeout(context.Background(), corpusTimeout())
	defer cancel()
	_, err = k.Run(ctx, RunOptions{Workers: 1})
	var f *Fault
	switch {
	case err == nil:
		out.class = "ok"
	case errors.As(err, &f) && (f.Kind == FaultOutOfBounds || f.Kind == FaultMisaligned || f.Kind == FaultRunaway || f.Kind == FaultTrap || f.Kind == FaultAssert):
		out.class, out.detail = "memfault", err.Error()
	case errors.As(err, &f) && f.Kind == FaultUnsupported:
		out.class, out.detail = "refused", err.Error()
	case errors.As(err, &f):
		out.class, out.detail = "fault", err.Error()
	default:
		out.class, out.detail = "error", err.Error()
	}
	if len(c.Warnings) > 0 && out.detail == "" {
		out.detail = "warnings: " + c.Warnings[0]
	}
	return out, dev
}

var (
	texHandleRe = regexp.MustCompile(`\btex\.[a-z0-9.]*\s+[^\[]*\[\s*(%[a-z0-9_]+)\s*,`)
	ldParamRe   = regexp.MustCompile(`ld\.param\.[usb]64\s+(%[a-z0-9_]+)\s*,\s*\[\s*([A-Za-z0-9_$]+)\s*\]`)
)

// texObjectParams returns the names of parameters whose value is loaded
// into a register used as a tex handle operand (a texture object).
func texObjectParams(src []byte) map[string]bool {
	handles := map[string]bool{}
	for _, m := range texHandleRe.FindAllSubmatch(src, -1) {
		handles[string(m[1])] = true
	}
	out := map[string]bool{}
	for _, m := range ldParamRe.FindAllSubmatch(src, -1) {
		if handles[string(m[1])] {
			out[string(m[2])] = true
		}
	}
	return out
}

// entryBlock is the block size of a corpus run: the entry's .reqntid or
// .maxntid thread count (kernels written for a fixed size, e.g. warpgroup
// kernels), else 64.
func entryBlock(prog *Program, entry string) int {
	for _, d := range prog.File.Decls {
		fn, ok := d.(*ptx.Function)
		if !ok || fn.Name != entry {
			continue
		}
		for _, p := range fn.Perf {
			if p.Name != ".reqntid" && p.Name != ".maxntid" {
				continue
			}
			if v, ok := p.Ints(); ok && len(v) > 0 {
				n := 1
				for _, x := range v {
					n *= x
				}
				if n > 0 && n <= 1024 {
					return n
				}
			}
		}
	}
	return 64
}

// TestCorpusRun runs every kernel of the shared corpus with synthetic
// inputs and reports how many execute (completion, or a fault caused by the
// synthetic input: out of bounds, misaligned, runaway, trap, assert).
// Opt-in: PTXTRACE_CORPUS_RUN=1 (it takes minutes).
func TestCorpusRun(t *testing.T) {
	if os.Getenv("PTXTRACE_CORPUS_RUN") == "" {
		t.Skip("set PTXTRACE_CORPUS_RUN=1 to run the shared corpus")
	}
	dir := filepath.Join("..", "..", "shared", "corpus", "ptx")
	if _, err := os.Stat(dir); err != nil {
		dir = filepath.Join("..", "..", "..", "shared", "corpus", "ptx")
	}
	if d := os.Getenv("PTXTRACE_CORPUS_DIR"); d != "" {
		dir = d
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.ptx"))
	if len(files) == 0 {
		t.Skipf("corpus %s absent", dir)
	}
	sort.Strings(files)
	counts := map[string]int{}
	var optix []string
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(path)
		f, err := ptx.ParseFile(token.NewFileSet(), base, src, 0)
		if err != nil {
			t.Logf("%s: parse: %v", base, err)
			counts["parse"]++
			continue
		}
		prog, err := NewProgram(f)
		if err != nil {
			t.Logf("%s: program: %v", base, err)
			counts["program"]++
			continue
		}
		for _, e := range prog.Entries() {
			o := runCorpusKernel(prog, e, src)
			if optixFile(base, src) {
				optix = append(optix, base+":"+e)
				counts["optix"]++
				continue
			}
			counts[o.class]++
			d := o.detail
			if len(d) > 400 {
				d = d[:400]
			}
			t.Logf("%-8s %s:%s %s", o.class, base, e, d)
		}
	}
	t.Logf("counts: %v", counts)
	n := counts["ok"] + counts["memfault"]
	t.Logf("executed (ok+memfault): %d; OptiX excepted: %v", n, optix)
	// 121 non-OptiX kernels; the one that does not execute is the sm_90a
	// GEMM (gpuocelot's cnp.ptx, dynamic parallelism, executes: its child
	// grids run and nestedCall(10) writes one element past its 10-element
	// array, a memory fault; TestCDPCorpusCNP runs it with the array
	// widened). The GEMM has a real race:
	// its second k-tile waits on barrier 1 with parity 1 while barrier 1
	// is in phase 0, which the ISA answers True at once (the preceding
	// phase), so wgmma reads a TMA destination before the copy completes
	// (an async-race fault; TestCorpusGemmParity: with the parities
	// corrected it runs and matches a reference)
	if want := 120; len(files) == 60 && n < want {
		t.Errorf("%d corpus kernels executed, want at least %d", n, want)
	}
}

// corpusTimeout is the per-kernel time limit (PTXTRACE_CORPUS_TIMEOUT, a
// Go duration; default 20s).
func corpusTimeout() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("PTXTRACE_CORPUS_TIMEOUT")); err == nil && d > 0 {
		return d
	}
	return 20 * time.Second
}
