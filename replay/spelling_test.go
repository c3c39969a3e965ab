package replay

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// spellingExempt lists opcodes of the table that the one-warp conformance
// harness cannot run (they need a bound texture or surface), with the test
// file that covers them instead; the test checks that the file uses them.
var spellingExempt = map[string]string{
	"tex": "tex_test.go", "tld4": "tex_test.go", "txq": "tex_test.go",
	"suld": "tex_test.go", "sust": "tex_test.go", "suq": "suq_test.go",
}

// caseSpellings returns the opcode spellings of a case's instructions
// (labels and guards stripped).
func caseSpellings(asm string) []string {
	var out []string
	for _, ins := range strings.Split(asm, ";") {
		ins = strings.TrimSpace(ins)
		if i := strings.Index(ins, ":"); i > 0 && !strings.ContainsAny(ins[:i], " \t.[") {
			ins = strings.TrimSpace(ins[i+1:]) // label
		}
		f := strings.Fields(ins)
		if len(f) > 0 && strings.HasPrefix(f[0], "@") {
			f = f[1:]
		}
		if len(f) > 0 && !strings.HasPrefix(f[0], ".") {
			out = append(out, f[0])
		}
	}
	return out
}

// TestSpellingCoverage enumerates every spelling the lowerer accepts (the
// opcode table: each opcode with each of its accepted modifiers and types)
// and fails for one that no conformance case uses.
func TestSpellingCoverage(t *testing.T) {
	covered := map[string]bool{} // "name" and "name mod"
	for _, g := range conformanceGroups() {
		for _, c := range g.cases {
			for _, sp := range caseSpellings(c.asm) {
				op := ptx.DecodeOpcode(sp)
				f := ptx.OpcodeFacts(op)
				if !f.Known {
					continue
				}
				covered[f.Name] = true
				for _, m := range opMods(op, f.Name) {
					covered[f.Name+" "+m] = true
				}
			}
		}
	}
	// lane-by-lane suites with their own harness (wmma_test.go)
	for _, sp := range append(append(wmmaSpellings(), wgmmaSpellings()...), tmaSpellings()...) {
		op := ptx.DecodeOpcode(sp)
		f := ptx.OpcodeFacts(op)
		covered[f.Name] = true
		for _, m := range opMods(op, f.Name) {
			covered[f.Name+" "+m] = true
		}
	}
	var missing []string
	n := 0
	for name, spec := range opTable() {
		if file, ok := spellingExempt[name]; ok {
			src, err := os.ReadFile(file)
			if err != nil || !regexp.MustCompile(`\b`+name+`\.`).Match(src) {
				t.Errorf("%s: exempt from the conformance suite, but %s does not use it", name, file)
			}
			continue
		}
		n++
		if !covered[name] {
			missing = append(missing, name)
			continue
		}
		for _, m := range spec.mods {
			n++
			if !covered[name+" "+m] {
				missing = append(missing, name+" "+m)
			}
		}
	}
	sort.Strings(missing)
	t.Logf("%d accepted spellings (opcode, opcode+modifier), %d without a conformance case", n, len(missing))
	if len(missing) > 0 {
		t.Errorf("accepted spellings without a conformance case (add one, or refuse the spelling):\n%s", strings.Join(missing, "\n"))
	}
}
