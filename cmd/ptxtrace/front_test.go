package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

// buildTags are the Makefile's default build tags.
const buildTags = "urfave_cli_no_docs grpcnotrace"

// buildBoth builds the front (ptxtrace) and the full binary
// (ptxtrace-full) into dir, as make build does.
func buildBoth(tb testing.TB, dir string) {
	tb.Helper()
	c := exec.Command("go", "build", "-tags", buildTags, "-o", dir+string(filepath.Separator), ".", "../ptxtrace-full")
	if out, err := c.CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
}

var (
	binsOnce sync.Once
	binsDir  string
	binsErr  error
)

// bins builds both binaries once per test binary and returns their
// directory.
func bins(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds both binaries; skipped in -short mode")
	}
	binsOnce.Do(func() {
		binsDir, binsErr = os.MkdirTemp("", "ptxtrace-front-test")
		if binsErr == nil {
			c := exec.Command("go", "build", "-tags", buildTags, "-o", binsDir+string(filepath.Separator), ".", "../ptxtrace-full")
			if out, err := c.CombinedOutput(); err != nil {
				binsErr = &buildError{err, out}
			}
		}
	})
	if binsErr != nil {
		t.Fatal(binsErr)
	}
	return binsDir
}

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + string(e.out) }

func TestMain(m *testing.M) {
	code := m.Run()
	if binsDir != "" {
		os.RemoveAll(binsDir)
	}
	os.Exit(code)
}

// result is what one invocation did.
type result struct {
	stdout, stderr string
	code           int
}

// invoke runs bin with args (argv[0] = argv0), in dir, with stdin.
func invoke(t *testing.T, bin, argv0, dir, stdin string, args ...string) result {
	t.Helper()
	c := exec.Command(bin, args...)
	c.Args[0] = argv0
	c.Dir = dir
	c.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %q: %v", bin, args, err)
	}
	return result{out.String(), errb.String(), code}
}

// commandNames returns the command names the full binary's help lists.
func commandNames(t *testing.T, full, front string) []string {
	help := invoke(t, full, front, t.TempDir(), "", "--help")
	i := strings.Index(help.stdout, "COMMANDS:")
	if i < 0 {
		t.Fatalf("no COMMANDS section in the full binary's help:\n%s", help.stdout)
	}
	var names []string
	for _, line := range strings.Split(help.stdout[i:], "\n")[1:] {
		if !strings.HasPrefix(line, "   ") {
			break
		}
		name := strings.TrimSuffix(strings.Fields(line)[0], ",")
		names = append(names, name)
	}
	return names
}

