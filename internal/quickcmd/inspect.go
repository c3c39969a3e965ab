package quickcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/token"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// InspectOptions are what `ptxtrace inspect` was asked to do.
type InspectOptions struct {
	Streams
	JSON      bool     // print ptx.Summary as JSON instead of tables
	AllErrors bool     // report every parse error, not only the first ten
	Files     []string // files to inspect; none (or "-") means standard input
}

// RunInspect parses each file and prints its ptx.Summary, as text tables
// or JSON. A file that fails is reported on o.Stderr and the others are
// still printed; the result is then ErrReported.
func RunInspect(ctx context.Context, o InspectOptions) error {
	files := o.Files
	if len(files) == 0 {
		files = []string{"-"}
	}
	var mode ptx.Mode
	if o.AllErrors {
		mode = ptx.AllErrors
	}
	var sums []*ptx.Summary
	failed := false
	for _, name := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		s, err := inspectFile(o, mode, name)
		if err != nil {
			PrintError(o.Stderr, err)
			failed = true
			continue
		}
		sums = append(sums, s)
	}

	var out bytes.Buffer
	switch {
	case o.JSON && len(files) == 1 && len(sums) == 1:
		if err := writeJSON(&out, sums[0]); err != nil {
			return err
		}
	case o.JSON:
		if sums == nil {
			sums = []*ptx.Summary{}
		}
		if err := writeJSON(&out, sums); err != nil {
			return err
		}
	default:
		for i, s := range sums {
			if i > 0 {
				out.WriteByte('\n')
			}
			writeSummaryText(&out, s)
		}
	}
	if len(sums) > 0 {
		if _, err := o.Stdout.Write(out.Bytes()); err != nil {
			return err
		}
	}
	if failed {
		return ErrReported
	}
	return nil
}

