package ptx

import (
	"bytes"
	"go/token"
	"io"
	"os"
	"testing"
)

// benchInputs loads the corpus once for the benchmarks.
func benchInputs(b *testing.B) [][]byte {
	b.Helper()
	var srcs [][]byte
	for _, name := range corpusFiles(b) {
		src, err := os.ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, src)
	}
	return srcs
}

func totalBytes(srcs [][]byte) int64 {
	var n int64
	for _, s := range srcs {
		n += int64(len(s))
	}
	return n
}

// BenchmarkLex measures the lexer alone over the corpus (MB/s).
func BenchmarkLex(b *testing.B) {
	srcs := benchInputs(b)
	strs := make([]string, len(srcs))
	for i, s := range srcs {
		strs[i] = string(s)
	}
	b.SetBytes(totalBytes(srcs))
	b.ReportAllocs()
	var toks []rawTok
	var kinds []Kind
	for b.Loop() {
		for _, s := range strs {
			toks, kinds = lex(s, 1, toks[:0], kinds[:0], func(int, string) {})
		}
	}
}

// BenchmarkParse measures ParseFile over the whole corpus (MB/s).
func BenchmarkParse(b *testing.B) {
	srcs := benchInputs(b)
	b.SetBytes(totalBytes(srcs))
	b.ReportAllocs()
	for b.Loop() {
		fset := token.NewFileSet()
		for _, s := range srcs {
			if _, err := ParseFile(fset, "bench.ptx", s, 0); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func benchPrint(b *testing.B, mode PrintMode) {
	srcs := benchInputs(b)
	var files []*File
	for _, s := range srcs {
		f, err := ParseFile(token.NewFileSet(), "bench.ptx", s, 0)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, f)
	}
	b.SetBytes(totalBytes(srcs))
	b.ReportAllocs()
	cfg := &Config{Mode: mode}
	for b.Loop() {
		for _, f := range files {
			if err := cfg.Fprint(io.Discard, f); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkPrintPreserve measures Preserve printing (MB/s of input).
func BenchmarkPrintPreserve(b *testing.B) { benchPrint(b, Preserve) }

// BenchmarkPrintCanonical measures Canonical printing (MB/s of input).
func BenchmarkPrintCanonical(b *testing.B) { benchPrint(b, Canonical) }

// BenchmarkParseLarge parses one large file made by repeating the bodies of
// the corpus' largest kernels, the case `ptxtrace fmt` meets on big
// generated PTX.
func BenchmarkParseLarge(b *testing.B) {
	srcs := benchInputs(b)
	var big []byte
	for _, s := range srcs {
		if len(s) > len(big) {
			big = s
		}
	}
	// Repeat the largest file's text as separate modules in one buffer:
	// valid PTX only once, so parse each copy separately but as one
	// stream of work.
	var buf bytes.Buffer
	for buf.Len() < 8<<20 {
		buf.Write(big)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		ParseFile(token.NewFileSet(), "large.ptx", data, 0)
	}
}

// BenchmarkFmtLargest is what `ptxtrace fmt` does to the largest corpus
// file once the process has started: parse it and print it back in
// Preserve mode (the byte-for-byte round trip). Full keeps the operand
// lists; SkipOperands is the mode fmt itself uses.
func BenchmarkFmtLargest(b *testing.B) {
	var big []byte
	for _, s := range benchInputs(b) {
		if len(s) > len(big) {
			big = s
		}
	}
	for _, bc := range []struct {
		name string
		mode Mode
	}{{"Full", 0}, {"SkipOperands", SkipOperands}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(big)))
			b.ReportAllocs()
			cfg := &Config{Mode: Preserve}
			var out bytes.Buffer
			for b.Loop() {
				f, err := ParseFile(token.NewFileSet(), "largest.ptx", big, bc.mode)
				if err != nil {
					b.Fatal(err)
				}
				out.Reset()
				if err := cfg.Fprint(&out, f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseFileEnv parses the file named by PTXTRACE_PARSE_FILE
// (MB/s), e.g. a module made by instrument's genModule
// (PTXTRACE_GEN_OUT, docs/instrument.md); it is skipped when the variable
// is unset. Whole is ParseFile; Pieces is what the streaming instrument
// path does: Split, then ParseRangeShared on each piece.
func BenchmarkParseFileEnv(b *testing.B) {
	name := os.Getenv("PTXTRACE_PARSE_FILE")
	if name == "" {
		b.Skip("PTXTRACE_PARSE_FILE not set")
	}
	src, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Whole", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ParseFile(token.NewFileSet(), name, src, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Pieces", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		for b.Loop() {
			tf := NewFile(token.NewFileSet(), name, src)
			opcodes := map[string]*Opcode{}
			lo := 0
			for _, hi := range Split(src) {
				if _, err := ParseRangeShared(tf, src, lo, hi, 0, opcodes); err != nil {
					b.Fatal(err)
				}
				lo = hi
			}
		}
	})
}
