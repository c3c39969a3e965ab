// Package cudatool runs the CUDA toolkit's ptxas, nvdisasm and cuobjdump
// for ptxtrace: compiling PTX to a cubin, reading the per-kernel resource
// usage that `ptxas -v` prints, and disassembling a cubin to SASS text.
//
// Model: every function takes the tool paths from a Tools value (found on
// PATH by Find); nothing is cached between calls and there is no global
// state. Temporary files live in a directory removed before return.
package cudatool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/ptxtrace/ptxtrace/ptx"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Tools are the paths of the toolkit programs; empty when absent.
type Tools struct {
	Ptxas     string
	Nvdisasm  string
	Cuobjdump string
}

// Find looks the tools up on PATH.
func Find() Tools {
	var t Tools
	t.Ptxas, _ = exec.LookPath("ptxas")
	t.Nvdisasm, _ = exec.LookPath("nvdisasm")
	t.Cuobjdump, _ = exec.LookPath("cuobjdump")
	return t
}

// CanDisassemble reports whether SASS can be produced.
func (t Tools) CanDisassemble() bool {
	return t.Ptxas != "" && (t.Nvdisasm != "" || t.Cuobjdump != "")
}

// ErrNoPtxas is returned when ptxas is not installed.
var ErrNoPtxas = errors.New("ptxas not found on PATH")

// Compile runs ptxas on src for arch (e.g. "sm_80") with extra flags and
// returns the cubin and ptxas's diagnostics (stderr+stdout).
func (t Tools) Compile(ctx context.Context, name string, src []byte, arch string, flags ...string) (cubin []byte, log string, err error) {
	if t.Ptxas == "" {
		return nil, "", ErrNoPtxas
	}
	dir, err := os.MkdirTemp("", "ptxtrace-ptxas-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "in.ptx")
	out := filepath.Join(dir, "out.cubin")
	if err := os.WriteFile(in, src, 0o600); err != nil {
		return nil, "", err
	}
	args := append([]string{"-arch=" + arch}, flags...)
	args = append(args, in, "-o", out)
	cmd := exec.CommandContext(ctx, t.Ptxas, args...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	runErr := cmd.Run()
	log = strings.ReplaceAll(buf.String(), in, name)
	if runErr != nil {
		return nil, log, fmt.Errorf("ptxas -arch=%s %s: %v\n%s", arch, name, runErr, strings.TrimSpace(log))
	}
	cubin, err = os.ReadFile(out)
	return cubin, log, err
}

// Usage is what ptxas -v reports for one function.
type Usage struct {
	Regs        int
	SharedBytes int
}

var (
	reFunc = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`Compiling entry function '([^']+)'|Function properties for (\S+)`)
	})
	reUsed  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Used (\d+) registers`) })
	reSmem  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\d+) bytes smem`) })
	reEntry = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Compiling entry function '([^']+)'`) })
)

// ParseVerbose reads the resource lines of `ptxas -v` output, per entry
// function name.
func ParseVerbose(log string) map[string]Usage {
	res := map[string]Usage{}
	cur := ""
	for _, line := range strings.Split(log, "\n") {
		if m := reEntry().FindStringSubmatch(line); m != nil {
			cur = m[1]
			continue
		}
		if m := reFunc().FindStringSubmatch(line); m != nil && m[2] != "" {
			// "Function properties for X" also names .func callees; keep
			// the entry being compiled.
			continue
		}
		if cur == "" {
			continue
		}
		if m := reUsed().FindStringSubmatch(line); m != nil {
			u := res[cur]
			u.Regs, _ = strconv.Atoi(m[1])
			if s := reSmem().FindStringSubmatch(line); s != nil {
				u.SharedBytes, _ = strconv.Atoi(s[1])
			}
			res[cur] = u
		}
	}
	return res
}

// Disassemble returns the SASS text of a cubin (nvdisasm -c, or cuobjdump
// -sass).
func (t Tools) Disassemble(ctx context.Context, cubin []byte) (string, error) {
	dir, err := os.MkdirTemp("", "ptxtrace-sass-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "k.cubin")
	if err := os.WriteFile(in, cubin, 0o600); err != nil {
		return "", err
	}
	var cmd *exec.Cmd
	switch {
	case t.Nvdisasm != "":
		cmd = exec.CommandContext(ctx, t.Nvdisasm, "-c", in)
	case t.Cuobjdump != "":
		cmd = exec.CommandContext(ctx, t.Cuobjdump, "-sass", in)
	default:
		return "", errors.New("neither nvdisasm nor cuobjdump found on PATH")
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %v: %s", filepath.Base(cmd.Path), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// SupportsVersion reports whether ptxas 11.8 accepts a PTX ISA version
// (it reads up to 7.8).
func SupportsVersion(major, minor int) bool {
	return major < 7 || major == 7 && minor <= 8
}

// ErrNoTarget: the module names no .target, so ptxas has no architecture
// to compile for.
var ErrNoTarget = errors.New("the module names no .target")

// Resources runs ptxas -v on the module src (parsed as f, named name in
// messages) for the module's first .target and returns each kernel's
// register and static shared-memory use. It refuses, with an error saying
// why, when ptxas is absent, cannot read the module's .version, or the
// module names no target; a failed compilation is an error too.
func (t Tools) Resources(ctx context.Context, name string, f *ptx.File, src []byte) (map[string]Usage, error) {
	if t.Ptxas == "" {
		return nil, errors.New("ptxas not found")
	}
	if d := f.Directive(".version"); d != nil {
		if maj, min, ok := d.Version(); ok && !SupportsVersion(maj, min) {
			return nil, fmt.Errorf("ptxas cannot read .version %d.%d", maj, min)
		}
	}
	arch := ""
	if d := f.Directive(".target"); d != nil {
		if ts := d.Targets(); len(ts) > 0 {
			arch = ts[0]
		}
	}
	if arch == "" {
		return nil, ErrNoTarget
	}
	_, log, err := t.Compile(ctx, name, src, arch, "-v")
	if err != nil {
		l, _, _ := strings.Cut(err.Error(), "\n")
		return nil, fmt.Errorf("ptxas -v failed: %s", l)
	}
	return ParseVerbose(log), nil
}