// TestFrontAgrees runs the front and the full binary on the same command
// lines, in twin directories holding the same files, and requires the same
// stdout, stderr, exit status and resulting files: for help in every form,
// every command's help and a misspelt flag, and fmt and inspect on good,
// broken, missing and standard-input files. The full binary runs with the
// front's argv[0], as a single binary named ptxtrace would have.
func TestFrontAgrees(t *testing.T) {
	dir := bins(t)
	front, full := filepath.Join(dir, "ptxtrace"), filepath.Join(dir, fullName)
	good, err := os.ReadFile("../../ptx/testdata/gen/vecadd.sm_35.ptx")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"good.ptx":   string(good),
		"good2.ptx":  string(good),
		"ugly.ptx":   strings.ReplaceAll(string(good), "\t", "  "),
		"broken.ptx": ".version 7.0\n.target sm_52\n.address_size 64\n.entry k( {\n\tret;\n}\n",
		"empty.ptx":  "",
		"-x.ptx":     string(good),
		"help":       string(good),
		"h":          string(good),
	}
	setup := func() string {
		d := t.TempDir()
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}

	cases := [][]string{
		{}, {"help"}, {"--help"}, {"-h"}, {"--version"}, {"nope"}, {"help", "nope"}, {"--nope"},
		{"fmt", "good.ptx"}, {"fmt", "--canonical", "good.ptx"}, {"fmt", "good.ptx", "-canonical"},
		{"fmt", "ugly.ptx", "good.ptx", "--all-errors"}, {"fmt", "broken.ptx"}, {"fmt", "broken.ptx", "good.ptx"},
		{"fmt", "missing.ptx"}, {"fmt", "."}, {"fmt"}, {"fmt", "-"}, {"fmt", "empty.ptx"},
		{"fmt", "-w", "ugly.ptx"}, {"fmt", "--canonical", "-w", "ugly.ptx", "good.ptx"}, {"fmt", "-w"},
		{"fmt", "-w", "-"}, {"fmt", "--canonical=true", "good.ptx"}, {"fmt", "-W", "good.ptx"},
		{"fmt", "---w", "good.ptx"}, {"fmt", "--", "-x.ptx"}, {"fmt", "-x.ptx"}, {"fmt", "--", "help"},
		{"fmt", "help"}, {"fmt", "h"}, {"fmt", "good.ptx", "help"}, {"inspect", "-json", "h"}, {"fmt", "-h"},
		{"inspect", "good.ptx"}, {"inspect", "--json", "good.ptx"}, {"inspect", "good.ptx", "good2.ptx", "-json"},
		{"inspect", "--json", "broken.ptx", "good.ptx"}, {"inspect", "missing.ptx"}, {"inspect"},
		{"inspect", "--all-errors", "-"}, {"fmt", ""}, {"fmt", "good.ptx", "--all-errors", "--all-errors"}, {"inspect", "--jsn", "good.ptx"}, {"inspect", "-w", "good.ptx"},
		{"samples", "list"},
	}
	for _, name := range commandNames(t, full, front) {
		cases = append(cases, []string{name, "--help"}, []string{"help", name}, []string{name, "--no-such-flag"})
	}
	stdin := string(good)
	for _, args := range cases {
		d1, d2 := setup(), setup()
		got := invoke(t, front, front, d1, stdin, args...)
		want := invoke(t, full, front, d2, stdin, args...)
		if got != want {
			t.Errorf("ptxtrace %q:\nfront: exit %d\nstdout:\n%.2000s\nstderr:\n%.2000s\nfull: exit %d\nstdout:\n%.2000s\nstderr:\n%.2000s",
				args, got.code, got.stdout, got.stderr, want.code, want.stdout, want.stderr)
			continue
		}
		for name := range files {
			a, _ := os.ReadFile(filepath.Join(d1, name))
			b, _ := os.ReadFile(filepath.Join(d2, name))
			if !bytes.Equal(a, b) {
				t.Errorf("ptxtrace %q: %s differs after the front and the full binary", args, name)
			}
		}
	}
}

// TestQuickFlagsMatchFull checks the front's flags of fmt and inspect
// against those the full binary's help lists for them (plus its help
// flag): a flag added to the full command but not to the front would
// otherwise be handed off, a flag removed would still be accepted.
func TestQuickFlagsMatchFull(t *testing.T) {
	dir := bins(t)
	flagRE := regexp.MustCompile(`(?m)^\s+(-[-\w, ]+?)\s{2,}`)
	for _, cmd := range []string{"fmt", "inspect"} {
		help := invoke(t, filepath.Join(dir, fullName), "ptxtrace", t.TempDir(), "", cmd, "--help").stdout
		i := strings.Index(help, "OPTIONS:")
		if i < 0 {
			t.Fatalf("%s --help has no OPTIONS:\n%s", cmd, help)
		}
		var listed []string
		for _, m := range flagRE.FindAllStringSubmatch(help[i:], -1) {
			for _, f := range strings.Split(m[1], ",") {
				if f = strings.TrimLeft(strings.TrimSpace(f), "-"); f != "help" && f != "h" {
					listed = append(listed, f)
				}
			}
		}
		front, _ := quickFlags(cmd)
		front = append([]string(nil), front...)
		sort.Strings(listed)
		sort.Strings(front)
		if !reflect.DeepEqual(front, listed) {
			t.Errorf("%s: front flags %q, full binary's help lists %q", cmd, front, listed)
		}
	}
}