// inspectFile parses and summarizes one file ("-" for standard input).
func inspectFile(o InspectOptions, mode ptx.Mode, name string) (*ptx.Summary, error) {
	var (
		src []byte
		err error
	)
	filename := name
	if name == "-" {
		filename = StdinName
		if o.Stdin == nil {
			return nil, fmt.Errorf("%s: no standard input", filename)
		}
		src, err = io.ReadAll(o.Stdin)
	} else {
		src, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, err
	}
	f, err := ptx.ParseFile(token.NewFileSet(), filename, src, mode)
	if err != nil {
		return nil, err
	}
	return ptx.Summarize(f), nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeSummaryText prints s as aligned tables: the module header, one line
// per function, then the details of every function with a body.
func writeSummaryText(w *bytes.Buffer, s *ptx.Summary) {
	fmt.Fprintf(w, "%s: PTX %s, target %s, address size %s\n",
		s.File, orDash(s.Version), orDash(strings.Join(s.Target, ",")), addrSize(s.AddressSize))
	if len(s.Functions) == 0 {
		w.WriteString("no functions\n")
		return
	}
	w.WriteByte('\n')
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0) // as cmd/ptxtrace-full's newTable
	fmt.Fprintln(tw, "KIND\tNAME\tLINKAGE\tPARAMS\tREGS\tSHARED\tLOCAL\tCONST\tINSTS\tBLOCKS\tMEM OPS")
	for _, fs := range s.Functions {
		if !fs.Defined {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t-\t-\t-\t-\t-\t-\t-\n",
				fs.Kind, fs.Name, orDash(strings.Join(fs.Linkage, ",")), len(fs.Params))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%d\n",
			fs.Kind, fs.Name, orDash(strings.Join(fs.Linkage, ",")), len(fs.Params),
			fs.RegisterTotal, sharedText(&fs), fs.LocalBytes+fs.ModuleLocal,
			fs.ConstBytes+fs.ModuleConst, fs.Instructions, fs.Blocks, len(fs.MemoryAccesses))
	}
	tw.Flush()

	for _, fs := range s.Functions {
		if !fs.Defined {
			continue
		}
		fmt.Fprintf(w, "\n%s %s", fs.Kind, fs.Name)
		if fs.Line > 0 {
			fmt.Fprintf(w, " (line %d)", fs.Line)
		}
		w.WriteString("\n")
		if len(fs.Params)+len(fs.Returns) > 0 {
			w.WriteString("  params:\n")
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0) // as cmd/ptxtrace-full's newTable
			fmt.Fprintln(tw, "    NAME\tSPACE\tTYPE\tSIZE\tALIGN\tATTRS")
			for _, ps := range [][]ptx.ParamSummary{fs.Returns, fs.Params} {
				for _, p := range ps {
					fmt.Fprintf(tw, "    %s\t%s\t%s\t%d\t%d\t%s\n", p.Name, p.Space, p.Type, p.Size, p.Align, paramAttrs(p, fs.Returns))
				}
			}
			tw.Flush()
		}
		if len(fs.Registers) > 0 {
			parts := make([]string, len(fs.Registers))
			for i, r := range fs.Registers {
				parts[i] = r.Type + " " + strconv.Itoa(r.Count)
			}
			fmt.Fprintf(w, "  registers: %s (%d)\n", strings.Join(parts, ", "), fs.RegisterTotal)
		}
		fmt.Fprintf(w, "  static memory: shared %s B, local %d B, const %d B\n",
			sharedText(&fs), fs.LocalBytes+fs.ModuleLocal, fs.ConstBytes+fs.ModuleConst)
		if len(fs.Directives) > 0 {
			parts := make([]string, len(fs.Directives))
			for i, d := range fs.Directives {
				parts[i] = strings.TrimSpace(d.Name + " " + d.Args)
			}
			fmt.Fprintf(w, "  directives: %s\n", strings.Join(parts, "; "))
		}
		if len(fs.Calls) > 0 {
			fmt.Fprintf(w, "  calls: %s\n", strings.Join(fs.Calls, ", "))
		}
		blocks := "basic blocks"
		if fs.Blocks == 1 {
			blocks = "basic block"
		}
		fmt.Fprintf(w, "  instructions: %d in %d %s\n", fs.Instructions, fs.Blocks, blocks)
		if len(fs.Memory) == 0 {
			w.WriteString("  memory accesses: none\n")
			continue
		}
		w.WriteString("  memory accesses:\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0) // as cmd/ptxtrace-full's newTable
		fmt.Fprintln(tw, "    SPACE\tKIND\tCOUNT")
		for _, m := range fs.Memory {
			fmt.Fprintf(tw, "    %s\t%s\t%d\n", m.Space, m.Kind, m.Count)
		}
		tw.Flush()
		w.WriteString("  access sites:\n")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0) // as cmd/ptxtrace-full's newTable
		fmt.Fprintln(tw, "    LINE\tOP\tKIND\tSPACE\tFLAGS\tSOURCE")
		for _, a := range fs.MemoryAccesses {
			var flags []string
			if a.ReadOnly {
				flags = append(flags, "ro")
			}
			if a.Guarded {
				flags = append(flags, "guarded")
			}
			src := "-"
			if a.Source != nil {
				src = a.Source.String()
			}
			fmt.Fprintf(tw, "    %d:%d\t%s\t%s\t%s\t%s\t%s\n", a.Line, a.Col, a.Op, a.Kind, a.Space,
				orDash(strings.Join(flags, ",")), src)
		}
		tw.Flush()
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func addrSize(n int) string {
	if n == 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

// sharedText is the static shared memory of a function: the body's and the
// module variables it uses, with "+dyn" when it uses an extern array.
func sharedText(fs *ptx.FuncSummary) string {
	s := strconv.Itoa(fs.SharedBytes + fs.ModuleShared)
	if fs.DynamicShared {
		s += "+dyn"
	}
	return s
}

func paramAttrs(p ptx.ParamSummary, rets []ptx.ParamSummary) string {
	var a []string
	for _, r := range rets {
		if r.Name == p.Name {
			a = append(a, "return")
			break
		}
	}
	if p.Ptr {
		ptr := ".ptr"
		if p.PtrSpace != "" {
			ptr += " " + p.PtrSpace
		}
		if p.PtrAlign > 0 {
			ptr += " .align " + strconv.Itoa(p.PtrAlign)
		}
		a = append(a, ptr)
	}
	return orDash(strings.Join(a, ", "))
}