// TestFrontWithoutFull runs the front alone: fmt still works, anything
// handed off fails with status 1 and says what is missing.
func TestFrontWithoutFull(t *testing.T) {
	dir := bins(t)
	alone := t.TempDir()
	src, err := os.ReadFile(filepath.Join(dir, "ptxtrace"))
	if err != nil {
		t.Fatal(err)
	}
	front := filepath.Join(alone, "ptxtrace")
	if err := os.WriteFile(front, src, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := invoke(t, front, front, alone, "", "fmt", "-"); r != (result{}) {
		t.Errorf("fmt of empty stdin without the full binary: %+v", r)
	}
	r := invoke(t, front, front, alone, "", "samples", "list")
	if r.code != 1 || r.stdout != "" || !strings.HasPrefix(r.stderr, "ptxtrace: ptxtrace-full is missing") {
		t.Errorf("samples list without the full binary: %+v", r)
	}
}

func TestParseQuick(t *testing.T) {
	type q = quick
	f := func(kv ...string) map[string]bool {
		m := map[string]bool{}
		for _, k := range kv {
			m[k] = true
		}
		return m
	}
	tests := []struct {
		args []string
		want quick
		ok   bool
	}{
		{[]string{"p"}, q{}, false},
		{[]string{"p", "run", "x"}, q{}, false},
		{[]string{"p", "--help"}, q{}, false},
		{[]string{"p", "fmt"}, q{"fmt", f(), nil}, true},
		{[]string{"p", "fmt", "a", "-w", "b", "--canonical"}, q{"fmt", f("w", "canonical"), []string{"a", "b"}}, true},
		{[]string{"p", "fmt", "-", "--all-errors"}, q{"fmt", f("all-errors"), []string{"-"}}, true},
		{[]string{"p", "fmt", "a", "--", "-w", "--x"}, q{"fmt", f(), []string{"a", "-w", "--x"}}, true},
		{[]string{"p", "fmt", "--w=true", "a"}, q{}, false},
		{[]string{"p", "fmt", "--json", "a"}, q{}, false},
		{[]string{"p", "fmt", "-h"}, q{}, false},
		{[]string{"p", "fmt", "---w"}, q{}, false},
		{[]string{"p", "inspect", "-json", "a"}, q{"inspect", f("json"), []string{"a"}}, true},
		{[]string{"p", "inspect", "-w", "a"}, q{}, false},
		{[]string{"p", "--canonical", "fmt"}, q{}, false},
		{[]string{"p", "fmt", "-w", "help"}, q{}, false},
		{[]string{"p", "inspect", "--", "h"}, q{}, false},
		{[]string{"p", "fmt", "a", "h"}, q{"fmt", f(), []string{"a", "h"}}, true},
	}
	for _, tt := range tests {
		got, ok := parseQuick(tt.args)
		if ok != tt.ok || (ok && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("parseQuick(%q) = %+v, %v; want %+v, %v", tt.args, got, ok, tt.want, tt.ok)
		}
	}
}

// TestFrontDeps keeps the front small: besides the standard library it may
// link only package ptx, internal/quickcmd and internal/atomicfile (not the
// CLI library, not the exporters' dependencies), and of the standard
// library not the network, templates or the protobuf-sized packages.
func TestFrontDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-tags", buildTags, "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	allowed := map[string]bool{
		"github.com/ptxtrace/ptxtrace/cmd/ptxtrace":        true,
		"github.com/ptxtrace/ptxtrace/ptx":                 true,
		"github.com/ptxtrace/ptxtrace/internal/quickcmd":   true,
		"github.com/ptxtrace/ptxtrace/internal/atomicfile": true,
	}
	banned := []string{"net", "net/http", "html/template", "text/template", "crypto/tls", "compress/"}
	for _, p := range strings.Fields(string(out)) {
		first := strings.SplitN(p, "/", 2)[0]
		if strings.Contains(first, ".") && !allowed[p] {
			t.Errorf("front binary links %s", p)
		}
		for _, b := range banned {
			if p == b || (strings.HasSuffix(b, "/") && strings.HasPrefix(p, b)) {
				t.Errorf("front binary links %s", p)
			}
		}
	}
}
